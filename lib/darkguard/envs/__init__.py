"""Environments behind one interface: `reset(task) -> Observation`, `step(action) -> Observation`.

An observation is what a user's agent would see (the screenshot and the task text); what the
environment knows about the answer (boxes, pattern labels, rule selectors) stays inside it and
reaches only the episode record through `grade`, which the loop calls for the metrics.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from PIL import Image

from darkguard.models.parsing import Click


@dataclass(frozen=True)
class Observation:
    """What an agent and a defense see at a step."""

    image: Image.Image  # the current screenshot
    task: str  # the user's task, as the user wrote it
    done: bool = False  # the episode has ended (nothing more to act on)


class Env(Protocol):
    def reset(self, task: Any) -> Observation:
        """Start an episode of `task`; its first observation."""
        ...

    def step(self, action: Click) -> Observation:
        """Execute `action`; the observation after it."""
        ...

    def grade(self, action: Click) -> int:
        """For the episode record only (never shown to agents or defenses): what `action` hits."""
        ...
