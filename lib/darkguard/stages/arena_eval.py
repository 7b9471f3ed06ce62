"""The `arena_eval` stage (`darkguard arena run`, notebook 07): the base agent with no defense on
the arena's sets (Veer §4.1, App. C-E): TrickyArena-Single (88), -Multi (68) and WebDecept (315);
WebDecept's feasible subset (225) is scored from the WebDecept episodes. Episodes are journaled
under `data/arena/` (a rerun resumes); a gallery reruns one episode per condition with
screenshots."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from darkguard import paths
from darkguard.agents import Agent
from darkguard.browser import off_event_loop
from darkguard.config import Config
from darkguard.envs.arena.env import ArenaEnv, StepTimeout
from darkguard.envs.arena.server import Served
from darkguard.envs.arena.tasks import Task
from darkguard.io import read_json, write_json
from darkguard.stages.arena_runs import (
    RunSpec,
    SetRun,
    agent_name,
    condition_label,
    fingerprint,
    make_web_agent,
    run_dir,
    run_sets,
    tapes_dir,
    write_run_index,
)

# The params.yaml keys the stage reads (dvc.yaml lists them as its `params`).
PARAMS = ("base.profile", "base.seed", "arena_eval", "parallel")


@dataclass
class ArenaEvalResult:
    agent: str
    runs: dict[str, SetRun] = field(default_factory=dict)
    gallery: list[dict] = field(default_factory=list)  # {label, goal, image, deceived}


def no_defense_spec(cfg: Config) -> RunSpec:
    """The base agent alone, as `arena_eval` runs it (and `veer_eval` reuses its journals)."""
    p = cfg.arena_eval
    return RunSpec(
        p.agent,
        p.seed,
        p.step_timeout_s,
        p.workers,
        parallel=cfg.parallel,
        tapes=tapes_dir(p.replay),
        sample=p.sample,
    )


def stage_dir(cfg: Config) -> Path:
    return run_dir(no_defense_spec(cfg))


def _gallery_episode(env: ArenaEnv, agent: Agent, task: Task) -> dict:
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
    key = fingerprint(list(firsts.values()), no_defense_spec(cfg))
    folder = stage_dir(cfg) / f"gallery-{key}"
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
    runs = run_sets(no_defense_spec(cfg), p.sets, "arena_eval.sets", progress)
    result = ArenaEvalResult(agent_name(p.agent), runs.runs)
    if p.gallery_screenshots:
        result.gallery = off_event_loop(run_gallery, cfg, result.runs)
    write_run_index("arena_eval", {"none": result.runs})
    return result
