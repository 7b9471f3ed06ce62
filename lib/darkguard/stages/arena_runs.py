"""One agent x one defense on one built-in arena set, journaled: what the arena stages share
(`arena_eval`, `veer_eval`, `veer_ablations`).

A run's journal lives under `data/arena/<defense>/<agent>-seed<seed>/`, named by a fingerprint
of the task files, the agent, the defense and the code that decides an episode's course; a
changed input starts a new journal, an interrupted run resumes, and two stages asking for the
same run share its journal (the No-Defense episodes of `arena_eval` are those of `veer_eval`).
"""

from __future__ import annotations

import functools
import hashlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from darkguard import paths
from darkguard.agents import Agent
from darkguard.config import ParallelParams
from darkguard.defenses import Defense
from darkguard.envs.arena.tasks import EXPECTED_SIZES, INFEASIBLE_PATTERNS, Task, load_tasks
from darkguard.io import InputError, read_json, write_json
from darkguard.loop.arena import run_tasks
from darkguard.loop.pool import pool_of
from darkguard.metrics.arena import ArenaScores, score

FEASIBLE = "webdecept_feasible"
CODE = (
    "agents/web",
    "envs/arena",
    "loop/arena.py",
    "loop/episode.py",
    "defenses/__init__.py",
)  # an episode's course


def make_web_agent(spec: str | dict, seed: int) -> Agent:
    """A base web agent from its spec: `offline` (a generic agent with no LLM), `{offline:
    {epsilon: 0.1}}` (the same agent with seeded exploration noise: another behaviour setting),
    or a model spec of an OpenAI-compatible endpoint (`{backend: openai, path, base_url, ...}`)."""
    from darkguard.agents.web import OfflineWebAgent

    if spec == "offline":
        return OfflineWebAgent(seed=seed)
    if isinstance(spec, dict) and set(spec) == {"offline"} and isinstance(spec["offline"], dict):
        unknown = set(spec["offline"]) - {"epsilon"}
        if unknown:
            raise InputError(f"offline agent: unknown setting {sorted(unknown)[0]!r}")
        return OfflineWebAgent(seed=seed, epsilon=float(spec["offline"].get("epsilon", 0.0)))
    if isinstance(spec, dict) and "backend" in spec:
        from darkguard.agents.llm_web import LLMWebAgent
        from darkguard.models.backends import load_backend
        from darkguard.models.spec import ModelSpec

        return LLMWebAgent(load_backend(ModelSpec.from_dict("arena_agent", spec)))
    raise InputError(
        f"unknown web agent {spec!r}; known: offline, {{offline: {{epsilon: E}}}}, or a model "
        "spec (a mapping with `backend`)"
    )


def agent_name(spec: str | dict) -> str:
    """`offline`, `offline-eps0.1`, or `llm-<model>`: the agent's name in paths and captions."""
    if isinstance(spec, str):
        return spec
    if set(spec) == {"offline"}:
        return f"offline-eps{spec['offline'].get('epsilon', 0.0):g}"
    return f"llm-{spec.get('path', 'model')}"


@dataclass(frozen=True)
class RunSpec:
    """Who runs (agent, defense), and how (seed, browsers, budgets)."""

    agent: str | dict[str, Any]
    seed: int
    step_timeout_s: float
    workers: int
    parallel: ParallelParams | None = None  # where episodes run (None: this machine)
    defense: str = "none"
    make_defense: Callable[[], Defense] | None = None  # None: no defense
    defense_code: tuple[str, ...] = ()  # package paths of the defense's code (fingerprint)
    defense_options: str = ""  # e.g. the reasoner's spec (fingerprint)
    defense_actions: int = 8
    screenshots: bool = False
    tapes: Path | None = None  # recorded pages (`envs.arena.replay`); None: every episode live
    # a seeded sample of a set's units (`sample_units`): set name -> units run; absent: all
    sample: dict[str, int] = field(default_factory=dict)


@dataclass
class SetRun:
    name: str
    tasks: list[Task]
    records: list[dict]
    seconds: float  # wall time of the runs that made the journal
    ran: int  # episodes those runs ran (all of them, unless the journal was moved)
    journal: str = ""  # the journal's path under the repository ("": scored from another run)

    def scores(self) -> ArenaScores:
        return score(self.records, len(self.tasks))


@dataclass
class MethodRuns:
    """One agent x defense on several sets."""

    agent: str
    defense: str
    runs: dict[str, SetRun] = field(default_factory=dict)


def tapes_dir(replay: bool) -> Path | None:
    """Where the arena's recorded pages live (shared by every stage and method), or None."""
    return paths.data_dir() / "arena_tapes" if replay else None


def run_dir(spec: RunSpec) -> Path:
    folder = "no_defense" if spec.defense == "none" else spec.defense
    return paths.data_dir() / "arena" / folder / f"{agent_name(spec.agent)}-seed{spec.seed}"


def fingerprint(tasks: list[Task], spec: RunSpec) -> str:
    """The task files, the agent, the defense and the code that runs an episode: a change starts
    a new journal (the stage's data folder persists across runs, so an old journal must not
    answer)."""
    package = Path(__file__).resolve().parents[1]
    files = sorted({Path(t.file) for t in tasks})
    for part in CODE + spec.defense_code:
        root = package / part
        found = root.rglob("*") if root.is_dir() else [root]
        files += sorted(f for f in found if f.suffix in {".py", ".js", ".html", ".yaml"})
    key = f"{spec.agent}:{spec.seed}:" + ",".join(t.id for t in tasks)  # agent: name or spec
    if spec.defense != "none":
        key += f":{spec.defense}:{spec.defense_options}:{spec.defense_actions}"
    digest = hashlib.sha256(key.encode())
    for f in files:
        digest.update(f.read_bytes())
    return digest.hexdigest()[:12]


def unit_of(task: Task) -> str:
    """The unit a set is sampled by: a WebDecept purchase (`store-popup-7` -> `purchase 7`, the
    same purchase in every scenario), an arena-synth twin pair (`synth-eval-0012-1` ->
    `synth-eval-0012`: a dark task and its clean twin go together), else the task itself."""
    if task.app == "store":
        return "purchase " + task.id.rsplit("-", 1)[-1]
    if task.id.startswith("synth-"):
        return task.id.rsplit("-", 1)[0]
    return task.id


def sample_units(tasks: list[Task], units: int | None, seed: int) -> list[Task]:
    """The tasks of a seeded sample of `units` of the set's units (`unit_of`), in the set's
    order; every task when `units` is None or covers the set. Stratified by condition (a unit's
    first task's `condition_label`): each condition gives a unit before any gives a second, the
    conditions taken in a seeded order. Every method runs the same sample (the seed is the
    stage's), so comparisons between methods stay paired."""
    every = list(dict.fromkeys(unit_of(t) for t in tasks))
    if units is None or units >= len(every):
        return tasks
    first: dict[str, Task] = {}
    for task in tasks:
        first.setdefault(unit_of(task), task)
    strata: dict[str, list[str]] = {}
    for unit in every:
        strata.setdefault(condition_label(first[unit]), []).append(unit)
    rng = random.Random(seed)
    order = list(strata)
    rng.shuffle(order)
    for name in order:
        rng.shuffle(strata[name])
    kept: list[str] = []
    for depth in range(max(len(u) for u in strata.values())):
        kept += [strata[name][depth] for name in order if depth < len(strata[name])]
    chosen = set(kept[:units])
    return [t for t in tasks if unit_of(t) in chosen]


def set_tasks(spec: RunSpec, name: str) -> list[Task]:
    """A built-in set's tasks as `spec` runs them (its seeded sample, `RunSpec.sample`)."""
    return sample_units(load_tasks(name).tasks, spec.sample.get(name), spec.seed)


def run_set(
    spec: RunSpec,
    name: str,
    progress=None,
    tasks: list[Task] | None = None,
    folder: Path | None = None,
) -> SetRun:
    """One built-in set (or `tasks` under that name), journaled (resumes) under `folder`
    (default: `run_dir(spec)`); the episodes' records in task order."""
    tasks = set_tasks(spec, name) if tasks is None else tasks
    journal = (folder or run_dir(spec)) / f"{name}-{fingerprint(tasks, spec)}.jsonl"
    ran = []
    start = time.perf_counter()
    extra = {"make_defense": spec.make_defense} if spec.make_defense else {}
    records = run_tasks(
        tasks,
        functools.partial(make_web_agent, spec.agent, spec.seed),
        journal_path=journal,
        screenshots=spec.screenshots,
        step_timeout_s=spec.step_timeout_s,
        pool=pool_of(spec.workers, spec.parallel),
        progress=lambda r: (ran.append(r), progress and progress(r)),
        defense_actions=spec.defense_actions,
        tapes=spec.tapes,
        **extra,
    )
    timing_file = journal.with_suffix(".timing.json")
    timing = read_json(timing_file) if timing_file.is_file() else {"ran": 0, "seconds": 0.0}
    if ran:  # the episodes run now add to those of interrupted earlier runs
        timing = {
            "ran": timing["ran"] + len(ran),
            "seconds": round(timing["seconds"] + time.perf_counter() - start, 1),
        }
        write_json(timing_file, timing)
    where = journal.resolve()
    shown = where.relative_to(paths.ROOT) if where.is_relative_to(paths.ROOT) else where
    return SetRun(name, tasks, records, timing["seconds"], timing["ran"], str(shown))


def feasible_run(webdecept: SetRun) -> SetRun:
    """WebDecept without the scenarios whose success requires the deception (225 episodes of
    the 315; 5 of 7 scenarios of a sample)."""
    keep = [not INFEASIBLE_PATTERNS & set(t.patterns) for t in webdecept.tasks]
    tasks = [t for t, k in zip(webdecept.tasks, keep, strict=True) if k]
    records = [r for r, k in zip(webdecept.records, keep, strict=True) if k]
    return SetRun(FEASIBLE, tasks, records, 0.0, 0)


def run_sets(spec: RunSpec, sets: list[str], where: str, progress=None) -> MethodRuns:
    """`spec` on every set of `sets` (`where`: the params key, for errors), WebDecept's feasible
    subset scored from its episodes."""
    unknown = [s for s in sets if s not in EXPECTED_SIZES or s == FEASIBLE]
    if unknown:
        raise InputError(f"{where}: unknown set {unknown[0]!r}")
    result = MethodRuns(agent_name(spec.agent), spec.defense)
    for name in sets:
        result.runs[name] = run_set(spec, name, progress)
    if "webdecept" in result.runs:
        result.runs[FEASIBLE] = feasible_run(result.runs["webdecept"])
    return result


def write_run_index(stage: str, runs: dict[str, dict[str, SetRun]]) -> Path:
    """`data/arena/runs/<stage>.json`: per method and set, the journal the stage's tables were
    computed from and its episode count. It is the stage's declared data output (dvc.yaml): a
    clean clone lacks it, so `dvc repro` runs the stage there instead of keeping the committed
    tables; the journal names carry the fingerprints of everything that decides an episode."""
    index = {
        method: {
            name: {"journal": r.journal, "episodes": len(r.records)} for name, r in sets.items()
        }
        for method, sets in runs.items()
    }
    path = paths.data_dir() / "arena" / "runs" / f"{stage}.json"
    write_json(path, index)
    return path


def condition_label(task: Task) -> str:
    """`app/p1+w` (for reports only)."""
    return f"{task.app or 'site'}/{'+'.join(task.patterns) or 'none'}"
