"""Environments behind one interface, for RUC's static screenshots (`ruc_static`) and the arena's
live pages (`arena.env`): `reset(task)`, `step(action)`, `skip_step(note)`, `observe()`.

An observation is what a user's agent would see (RUC: the screenshot and the task text; the
arena: the page's elements, text and screenshot); what the environment knows about the answer
(boxes, pattern labels, rule selectors) stays inside it and reaches only the episode record,
which the loop writes for the metrics.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from PIL import Image


@dataclass(frozen=True)
class Observation:
    """What an agent and a defense see at a step of a RUC page."""

    image: Image.Image  # the current screenshot
    task: str  # the user's task, as the user wrote it
    done: bool = False  # the episode has ended (nothing more to act on)


class StepTimeout(RuntimeError):
    """A step took longer than the environment allows (a hung page): the episode ends, recorded."""


class Env(Protocol):
    def goal(self, task: Any) -> str:
        """The task's text, as the agent and the defense are given it."""
        ...

    def reset(self, task: Any) -> Any:
        """Start an episode of `task`; its first observation."""
        ...

    def step(self, action: Any, count: bool = True) -> Any:
        """Execute `action`; the observation after it. `count=False`: a defense's own action
        (an action of the episode, not a step of the task's budget)."""
        ...

    def skip_step(self, error: str = "") -> Any:
        """A step of the task's budget spent without acting (a proposal a defense turned back)."""
        ...

    def observe(self) -> Any:
        """The current observation, without acting."""
        ...
