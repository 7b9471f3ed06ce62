"""The `arena_eval` stage (`darkguard arena run`, notebook 08): the base agent with no defense on
the arena's sets (Veer §4.1, App. C-E): TrickyArena-Single (88), -Multi (68) and WebDecept (315);
WebDecept's feasible subset (225) is scored from the WebDecept episodes. Episodes are journaled
under `data/arena/` (a rerun resumes); a gallery reruns one episode per condition with
screenshots."""

from __future__ import annotations

import functools
import hashlib
import io
import time
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from darkguard import paths
from darkguard.browser import off_event_loop
from darkguard.config import Config
from darkguard.envs.arena.env import ArenaEnv, StepTimeout
from darkguard.envs.arena.server import Served
from darkguard.envs.arena.tasks import EXPECTED_SIZES, INFEASIBLE_PATTERNS, Task, load_tasks
from darkguard.io import InputError, read_json, write_json
from darkguard.loop.arena import WebAgent, run_tasks
from darkguard.metrics.arena import ArenaScores, score

# The params.yaml keys the stage reads (dvc.yaml lists them as its `params`).
PARAMS = ("base.profile", "base.seed", "arena_eval")
FEASIBLE = "webdecept_feasible"


def make_web_agent(spec: str | dict, seed: int) -> WebAgent:
    """A base web agent: `offline` (a generic agent with no LLM), or a model spec of an
    OpenAI-compatible endpoint (`{backend: openai, path, base_url, api_key_env, ...}`): `llm`."""
    if spec == "offline":
        from darkguard.agents.web import OfflineWebAgent

        return OfflineWebAgent(seed=seed)
    if isinstance(spec, dict):
        from darkguard.agents.llm_web import LLMWebAgent
        from darkguard.models.backends import load_backend
        from darkguard.models.spec import ModelSpec

        return LLMWebAgent(load_backend(ModelSpec.from_dict("arena_agent", spec)))
    raise InputError(f"unknown web agent {spec!r}; known: offline, or a model spec (a mapping)")


def agent_name(spec: str | dict) -> str:
    return spec if isinstance(spec, str) else f"llm-{spec.get('path', 'model')}"


@dataclass
class SetRun:
    name: str
    tasks: list[Task]
    records: list[dict]
    seconds: float  # wall time of the runs that made the journal
    ran: int  # episodes those runs ran (all of them, unless the journal was moved)

    def scores(self) -> ArenaScores:
        return score(self.records, EXPECTED_SIZES.get(self.name))


@dataclass
class ArenaEvalResult:
    agent: str
    runs: dict[str, SetRun] = field(default_factory=dict)
    gallery: list[dict] = field(default_factory=list)  # {label, goal, image, deceived}


def stage_dir(cfg: Config) -> Path:
    p = cfg.arena_eval
    return paths.data_dir() / "arena" / "no_defense" / f"{agent_name(p.agent)}-seed{p.seed}"


CODE = ("agents/web", "envs/arena", "loop/arena.py")  # what decides an episode's course


def _fingerprint(tasks: list[Task], agent: str | dict, seed: int) -> str:
    """The task files, the agent and the code that runs an episode: a change starts a new
    journal (the stage's data folder persists across runs, so an old journal must not answer)."""
    package = Path(__file__).resolve().parents[1]
    files = sorted({Path(t.file) for t in tasks})
    for part in CODE:
        root = package / part
        found = root.rglob("*") if root.is_dir() else [root]
        files += sorted(f for f in found if f.suffix in {".py", ".js", ".html", ".yaml"})
    digest = hashlib.sha256(f"{agent}:{seed}".encode())  # agent: its name or its spec
    for f in files:
        digest.update(f.read_bytes())
    return digest.hexdigest()[:12]


def run_set(cfg: Config, name: str, progress=None) -> SetRun:
    """One built-in set, journaled (resumes); the episodes' records in task order."""
    p = cfg.arena_eval
    tasks = load_tasks(name).tasks
    journal = stage_dir(cfg) / f"{name}-{_fingerprint(tasks, p.agent, p.seed)}.jsonl"
    ran = []
    start = time.perf_counter()
    records = run_tasks(
        tasks,
        functools.partial(make_web_agent, p.agent, p.seed),
        journal_path=journal,
        step_timeout_s=p.step_timeout_s,
        workers=p.workers,
        progress=lambda r: (ran.append(r), progress and progress(r)),
    )
    timing_file = journal.with_suffix(".timing.json")
    timing = read_json(timing_file) if timing_file.is_file() else {"ran": 0, "seconds": 0.0}
    if ran:  # the episodes run now add to those of interrupted earlier runs
        timing = {
            "ran": timing["ran"] + len(ran),
            "seconds": round(timing["seconds"] + time.perf_counter() - start, 1),
        }
        write_json(timing_file, timing)
    return SetRun(name, tasks, records, timing["seconds"], timing["ran"])


def feasible_run(webdecept: SetRun) -> SetRun:
    """WebDecept without the scenarios whose success requires the deception (225 episodes)."""
    keep = [not INFEASIBLE_PATTERNS & set(t.patterns) for t in webdecept.tasks]
    tasks = [t for t, k in zip(webdecept.tasks, keep, strict=True) if k]
    records = [r for r, k in zip(webdecept.records, keep, strict=True) if k]
    return SetRun(FEASIBLE, tasks, records, 0.0, 0)


def condition_label(task: Task) -> str:
    """`app/p1+w` (for reports only)."""
    return f"{task.app or 'site'}/{'+'.join(task.patterns) or 'none'}"


def _gallery_episode(env: ArenaEnv, agent: WebAgent, task: Task) -> dict:
    """One episode with screenshots; the view kept is the one before the action that deceived
    the agent, else the first with a dialog, else the first (reports only: this reads D)."""
    agent.reset(task.goal, task.id)
    shots: list[tuple[bytes, bool, bool]] = []  # screenshot, has a dialog, next action deceived
    try:
        obs = env.reset(task)
        while not obs.done:
            action = agent.act(obs)
            before = env.outcome().deceived
            shot = obs.screenshot
            obs = env.step(action)
            shots.append((shot, any(e.in_dialog for e in obs.elements), False))
            if not before and env.outcome().deceived:
                shots[-1] = (shot, shots[-1][1], True)
                break
    except StepTimeout:
        pass
    if not shots:
        return {}
    chosen = next((s for s in shots if s[2]), None) or next((s for s in shots if s[1]), shots[0])
    return {"image": chosen[0], "deceived": chosen[2]}


def run_gallery(cfg: Config, runs: dict[str, SetRun]) -> list[dict]:
    """One task per condition of TrickyArena-Single and WebDecept, as the agent saw it; cached
    as JPEG under the stage folder."""
    p = cfg.arena_eval
    firsts: dict[str, Task] = {}
    for name in ("trickyarena_single", "webdecept"):
        for task in runs[name].tasks if name in runs else []:
            firsts.setdefault(condition_label(task), task)
    fingerprint = _fingerprint(list(firsts.values()), p.agent, p.seed)
    folder = stage_dir(cfg) / f"gallery-{fingerprint}"
    index_file = folder / "index.json"
    cached = read_json(index_file) if index_file.is_file() else []
    if [c["id"] for c in cached] == [t.id for t in firsts.values()]:
        return cached
    folder.mkdir(parents=True, exist_ok=True)
    agent = make_web_agent(p.agent, p.seed)
    entries = []
    with Served() as served:
        env = ArenaEnv(served.origin, screenshots=True, step_timeout_s=p.step_timeout_s)
        try:
            for label, task in firsts.items():
                seen = _gallery_episode(env, agent, task)
                if not seen:
                    continue
                image = folder / f"{task.id}.jpg"
                Image.open(io.BytesIO(seen["image"])).convert("RGB").save(image, quality=80)
                entries.append(
                    {
                        "id": task.id,
                        "label": label,
                        "goal": task.goal,
                        "image": str(image.relative_to(paths.ROOT)),
                        "deceived": seen["deceived"],
                    }
                )
        finally:
            env.close()
    write_json(index_file, entries)
    return entries


def run(cfg: Config, progress=None) -> ArenaEvalResult:
    p = cfg.arena_eval
    unknown = [s for s in p.sets if s not in EXPECTED_SIZES or s == FEASIBLE]
    if unknown:
        raise InputError(f"arena_eval.sets: unknown set {unknown[0]!r}")
    result = ArenaEvalResult(agent_name(p.agent))
    for name in p.sets:
        result.runs[name] = run_set(cfg, name, progress)
    if "webdecept" in result.runs:
        result.runs[FEASIBLE] = feasible_run(result.runs["webdecept"])
    if p.gallery_screenshots:
        result.gallery = off_event_loop(run_gallery, cfg, result.runs)
    return result
