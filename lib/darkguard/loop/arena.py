"""Arena episodes through the one loop (`loop.episode`): agent x defense x live page, journaled.

Tasks are grouped by what serves them (the built-in apps share one server; each site folder gets
its own); a worker (`loop.pool`: this process, processes of this machine, Ray actors) runs one
episode at a time in one browser for the group at hand, a wiped tab per episode. An episode ends
when the agent stops, after the task's `max_steps` actions, when the defense stops it, or when a
page hangs (the step times out: a recorded failure). A browser that dies mid-episode costs one
rerun of that episode, in a fresh browser; a second crash is recorded as a failure, never the
run's end. Finished episodes go to the journal at once (this process writes it, wherever they
ran), so an interrupted run resumes where it stopped.

The episode record (`PageRecord`) holds every proposed action with what it targeted, the
defense's verdict when it did not release it and its own actions, and the environment's judgement
of task success (T) and deception (D), for the metrics only.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError

from darkguard.agents import Agent
from darkguard.browser import off_event_loop
from darkguard.defenses import Defense, NoDefense, Verdict
from darkguard.envs.arena.actions import Action, describe
from darkguard.envs.arena.env import ArenaEnv, PageObservation
from darkguard.envs.arena.predicates import selectors_of
from darkguard.envs.arena.replay import ReplayEnv
from darkguard.envs.arena.server import Served
from darkguard.envs.arena.tasks import Task
from darkguard.journal import Journal
from darkguard.loop.episode import Limits, drive, episode
from darkguard.loop.pool import Pool, run_here, run_units


@dataclass(frozen=True)
class Runner:
    """How episodes run: the agent and defense factories (picklable, e.g. classes or partials,
    when episodes run in worker processes) and the settings of every episode."""

    make_agent: Callable[[], Agent]
    make_defense: Callable[[], Defense] = NoDefense
    screenshots: bool = False
    step_timeout_s: float = 10.0
    defense_actions: int = 8  # internal actions of the defense per episode (Veer paper C.3)
    reviews_per_step: int = 5  # proposals a defense may turn back before the step is lost
    tapes: Path | None = None  # recorded pages to replay (`envs.arena.replay`); None: all live


def _group_key(task: Task) -> str:
    return f"site:{task.site}" if task.site is not None else "apps"


@contextmanager
def serving(tasks: list[Task]) -> Iterator[dict[str, tuple[str, str]]]:
    """Serve every group of `tasks` on 127.0.0.1: {group key: (origin, second origin or "")}."""
    servers: dict[str, Served] = {}
    try:
        for task in tasks:
            key = _group_key(task)
            if key not in servers:
                served = Served(site=task.site) if task.site is not None else Served()
                servers[key] = served.__enter__()
        yield {k: (s.origin, s.partner_origin or "") for k, s in servers.items()}
    finally:
        for served in servers.values():
            served.__exit__(None, None, None)


def _target(obs: PageObservation, action: Action) -> dict:
    index = getattr(action, "index", None)
    if index is None or not 0 <= index < len(obs.elements):
        return {}
    el = obs.elements[index]
    return {"role": el.role, "name": el.name, "in_dialog": el.in_dialog}


class PageRecord:
    """The arena's episode record, action by action."""

    def __init__(self, task: Task) -> None:
        self.task, self.start = task, time.perf_counter()
        self.actions: list[dict] = []
        self.brief: list[str] = []

    def briefed(self, texts: list[str]) -> None:
        self.brief = list(texts)

    def proposed(self, obs: PageObservation, action: Action, advice: str, tokens: int) -> None:
        entry = {**describe(action), **_target(obs, action)}
        if advice:
            entry["advice"] = advice
        self.actions.append(entry)

    def reviewed(
        self,
        obs: PageObservation,
        action: Action,
        verdict: Verdict,
        own: list[tuple[Action, PageObservation | None]],
        tokens: int,
        ended: bool,
    ) -> None:
        entry = self.actions[-1]
        if own:
            entry["defense_actions"] = [
                {**describe(a), **(_target(before, a) if before else {})} for a, before in own
            ]
        if verdict.kind != "release":
            entry["defense"] = {"verdict": verdict.kind, "message": verdict.message}
            if verdict.trace:
                entry["defense"]["trace"] = list(verdict.trace)

    def timed_out(self, error: str) -> None:
        self.actions.append({"action": "timeout", "error": error})

    def close(self, env: ArenaEnv, ended: str, defense_actions: int) -> dict:
        outcome, task = env.outcome(), self.task
        return {
            "id": task.id,
            "app": task.app or "site",
            "T": int(outcome.success),
            "D": int(outcome.deceived),
            "steps": env.steps,
            "ended": ended,
            "actions": self.actions,
            "defense_actions": defense_actions,
            **({"brief": self.brief} if self.brief else {}),
            "answer": outcome.answer,
            "scratchpad": outcome.scratchpad,
            "final_url": outcome.final_url,
            "blocked_requests": outcome.blocked_requests,
            "patterns": list(task.patterns),
            "seconds": round(time.perf_counter() - self.start, 3),
        }


def run_episode(
    env: ArenaEnv,
    agent: Agent,
    task: Task,
    defense: Defense | None = None,
    runner: Runner | None = None,
) -> dict:
    """One episode through the one loop; its record (T and D judged by the environment, for the
    metrics only)."""
    runner = runner or Runner(lambda: agent)
    limits = Limits(runner.defense_actions, runner.reviews_per_step)
    run = episode(env, agent, defense or NoDefense(), task, task.id, PageRecord(task), limits)
    (record,) = drive([run])
    return record


def run_tasks(
    tasks: list[Task],
    make_agent: Callable[[], Agent],
    journal_path: Path | None = None,
    screenshots: bool = False,
    step_timeout_s: float = 10.0,
    progress: Callable[[dict], None] | None = None,
    workers: int = 1,
    make_defense: Callable[[], Defense] = NoDefense,
    defense_actions: int = 8,
    pool: Pool | None = None,
    tapes: Path | None = None,
) -> list[dict]:
    """Every task's record, in task order; resumes from `journal_path` when given.

    Episodes run on `pool` (default: `workers` processes of this machine), one episode per unit
    of work; each worker has its own browser, agent and defense (`make_agent` and `make_defense`
    must then be picklable, e.g. classes or partials). Processes of this machine use the servers
    of this process; Ray actors serve the apps themselves, on their own machine's loopback.
    Episodes are independent (fresh tab, fresh server state, agent and defense reset per task),
    so the records do not depend on how they were split. `tapes`: a folder of recorded pages
    (`envs.arena.replay`): episodes read them while they follow recorded paths (the same
    records, less browser time)."""
    runner = Runner(
        make_agent, make_defense, screenshots, step_timeout_s, defense_actions, tapes=tapes
    )
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
        self,
        runner: Runner,
        origins: dict[str, tuple[str, str]] | None,
        watch: dict[str, set[str]],
    ) -> None:
        self.runner, self.origins, self.watch = runner, origins, watch
        self.agent, self.defense = runner.make_agent(), runner.make_defense()
        self.served: dict[str, Served] = {}
        self.key: str | None = None
        self.env: ArenaEnv | ReplayEnv | None = None

    def env_for(self, task: Task) -> ArenaEnv | ReplayEnv:
        key = _group_key(task)
        if key != self.key or self.env is None:
            self._close_env()
            origins = self.origins[key] if self.origins else self._serve(task, key)
            runner = self.runner
            watch = self.watch.get(key, set())
            live = ArenaEnv(origins[0], runner.screenshots, runner.step_timeout_s, watch)
            tapes = runner.tapes
            self.env = ReplayEnv(live, tapes, runner.step_timeout_s, origins) if tapes else live
            self.key = key
        return self.env

    def _serve(self, task: Task, key: str) -> tuple[str, str]:
        if key not in self.served:
            served = Served(site=task.site) if task.site is not None else Served()
            self.served[key] = served.__enter__()
        served = self.served[key]
        return served.origin, served.partner_origin or ""

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


def _run_with_retry(
    env: ArenaEnv | ReplayEnv, agent: Agent, defense, task: Task, runner: Runner
) -> dict:
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
