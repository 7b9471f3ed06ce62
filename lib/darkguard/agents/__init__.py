"""What an agent is: one interface for the screenshot agents of RUC and the web agents of the arena.

Per episode the loop calls `reset(goal, key)`; a defense's text for the agent's context (its brief,
a rejection's message, advice) arrives through `advise(text)`; at every step `act(obs, rejected)`
gives the next action from what the agent sees (`rejected`: this episode's proposals a defense
turned back, oldest first, each with the defense's judgement: Reject & Rethink, DUDE paper 3.4).
An agent that holds nothing between steps beyond what `act` is given may answer many episodes at
once (`act_many`: one request per episode of a lockstep batch, with the tokens each used).

- `vlm.VLMAgent`: any model backend (hf / openai) with the agent prompt; coordinates converted
  from the model's convention (RUC screenshots).
- `offline.OfflineAgent`: grounding by perception that ships inside pip packages (PP-OCR reads the
  screenshot, MiniLM matches the task) (RUC screenshots).
- `web.OfflineWebAgent`, `llm_web.LLMWebAgent`: the arena's web agents (page elements).

An agent sees only what a user's agent would see: the observation, its task and the feedback on
its own turned-back actions (an import contract in pyproject.toml).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Rejection:
    """A proposal a defense turned back: the action, the defense's label of it (DUDE: -1, 0, or
    None when unreadable) and its message."""

    action: Any
    label: int | None
    message: str = ""

    @property
    def x(self) -> float:
        return self.action.x

    @property
    def y(self) -> float:
        return self.action.y


class Agent(Protocol):
    name: str

    def reset(self, goal: str, episode_key: str) -> None: ...

    def advise(self, text: str) -> None: ...

    def act(self, obs: Any, rejected: Sequence[Rejection] = ()) -> Any: ...


class Stateless:
    """An agent that holds nothing between steps: nothing to reset, nothing to remember of advice
    (its prompt carries the turned-back clicks themselves)."""

    def reset(self, goal: str, episode_key: str) -> None:
        pass

    def advise(self, text: str) -> None:
        pass
