"""The one loop: an agent, a defense and an environment, step by step, for RUC's static screenshots
and the arena's live pages alike.

An episode (`episode`) starts the agent and the defense on the task's goal and hands the agent the
defense's brief. At each step the defense prepares what the agent is shown (and may advise it),
the agent proposes an action, and unless the action ends the episode (a final answer, `Stop`, an
unreadable answer) the defense reviews it (`darkguard.defenses.Verdict`):

- release: the action runs in the environment (a step of the task);
- replan: the action does not run; the defense's message goes to the agent's context, the action
  and the defense's label to its turned-back list, and the step is spent (`env.skip_step`);
- intervened: the defense changed the page through the episode's browser (`EpisodeBrowser`: its
  own actions, within a budget, not steps of the task); the agent proposes again from the new
  page, at most `reviews_per_step` times in a row;
- terminate (or a defense out of internal actions): the episode ends without the action.

The episode ends when the environment says so (a box hit on RUC, the step budget), on a final
answer, when the defense stops it, or when a step times out (a hung page, recorded).

An episode is a generator of requests to the agent (`Act`) and to the defense (`Review`); how
they are answered is the executor's business, not the loop's: `drive` answers many episodes'
requests together (lockstep: one batch of proposals, then one batch of reviews, for agents and
defenses that take batches), and a single episode is a batch of one. What the episode record
holds is its `Record`'s business (RUC: steps with Table 17 outcome codes; the arena: actions and
the environment's judgement of T and D).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from darkguard.agents import Agent, Rejection
from darkguard.defenses import BudgetExhausted, Defense, Verdict, review_all
from darkguard.envs import Env, StepTimeout
from darkguard.envs.arena.actions import Stop
from darkguard.envs.arena.observation import NOT_RUN
from darkguard.models.parsing import FinalAnswer, ParseFailure


@dataclass(frozen=True)
class Limits:
    """What bounds an episode beyond the environment's own step budget."""

    defense_actions: int = 8  # a defense's internal actions per episode (Veer paper C.3)
    reviews_per_step: int = 5  # interventions in a row before the step is lost


@dataclass(frozen=True)
class Act:
    """A request to the agent: its next action for `observation`."""

    agent: Agent
    observation: Any
    rejected: tuple[Rejection, ...]


@dataclass(frozen=True)
class Review:
    """A request to the defense: its verdict on `action`, proposed at `observation`."""

    defense: Defense
    observation: Any
    action: Any
    browser: EpisodeBrowser


class Record(Protocol):
    """What an episode's record keeps (for the metrics only: it may read the environment's
    answer key; agents and defenses never see it)."""

    def briefed(self, texts: list[str]) -> None: ...

    def proposed(self, obs: Any, action: Any, advice: str, tokens: int) -> None: ...

    def reviewed(
        self,
        obs: Any,
        action: Any,
        verdict: Verdict,
        own: list[tuple[Any, Any]],
        tokens: int,
        ended: bool,
    ) -> None: ...

    def timed_out(self, error: str) -> None: ...

    def close(self, env: Env, ended: str, defense_actions: int) -> Any: ...


class EpisodeBrowser:
    """The environment as a defense uses it: `observe()`, and `act(action)` within the episode's
    budget of internal actions (actions of the episode, not steps of the task). `log` keeps each
    action with the observation it was taken on."""

    def __init__(self, env: Env, budget: int) -> None:
        self._env, self.actions_left = env, budget
        self.log: list[tuple[Any, Any]] = []
        self.current: Any = None  # the last observation the episode or the defense saw

    def observe(self) -> Any:
        self.current = self._env.observe()
        return self.current

    def act(self, action: Any) -> Any:
        if self.actions_left <= 0:
            raise BudgetExhausted("the defense has no internal actions left")
        self.actions_left -= 1
        self.log.append((action, getattr(self._env, "last_observation", self.current)))
        self.current = self._env.step(action, count=False)
        return self.current


def ends_episode(action: Any) -> bool:
    """An action that ends the episode without review: a final answer (RUC), `Stop` (the arena),
    an answer that could not be read as an action."""
    return isinstance(action, FinalAnswer | ParseFailure | Stop)


def with_error(obs: Any, error: str) -> Any:
    """The observation with a note on what happened to the last action (pages carry one)."""
    fields = {f.name for f in dataclasses.fields(obs)}
    return dataclasses.replace(obs, error=error) if "error" in fields else obs


def episode(
    env: Env,
    agent: Agent,
    defense: Defense,
    task: Any,
    key: str,
    record: Record,
    limits: Limits = Limits(),
) -> Generator[Act | Review, Any, Any]:
    """One episode of `task` (the environment's task, `key` its identity); yields requests,
    returns its record."""
    goal = env.goal(task)
    agent.reset(goal, key)
    defense.reset(goal, key)
    brief = defense.brief()
    for text in brief:
        agent.advise(text)
    record.briefed(brief)
    browser = EpisodeBrowser(env, limits.defense_actions)
    rejected: list[Rejection] = []
    ended, reviews = "max_steps", 0
    try:
        obs = env.reset(task)
        while not obs.done:
            browser.current = obs
            shown, advice = defense.prepare(obs)
            if advice:
                agent.advise(advice)
            action, tokens = yield Act(agent, shown, tuple(rejected))
            record.proposed(obs, action, advice, tokens)
            if ends_episode(action):
                obs, ended = env.step(action), "stop"
                continue
            logged = len(browser.log)
            verdict = yield Review(defense, obs, action, browser)
            ended_by_defense = browser.current is not None and browser.current.done
            record.reviewed(obs, action, verdict, browser.log[logged:], tokens, ended_by_defense)
            reviews = reviews + 1 if verdict.kind == "intervened" else 0
            if ended_by_defense:
                obs = browser.current  # the defense's own action ended the episode
            elif verdict.kind == "release":
                obs = env.step(action)
            elif verdict.kind == "replan":
                if verdict.message:
                    agent.advise(verdict.message)
                rejected.append(Rejection(action, verdict.label, verdict.message))
                obs = env.skip_step(NOT_RUN + verdict.message)
            elif verdict.kind == "intervened" and reviews <= limits.reviews_per_step:
                changed = verdict.observation or env.observe()
                why = verdict.message or "the page was changed first; decide again from it."
                obs = with_error(changed, NOT_RUN + why)
            else:
                ended = "defense" if verdict.kind == "terminate" else "defense_loop"
                break
    except StepTimeout as err:
        ended = "timeout"
        record.timed_out(str(err))
    return record.close(env, ended, len(browser.log))


def drive(
    episodes: Sequence[Generator[Act | Review, Any, Any]],
    agent_tokens: Callable[[], int] | None = None,
) -> list[Any]:
    """Run episodes together, answering their requests in batches: every pending proposal in one
    call per agent (`act_many` when the agent has it), then every pending review in one call per
    defense (`review_many` when it has it); each episode runs exactly as it would alone.
    `agent_tokens()` (optional) gives the tokens an agent's last `act` used (agents without
    `act_many`). The episodes' records, in order."""
    results: list[Any] = [None] * len(episodes)
    pending: dict[int, Act | Review] = {}

    def advance(i: int, answer: Any) -> None:
        try:
            pending[i] = episodes[i].send(answer)
        except StopIteration as done:
            pending.pop(i, None)
            results[i] = done.value

    for i in range(len(episodes)):
        advance(i, None)
    while pending:
        for kind, answer_batch in ((Act, _act_batch), (Review, _review_batch)):
            asked = [(i, r) for i, r in sorted(pending.items()) if isinstance(r, kind)]
            for owner in _owners(asked):
                group = [(i, r) for i, r in asked if _owner(r) is owner]
                answers = answer_batch([r for _, r in group], agent_tokens)
                for (i, _), answer in zip(group, answers, strict=True):
                    advance(i, answer)
    return results


def _owner(request: Act | Review) -> Any:
    return request.agent if isinstance(request, Act) else request.defense


def _owners(asked: list[tuple[int, Act | Review]]) -> list[Any]:
    owners: list[Any] = []
    for _, request in asked:
        if not any(o is _owner(request) for o in owners):
            owners.append(_owner(request))
    return owners


def _act_batch(
    requests: list[Act], agent_tokens: Callable[[], int] | None
) -> list[tuple[Any, int]]:
    agent = requests[0].agent
    many = getattr(agent, "act_many", None)
    if many is not None:
        return many([(r.observation, list(r.rejected)) for r in requests])
    out = []
    for r in requests:
        action = agent.act(r.observation, list(r.rejected))
        out.append((action, agent_tokens() if agent_tokens else 0))
    return out


def _review_batch(requests: list[Review], _: Any = None) -> list[Verdict]:
    defense = requests[0].defense
    proposals = [(r.observation, r.action, r.browser) for r in requests]
    try:
        return review_all(defense, proposals)
    except BudgetExhausted:
        if len(proposals) > 1:  # the one out of actions ends; the others are reviewed again
            return [_review_batch([r])[0] for r in requests]
        return [Verdict("terminate", "the defense has no internal actions left")]
