"""What a defense is: one interface for DUDE's gate, Veer and the six baselines, on RUC's static
screenshots and on the arena's live pages alike.

A defense sits between the agent and the environment (Veer paper, 2: "Before executing a_t, it
receives u, o_t, tau_<t and a_t"; DUDE paper 3.4: the evaluator gates every proposed click).
Per episode the loop calls `reset(goal, key)` and hands the agent the defense's `brief()` (text for
its context: a warning, guidance, the Stage-2 experience). At every step it asks `prepare(obs)`
for the observation the agent is shown (Spotlighting delimits the page text, VIGIL sanitizes it)
and any advice for the agent's context, then `review(obs, action, browser)` about the proposed
action, for a `Verdict`:

- `release`: the action runs as proposed;
- `replan`: the action is turned back; `message` (and `label`, a judge's verdict such as DUDE's
  L-hat) go back to the agent, which proposes again (Reject & Rethink); the turned-back proposal
  costs one step of the task's budget;
- `intervened`: the defense changed the page itself through `browser` (clicks of the episode that
  are not steps of the task); the agent proposes again from the new page;
- `terminate`: the episode ends without the action (a safe stop).

A defense may review many proposals at once (`review_many`, one per episode of a lockstep batch:
a model judge's batches); `Reviewer` gives it from `review`, and `review` from `review_many`.
Defenses compose: `Stack` asks each in order, and the first that does not release decides.

A defense sees what the agent sees and acts only through `Browser`, within a budget. It never
reads tasks, predicates, pattern labels, the condition switch or app internals: pyproject's
import-linter contracts forbid every such module to this package.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

VERDICTS = ("release", "replan", "intervened", "terminate")


@dataclass(frozen=True)
class Verdict:
    """A defense's answer about one proposed action."""

    kind: str = "release"  # release | replan | intervened | terminate
    message: str = ""  # replan: what the agent is told; terminate: why
    label: int | None = None  # a judge's label of the action (DUDE's L-hat), fed back with it
    tokens: int = 0  # model tokens the review used
    observation: Any = None  # intervened: the page after the intervention
    trace: tuple[dict, ...] = ()  # what the defense did and saw, for the episode record

    def __post_init__(self) -> None:
        if self.kind not in VERDICTS:
            raise ValueError(f"verdict {self.kind!r} not in {VERDICTS}")

    @property
    def allow(self) -> bool:
        """The action runs as proposed."""
        return self.kind == "release"


RELEASE = Verdict()


class BudgetExhausted(RuntimeError):
    """The defense has used all its internal actions of the episode."""


class Browser(Protocol):
    """The environment as a defense may use it: look, and act like a user within a budget of
    internal actions (clicks of the episode that do not count as steps of the task)."""

    actions_left: int

    def observe(self) -> Any: ...

    def act(self, action: Any) -> Any: ...


class Defense(Protocol):
    name: str

    def reset(self, goal: str, episode_key: str) -> None: ...

    def brief(self) -> list[str]: ...

    def prepare(self, obs: Any) -> tuple[Any, str]: ...

    def review(self, obs: Any, action: Any, browser: Browser) -> Verdict: ...

    def review_many(self, proposals: Sequence[tuple[Any, Any, Browser]]) -> list[Verdict]: ...


class Passive:
    """The parts of a defense that leave the agent's view alone: nothing to reset, no brief, the
    observation as it is, no per-step advice (a defense overrides what it changes)."""

    def reset(self, goal: str, episode_key: str) -> None:
        pass

    def brief(self) -> list[str]:
        return []

    def prepare(self, obs: Any) -> tuple[Any, str]:
        return obs, ""


class Reviewer(Passive):
    """A defense that implements one of `review` (one proposal at a time) and `review_many` (a
    batch: one proposal per episode of a lockstep batch) gets the other."""

    def review(self, obs: Any, action: Any, browser: Browser) -> Verdict:
        (verdict,) = self.review_many([(obs, action, browser)])
        return verdict

    def review_many(self, proposals: Sequence[tuple[Any, Any, Browser]]) -> list[Verdict]:
        if type(self).review is Reviewer.review:
            raise TypeError(f"{type(self).__name__} implements neither review nor review_many")
        return [self.review(obs, action, browser) for obs, action, browser in proposals]


class NoDefense(Reviewer):
    """Every action released (the paper's No-Defense; the vanilla agent)."""

    name = "none"

    def review(self, obs: Any, action: Any, browser: Browser) -> Verdict:
        return RELEASE


class Stack(Reviewer):
    """Defenses in order (`--defense dude-s2+veer`): each is reset with the episode and briefs the
    agent; each prepares the observation in turn (the next sees what the previous showed, their
    advice joined); each reviews the proposal in turn, and the first that does not release it
    decides. A defense that intervened changed the page: the agent proposes again, and the later
    defenses review that new proposal. Batches go to each defense's `review_many` together."""

    def __init__(self, defenses: Sequence[Defense]) -> None:
        if len(defenses) < 2:
            raise ValueError("a stack needs at least two defenses")
        self.defenses = list(defenses)
        self.name = "+".join(d.name for d in self.defenses)

    def reset(self, goal: str, episode_key: str) -> None:
        for defense in self.defenses:
            defense.reset(goal, episode_key)

    def brief(self) -> list[str]:
        return [text for defense in self.defenses for text in defense.brief()]

    def prepare(self, obs: Any) -> tuple[Any, str]:
        advice = []
        for defense in self.defenses:
            obs, said = defense.prepare(obs)
            if said:
                advice.append(said)
        return obs, "\n".join(advice)

    def review_many(self, proposals: Sequence[tuple[Any, Any, Browser]]) -> list[Verdict]:
        verdicts: list[Verdict | None] = [None] * len(proposals)
        labels: list[int | None] = [None] * len(proposals)  # a releasing judge's label
        tokens = [0] * len(proposals)
        traces: list[tuple[dict, ...]] = [()] * len(proposals)
        open_ = list(range(len(proposals)))
        for defense in self.defenses:
            if not open_:
                break
            answers = review_all(defense, [proposals[i] for i in open_])
            still = []
            for i, verdict in zip(open_, answers, strict=True):
                tokens[i] += verdict.tokens
                traces[i] += tuple({"defense": defense.name, **t} for t in verdict.trace)
                if verdict.allow:
                    labels[i] = verdict.label if labels[i] is None else labels[i]
                    still.append(i)
                else:
                    verdicts[i] = verdict
            open_ = still
        out = []
        for i, verdict in enumerate(verdicts):
            decided = verdict or Verdict(label=labels[i])
            out.append(
                Verdict(
                    decided.kind, decided.message, decided.label, tokens[i],
                    decided.observation, traces[i],
                )
            )  # fmt: skip
        return out


def review_all(defense: Defense, proposals: Sequence[tuple[Any, Any, Browser]]) -> list[Verdict]:
    """A defense's verdicts on a batch: its `review_many` when it has one, else one by one."""
    many = getattr(defense, "review_many", None)
    if many is not None:
        return many(proposals)
    return [defense.review(obs, action, browser) for obs, action, browser in proposals]
