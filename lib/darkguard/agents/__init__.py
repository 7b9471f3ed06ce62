"""Agents behind one interface: propose an action for (screenshot, task), and propose again after
a rejection (Reject & Rethink, DUDE paper 3.4).

- `vlm.VLMAgent`: any model backend (hf / openai) with the agent prompt; coordinates converted
  from the model's convention.
- `offline.OfflineAgent`: the embedded default's grounding agent, built from perception that ships
  inside pip packages (`perception`: PP-OCR reads the screenshot, MiniLM matches the task).

An agent sees only what a user's agent would see: the screenshot, the task text and the feedback
on its own rejected actions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from PIL import Image

from darkguard.models.parsing import AgentOutput


@dataclass(frozen=True)
class Rejection:
    """A click the evaluator rejected, with its verdict (-1, 0, or None when unreadable)."""

    x: float
    y: float
    label: int | None


class Agent(Protocol):
    name: str

    def propose(self, image: Image.Image, task: str, rejected: list[Rejection]) -> AgentOutput:
        """The next action; `rejected` holds this episode's rejected clicks, oldest first."""
        ...
