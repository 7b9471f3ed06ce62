"""Runtime defenses of the arena's web agents: one interface for Veer and the six baselines.

A defense sits between the base agent and the live page (Veer paper, 2: "Before executing a_t,
it receives u, o_t, tau_<t and a_t"). Per episode the loop calls `reset(goal, key)` and hands the
agent the defense's `brief()` (text for its context: a warning, guidance, delimiters). At every
step it first asks `prepare(obs)` for the observation the agent is shown (Spotlighting delimits
the page text, VIGIL sanitizes it; element indices never change) and any advice for the agent's
context (Guardrail's per-step warning), then asks `review(obs, action, browser)` about the
proposed action for a `Verdict`:

- `release`: the action runs as proposed;
- `replan`: the action is rejected; `message` goes to the agent's context and it proposes again
  (the rejected proposal costs one step of the task's budget);
- `intervened`: the defense changed the page itself through `browser` (its clicks are clicks of
  the episode); the agent proposes again from the new page;
- `terminate`: the episode ends without the action (a safe stop).

A defense sees what the agent sees (`PageObservation`) and acts only through `Browser`, with a
budget of internal actions that never advance the task's step count. It never reads tasks,
predicates, pattern labels, the condition switch or app internals (an import contract).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from darkguard.envs.arena.actions import Action
from darkguard.envs.arena.observation import PageObservation

VERDICTS = ("release", "replan", "intervened", "terminate")


@dataclass(frozen=True)
class Verdict:
    kind: str  # release | replan | intervened | terminate
    message: str = ""  # replan: what the agent is told; terminate: why
    observation: PageObservation | None = None  # intervened: the page after the intervention
    trace: tuple[dict, ...] = ()  # what the defense did and saw, for the episode record

    def __post_init__(self) -> None:
        if self.kind not in VERDICTS:
            raise ValueError(f"verdict {self.kind!r} not in {VERDICTS}")


RELEASE = Verdict("release")


class BudgetExhausted(RuntimeError):
    """The defense has used all its internal actions of the episode."""


class Browser(Protocol):
    """The live page as a defense may use it: look, and act like a user within a budget."""

    actions_left: int

    def observe(self) -> PageObservation: ...

    def act(self, action: Action) -> PageObservation: ...


class ArenaDefense(Protocol):
    name: str

    def reset(self, goal: str, episode_key: str) -> None: ...

    def brief(self) -> list[str]: ...

    def prepare(self, obs: PageObservation) -> tuple[PageObservation, str]: ...

    def review(self, obs: PageObservation, action: Action, browser: Browser) -> Verdict: ...


class Passive:
    """The parts of a defense that leave the agent's view alone: no brief, the observation as it
    is, no per-step advice (a defense overrides what it changes)."""

    def brief(self) -> list[str]:
        return []

    def prepare(self, obs: PageObservation) -> tuple[PageObservation, str]:
        return obs, ""


class NoDefense(Passive):
    """Every action released (the paper's No-Defense)."""

    name = "none"

    def reset(self, goal: str, episode_key: str) -> None:
        pass

    def review(self, obs: PageObservation, action: Action, browser: Browser) -> Verdict:
        return RELEASE
