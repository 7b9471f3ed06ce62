"""The arena loop: agent x defense x live page, episode by episode, journaled.

Tasks are grouped by what serves them (the built-in apps share one server; each site folder gets
its own); a worker (`loop.pool`: this process, processes of this machine, Ray actors) runs one
episode at a time in one browser for the group at hand, a wiped tab per episode. An episode ends
when the agent stops, after the task's `max_steps` actions, or when a page hangs (the step times
out: a recorded failure). A browser that dies mid-episode costs one rerun of that episode, in a
fresh browser; a second crash is recorded as a failure, never the run's end. Finished episodes go
to the journal at once (this process writes it, wherever they ran), so an interrupted run resumes
where it stopped.

A defense (`darkguard.defenses.arena`) reviews every proposed action before it runs; its own
actions go through `EpisodeBrowser`: clicks of the episode, within a budget of internal actions
that do not count as task steps.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Protocol

from playwright.sync_api import Error as PlaywrightError

from darkguard.browser import off_event_loop
from darkguard.defenses.arena import ArenaDefense, BudgetExhausted, NoDefense, Verdict
from darkguard.envs.arena.actions import Action, Stop, describe
from darkguard.envs.arena.env import ArenaEnv, PageObservation, StepTimeout
from darkguard.envs.arena.observation import NOT_RUN
from darkguard.envs.arena.predicates import selectors_of
from darkguard.envs.arena.server import Served
from darkguard.envs.arena.tasks import Task
from darkguard.journal import Journal
from darkguard.loop.pool import Pool, run_here, run_units


class WebAgent(Protocol):
    name: str

    def reset(self, goal: str, episode_key: str) -> None: ...

    def advise(self, text: str) -> None: ...

    def act(self, obs: PageObservation) -> Action: ...


@dataclass(frozen=True)
class Runner:
    """How episodes run: the agent and defense factories (picklable, e.g. classes or partials,
    when episodes run in worker processes) and the settings of every episode."""

    make_agent: Callable[[], WebAgent]
    make_defense: Callable[[], ArenaDefense] = NoDefense
    screenshots: bool = False
    step_timeout_s: float = 10.0
    defense_actions: int = 8  # internal actions of the defense per episode (Veer paper C.3)
    reviews_per_step: int = 5  # proposals a defense may turn back before the step is lost


class EpisodeBrowser:
    """The live page as a defense uses it: `observe()`, and `act(action)` within the episode's
    budget of internal actions (they are clicks of the episode, not steps of the task)."""

    def __init__(self, env: ArenaEnv, budget: int) -> None:
        self.env, self.actions_left = env, budget
        self.log: list[dict] = []

    def observe(self) -> PageObservation:
        return self.env.observe()

    def act(self, action: Action) -> PageObservation:
        if self.actions_left <= 0:
            raise BudgetExhausted("the defense has no internal actions left")
        before = self.env.last_observation
        self.actions_left -= 1
        obs = self.env.step(action, count=False)
        self.log.append({**describe(action), **(_target(before, action) if before else {})})
        return obs


def _group_key(task: Task) -> str:
    return f"site:{task.site}" if task.site is not None else "apps"


@contextmanager
def serving(tasks: list[Task]) -> Iterator[dict[str, str]]:
    """Serve every group of `tasks` on 127.0.0.1: {group key: origin}."""
    servers: dict[str, Served] = {}
    try:
        for task in tasks:
            key = _group_key(task)
            if key not in servers:
                served = Served(site=task.site) if task.site is not None else Served()
                servers[key] = served.__enter__()
        yield {k: s.origin for k, s in servers.items()}
    finally:
        for served in servers.values():
            served.__exit__(None, None, None)


def _target(obs: PageObservation, action: Action) -> dict:
    index = getattr(action, "index", None)
    if index is None or not 0 <= index < len(obs.elements):
        return {}
    el = obs.elements[index]
    return {"role": el.role, "name": el.name, "in_dialog": el.in_dialog}


def run_episode(
    env: ArenaEnv,
    agent: WebAgent,
    task: Task,
    defense: ArenaDefense | None = None,
    runner: Runner | None = None,
) -> dict:
    """One episode; its record (T and D judged by the environment, for the metrics only)."""
    defense = defense or NoDefense()
    runner = runner or Runner(lambda: agent)
    start = time.perf_counter()
    agent.reset(task.goal, task.id)
    defense.reset(task.goal, task.id)
    brief = defense.brief()
    for text in brief:
        agent.advise(text)
    browser = EpisodeBrowser(env, runner.defense_actions)
    actions: list[dict] = []
    ended = "max_steps"
    reviews = 0
    try:
        obs = env.reset(task)
        while not obs.done:
            shown, advice = defense.prepare(obs)
            if advice:
                agent.advise(advice)
            action = agent.act(shown)
            entry = {**describe(action), **_target(obs, action)}
            if advice:
                entry["advice"] = advice
            actions.append(entry)
            if isinstance(action, Stop):
                obs = env.step(action)
                ended = "stop"
                continue
            logged = len(browser.log)
            try:
                verdict = defense.review(obs, action, browser)
            except BudgetExhausted as err:
                verdict = Verdict("terminate", str(err))
            if browser.log[logged:]:
                entry["defense_actions"] = browser.log[logged:]
            if verdict.kind != "release":
                entry["defense"] = {"verdict": verdict.kind, "message": verdict.message}
                if verdict.trace:
                    entry["defense"]["trace"] = list(verdict.trace)
            reviews = reviews + 1 if verdict.kind == "intervened" else 0
            if verdict.kind == "release":
                obs = env.step(action)
            elif verdict.kind == "replan":
                agent.advise(verdict.message)
                obs = env.skip_step(NOT_RUN + verdict.message)
            elif verdict.kind == "intervened" and reviews <= runner.reviews_per_step:
                changed = verdict.observation or env.observe()
                why = verdict.message or "the page was changed first; decide again from it."
                obs = replace(changed, error=NOT_RUN + why)
            else:
                ended = "defense" if verdict.kind == "terminate" else "defense_loop"
                break
    except StepTimeout as err:
        ended = "timeout"
        actions.append({"action": "timeout", "error": str(err)})
    outcome = env.outcome()
    return {
        "id": task.id,
        "app": task.app or "site",
        "T": int(outcome.success),
        "D": int(outcome.deceived),
        "steps": env.steps,
        "ended": ended,
        "actions": actions,
        "defense_actions": len(browser.log),
        **({"brief": brief} if brief else {}),
        "answer": outcome.answer,
        "scratchpad": outcome.scratchpad,
        "final_url": outcome.final_url,
        "blocked_requests": outcome.blocked_requests,
        "patterns": list(task.patterns),
        "seconds": round(time.perf_counter() - start, 3),
    }


def run_tasks(
    tasks: list[Task],
    make_agent: Callable[[], WebAgent],
    journal_path: Path | None = None,
    screenshots: bool = False,
    step_timeout_s: float = 10.0,
    progress: Callable[[dict], None] | None = None,
    workers: int = 1,
    make_defense: Callable[[], ArenaDefense] = NoDefense,
    defense_actions: int = 8,
    pool: Pool | None = None,
) -> list[dict]:
    """Every task's record, in task order; resumes from `journal_path` when given.

    Episodes run on `pool` (default: `workers` processes of this machine), one episode per unit
    of work; each worker has its own browser, agent and defense (`make_agent` and `make_defense`
    must then be picklable, e.g. classes or partials). Processes of this machine use the servers
    of this process; Ray actors serve the apps themselves, on their own machine's loopback.
    Episodes are independent (fresh tab, fresh server state, agent and defense reset per task),
    so the records do not depend on how they were split."""
    runner = Runner(make_agent, make_defense, screenshots, step_timeout_s, defense_actions)
    pool = pool or Pool(workers=workers)
    journal = Journal(journal_path) if journal_path else None
    done = journal.done if journal else {}
    # grouped by server: a worker changes browsers only between groups
    todo = sorted((t for t in tasks if t.id not in done), key=_group_key)

    def keep(_: int, record: dict) -> None:
        if journal:
            journal.append(record)
        else:
            done[record["id"]] = record
        if progress:
            progress(record)

    watch: dict[str, set[str]] = {}  # every selector a group's predicates watch, declared up
    for task in todo:  # front, so that one browser context serves the whole group
        watch.setdefault(_group_key(task), set()).update(_watched(task))
    remote = pool.executor == "ray"
    with serving([] if remote else todo) as origins:
        make_state = partial(ArenaWorker, runner, None if remote else origins, watch)
        if pool.in_process or len(todo) <= 1:
            left = list(range(len(todo)))
        else:
            left = run_units(make_state, _run_one, todo, pool, keep)
        if left:  # in this process: everything, or what dead workers left
            off_event_loop(run_here, make_state, _run_one, [(i, todo[i]) for i in left], keep)
    order = [t.id for t in tasks]
    if journal:
        journal.finalize(order)
    return [done[i] for i in order]


def _watched(task: Task) -> tuple[str, ...]:
    return selectors_of(task.success, task.deception).events


class ArenaWorker:
    """One worker's agent, defense and browser. It keeps one browser at a time (Playwright's sync
    API runs one instance per thread), for the group of the episode at hand, and serves the groups
    itself when it is given no origins (a Ray actor on another machine)."""

    def __init__(
        self, runner: Runner, origins: dict[str, str] | None, watch: dict[str, set[str]]
    ) -> None:
        self.runner, self.origins, self.watch = runner, origins, watch
        self.agent, self.defense = runner.make_agent(), runner.make_defense()
        self.served: dict[str, Served] = {}
        self.key: str | None = None
        self.env: ArenaEnv | None = None

    def env_for(self, task: Task) -> ArenaEnv:
        key = _group_key(task)
        if key != self.key or self.env is None:
            self._close_env()
            origin = self.origins[key] if self.origins else self._serve(task, key)
            runner = self.runner
            watch = self.watch.get(key, set())
            self.env = ArenaEnv(origin, runner.screenshots, runner.step_timeout_s, watch)
            self.key = key
        return self.env

    def _serve(self, task: Task, key: str) -> str:
        if key not in self.served:
            served = Served(site=task.site) if task.site is not None else Served()
            self.served[key] = served.__enter__()
        return self.served[key].origin

    def _close_env(self) -> None:
        if self.env is not None:
            self.env.close()
            self.env = None

    def close(self) -> None:
        self._close_env()
        for served in self.served.values():
            served.__exit__(None, None, None)


def _run_one(worker: ArenaWorker, task: Task) -> dict:
    return _run_with_retry(worker.env_for(task), worker.agent, worker.defense, task, worker.runner)


def _run_with_retry(env: ArenaEnv, agent: WebAgent, defense, task: Task, runner: Runner) -> dict:
    """A crashed browser costs one rerun of the episode in a fresh browser, then a failure."""
    for attempt in (1, 2):
        try:
            record = run_episode(env, agent, task, defense, runner)
            record["attempts"] = attempt
            return record
        except PlaywrightError as err:
            env.restart_browser()
            error = str(err).splitlines()[0]
    return {
        "id": task.id,
        "T": 0,
        "D": 0,
        "steps": 0,
        "ended": "crash",
        "actions": [],
        "answer": "",
        "scratchpad": "",
        "final_url": "",
        "blocked_requests": 0,
        "patterns": list(task.patterns),
        "seconds": 0.0,
        "attempts": 2,
        "error": error,
    }
