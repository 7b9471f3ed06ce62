"""The one agent x environment x defense loop: episodes in lockstep batches, journaled.

At most `t_max` steps (DUDE App. F.3: 3). At each step the agent proposes an action from the
observation and its rejected clicks; the defense (if any) reviews the proposal: it allows it,
rejects it (the click and the defense's judgement are fed back to the agent, Reject & Rethink,
DUDE 3.4, and the agent proposes again) or first acts on the environment itself. An allowed click
executes in the environment. The episode ends when the environment says so (RUC: a click in the
correct or the deceptive box), on a final answer or an unusable answer, or after `t_max` steps.
Without a defense every click executes (the vanilla agent).

Each step records what the click hit (`Env.grade`, for the metrics only) and its Table 17 outcome
code (`metrics.clicks.outcome_code`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from darkguard.agents import Agent, Rejection
from darkguard.defenses import Defense, Verdict
from darkguard.envs import Env, Observation
from darkguard.journal import Journal
from darkguard.loop.pool import IN_PROCESS, Pool, run_here, run_units
from darkguard.metrics.clicks import Episode, Step, outcome_code
from darkguard.models.parsing import AgentOutput, Click, FinalAnswer

T_MAX = 3

# open_task(item) -> (environment, its task, the episode's empty record)
OpenTask = Callable[[Any], tuple[Env, Any, Episode]]


class _Running:
    """One episode in progress."""

    def __init__(self, env: Env, task: Any, episode: Episode) -> None:
        self.env, self.episode = env, episode
        self.observation: Observation = env.reset(task)
        self.rejected: list[Rejection] = []
        self.done = False

    def take(self, action: AgentOutput, agent_tokens: int) -> Click | None:
        """The agent's action: a click to review, or None when it ends the episode."""
        if isinstance(action, Click):
            return action
        kind = "final_answer" if isinstance(action, FinalAnswer) else "invalid"
        self.episode.steps.append(Step(kind, None, None, None, False, "NO_ACTION", agent_tokens))
        self.done = True
        return None

    def resolve(self, click: Click, verdict: Verdict | None, agent_tokens: int) -> None:
        """The reviewed click: the defense's interventions first (the first one carries the
        tokens of the proposal and of its review), then the click itself when there is no
        defense or it allows the click."""
        label = verdict.label if verdict else None
        tokens = verdict.tokens if verdict else 0
        for action in verdict.interventions if verdict else ():
            hit = self.env.grade(action)
            step = Step("intervention", _xy(action), hit, None, True, "INTERVENTION")
            self._execute(action, replace(step, agent_tokens=agent_tokens, evaluator_tokens=tokens))
            agent_tokens = tokens = 0
            if self.done:
                return
        executed = verdict is None or verdict.allow
        hit = self.env.grade(click)
        code = outcome_code(self.episode.page_type, executed, hit)
        step = Step("click", _xy(click), hit, label, executed, code, agent_tokens, tokens)
        if executed:
            self._execute(click, step)
        else:
            self.episode.steps.append(step)
            self.rejected.append(Rejection(click.x, click.y, label))

    def _execute(self, action: Click, step: Step) -> None:
        self.episode.steps.append(step)
        self.observation = self.env.step(action)
        if self.observation.done:
            self.episode.result = getattr(self.env, "result", "null")
            self.done = True


def _xy(click: Click) -> list[float]:
    return [round(click.x, 1), round(click.y, 1)]


def run_episodes(
    agent: Agent,
    defense: Defense | None,
    tasks: list[tuple[Env, Any, Episode]],
    t_max: int = T_MAX,
    agent_tokens: Callable[[], int] | None = None,
) -> list[Episode]:
    """Run (environment, task, empty record) triples in lockstep: at each step every unfinished
    episode's proposal is asked in one batch (`agent.propose_many` when the agent has it) and
    every proposed click is reviewed in one batch (`defense.review_many`); each episode runs
    exactly as it would alone. `agent_tokens()` (optional) returns the tokens the agent's last
    call used (for agents without `propose_many`)."""
    running = [_Running(env, task, episode) for env, task, episode in tasks]
    for _ in range(t_max):
        active = [r for r in running if not r.done]
        if not active:
            break
        requests = [(r.observation.image, r.observation.task, list(r.rejected)) for r in active]
        proposals = _propose(agent, requests, agent_tokens)
        clicks = []
        for run, (action, used) in zip(active, proposals, strict=True):
            click = run.take(action, used)
            if click is not None:
                clicks.append((run, click, used))
        reviewed = [(r.observation, c) for r, c, _ in clicks]
        verdicts = defense.review_many(reviewed) if defense else [None] * len(clicks)
        for (run, click, used), verdict in zip(clicks, verdicts, strict=True):
            run.resolve(click, verdict, used)
    return [r.episode for r in running]


@dataclass
class Setup:
    """What a worker runs episodes with: the agent, the defense (None: the vanilla agent), how a
    task opens, and the agent's token counter (optional, for agents without `propose_many`)."""

    agent: Agent
    defense: Defense | None
    open_task: OpenTask
    agent_tokens: Callable[[], int] | None = None


def run_journaled(
    agent: Agent,
    defense: Defense | None,
    suite: list[dict],
    open_task: OpenTask,
    journal_path: Path,
    t_max: int = T_MAX,
    agent_tokens: Callable[[], int] | None = None,
    batch: int = 1,
) -> list[Episode]:
    """`run_journaled_on` in this process, with these agent and defense."""
    setup = Setup(agent, defense, open_task, agent_tokens)
    return run_journaled_on(lambda: setup, suite, journal_path, t_max, batch)


def run_journaled_on(
    make_setup: Callable[[], Setup],
    suite: list[dict],
    journal_path: Path,
    t_max: int = T_MAX,
    batch: int = 1,
    pool: Pool = IN_PROCESS,
) -> list[Episode]:
    """Run every task of `suite` (records with an `id`) once, `batch` tasks at a time in lockstep,
    on `pool`'s workers (each builds its `Setup` once with `make_setup`, picklable unless the pool
    is this process), resuming from `journal_path`: a batch whose episodes are all journaled is
    read back, not rerun; a partly journaled one runs again whole (the same batches as an
    uninterrupted run) and keeps its journaled episodes. Batches are the same however many
    workers run them; this process writes the journal as each batch comes back, and runs itself
    the batches of workers that died. Each episode's `seconds` is its batch's wall time over the
    batch's tasks. The journal is rewritten in suite order at the end."""
    if batch < 1:
        raise ValueError(f"batch {batch} must be at least 1")
    journal = Journal(journal_path, key="sample_id")
    chunks = [suite[start : start + batch] for start in range(0, len(suite), batch)]
    todo = [c for c in chunks if not all(str(r["id"]) in journal.done for r in c)]

    def keep(_: int, episodes: list[dict]) -> None:
        for episode in episodes:
            if episode["sample_id"] not in journal.done:
                journal.append(episode)

    left = run_units(make_setup, partial(_run_batch, t_max=t_max), todo, pool, keep)
    if left:
        run_here(make_setup, partial(_run_batch, t_max=t_max), [(i, todo[i]) for i in left], keep)
    order = [str(r["id"]) for r in suite]
    journal.finalize(order)
    return [Episode.from_json(journal.done[i]) for i in order]


def _run_batch(setup: Setup, chunk: list[dict], t_max: int) -> list[dict]:
    """One lockstep batch: its episodes as journal records."""
    began = time.perf_counter()
    tasks = [setup.open_task(r) for r in chunk]
    episodes = run_episodes(setup.agent, setup.defense, tasks, t_max, setup.agent_tokens)
    seconds = round((time.perf_counter() - began) / len(chunk), 3)
    out = []
    for episode in episodes:
        episode.seconds = seconds
        out.append(episode.to_json())
    return out


def _propose(
    agent: Agent, requests: list[tuple], agent_tokens: Callable[[], int] | None
) -> list[tuple[AgentOutput, int]]:
    """(action, tokens) per request: one batch when the agent takes batches."""
    many = getattr(agent, "propose_many", None)
    if many is not None:
        return many(requests)
    out = []
    for request in requests:
        action = agent.propose(*request)
        out.append((action, agent_tokens() if agent_tokens else 0))
    return out
