"""Defenses behind one interface, called at each action boundary of an episode.

A defense sees what the agent sees (the observation) and the action the agent proposes, and
answers with a `Verdict`: allow the action, reject it (the agent is told and proposes again), or
act on the environment itself before the agent's action (`interventions`, executed by the loop in
the environment, then the agent's action is allowed or not as the verdict says). A defense never
reads the environment's answer key (boxes, pattern labels, rule selectors).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from darkguard.envs import Observation
from darkguard.models.parsing import Click


@dataclass(frozen=True)
class Verdict:
    allow: bool
    label: int | None = None  # the defense's judgement, shown to the agent with a rejection
    tokens: int = 0  # model tokens the review used
    interventions: tuple[Click, ...] = ()  # actions the defense executes before the agent's


class Defense(Protocol):
    name: str

    def review_many(self, proposals: list[tuple[Observation, Click]]) -> list[Verdict]:
        """One verdict per (observation, proposed action), in order."""
        ...
