"""The `veer_eval` stage (notebook 09): every defense beside No-Defense on the arena's sets (Veer
§4.2-4.3, App. D-E: Tables 1-3, 11-17, Figure 3), the base agent, seed, browsers and step
timeout of `arena_eval` (whose No-Defense journals it shares); Table 3/17's further
agent-model configurations (No-Defense and Veer each); the held-out site family, written without
the defenses' rules (generalization); and one Veer intervention traced with screenshots.
Episodes are journaled under `data/arena/<defense>/` (a rerun resumes)."""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field, replace

from PIL import Image

from darkguard import paths, registry
from darkguard.browser import off_event_loop
from darkguard.config import Config
from darkguard.defenses import Browser, Defense, Verdict
from darkguard.defenses.build import DefenseOptions, defense_code, defense_factory
from darkguard.envs.arena.actions import Action
from darkguard.envs.arena.env import ArenaEnv
from darkguard.envs.arena.observation import PageObservation
from darkguard.envs.arena.predicates import selectors_of
from darkguard.envs.arena.synth import generate
from darkguard.envs.arena.tasks import TASKSETS, Task, load_tasks
from darkguard.io import read_json, write_json
from darkguard.loop.arena import Runner, run_episode, serving
from darkguard.stages.arena_runs import (
    MethodRuns,
    RunSpec,
    SetRun,
    agent_name,
    fingerprint,
    make_web_agent,
    run_dir,
    run_set,
    run_sets,
    sample_units,
    tapes_dir,
    write_run_index,
)

# The params.yaml keys the stage reads (dvc.yaml lists them as its `params`).
PARAMS = ("base.profile", "base.seed", "arena_eval", "arena_synth", "veer_eval", "parallel")
HELD_OUT = TASKSETS / "held_out"
SYNTH_EVAL = "arena_synth_eval"
DEFAULT = "default"  # the configuration of arena_eval's agent


@dataclass
class VeerEvalResult:
    agent: str
    reasoner: str
    methods: dict[str, MethodRuns] = field(default_factory=dict)  # method -> runs by set
    # Table 3/17: configuration -> {"none": runs, "veer": runs}; `default` is the main agent
    configurations: dict[str, dict[str, MethodRuns]] = field(default_factory=dict)
    held_out: dict[str, SetRun] = field(default_factory=dict)  # method -> the held-out sites
    synth_eval: dict[str, SetRun] = field(default_factory=dict)  # method -> arena-synth eval
    trace: dict = field(default_factory=dict)  # one Veer intervention, step by step


def reasoner_name(spec: str | dict) -> str:
    return spec if isinstance(spec, str) else f"llm-{spec.get('path', 'model')}"


def defense_options(cfg: Config) -> DefenseOptions:
    """Veer's reasoner; DUDE-S2's Stage-2 experience."""
    experience = cfg.veer_eval.dude_experience
    return DefenseOptions(
        cfg.veer_eval.reasoner,
        {"experience": experience},  # a params path: dude_s2 resolves it (paths.resolve)
    )


def _files_digest(method: str, options: DefenseOptions) -> str:
    """DUDE-S2's evaluator weights, adapter and experience (a rebuilt one starts new journals)."""
    if "dude-s2" not in method.split(registry.STACK):
        return ""
    from darkguard.defenses.dude.built import ADAPTER, MODEL

    digest = hashlib.sha256()
    roots = [paths.resolve(MODEL), paths.resolve(ADAPTER)]
    experience = options.dude.get("experience")
    for root in roots + ([paths.resolve(experience)] if experience else []):
        found = sorted(root.rglob("*")) if root.is_dir() else [root]
        for f in (f for f in found if f.is_file()):
            digest.update(f.name.encode() + f.read_bytes())
    return digest.hexdigest()[:12]


def method_spec(cfg: Config, method: str, agent: str | dict | None = None) -> RunSpec:
    """`method` (a defense or a stack of them, `darkguard.registry`) behind the stage's agent (or
    `agent`)."""
    a, v = cfg.arena_eval, cfg.veer_eval
    options = defense_options(cfg)
    return RunSpec(
        agent if agent is not None else a.agent,
        a.seed,
        a.step_timeout_s,
        a.workers,
        parallel=cfg.parallel,
        defense=method,
        make_defense=defense_factory(method, options) if method != "none" else None,
        defense_code=defense_code(method) if method != "none" else (),  # arena_eval's journals
        defense_options=options.describe(method) + _files_digest(method, options),
        defense_actions=v.defense_actions,
        screenshots=registry.screenshots(method),
        tapes=tapes_dir(a.replay),
        sample=a.sample,
    )


def synth_eval_tasks(cfg: Config) -> list[Task]:
    """arena-synth's `eval` split (generated as the `arena_synth` stage generates it), or the
    seeded sample of its twin pairs that `arena_eval.sample` names."""
    p = cfg.arena_synth
    folder = paths.ROOT / p.out_dir / "eval"
    generate("eval", p.eval_tasks, p.seed, folder)
    sampled = cfg.arena_eval.sample.get(SYNTH_EVAL)
    return sample_units(load_tasks(folder).tasks, sampled, cfg.arena_eval.seed)


def run(cfg: Config, progress=None) -> VeerEvalResult:
    v = cfg.veer_eval
    result = VeerEvalResult(agent_name(cfg.arena_eval.agent), reasoner_name(v.reasoner))
    synth = synth_eval_tasks(cfg) if v.arena_synth_eval else []
    for method in v.methods:
        spec = method_spec(cfg, method)
        result.methods[method] = run_sets(spec, v.sets, "veer_eval.sets", progress)
        if HELD_OUT.is_dir():
            result.held_out[method] = run_set(spec, "held_out", progress)
        if synth:
            result.synth_eval[method] = run_set(spec, SYNTH_EVAL, progress, synth)
    configurations = {DEFAULT: cfg.arena_eval.agent, **v.configurations}
    for name, agent in configurations.items():
        result.configurations[name] = {}
        for method in ("none", "veer"):
            if name == DEFAULT and method in result.methods:
                runs = result.methods[method]
                kept = {s: r for s, r in runs.runs.items() if s in v.configuration_sets}
                result.configurations[name][method] = replace(runs, runs=kept)
                continue
            spec = method_spec(cfg, method, agent)
            result.configurations[name][method] = run_sets(
                spec, v.configuration_sets, "veer_eval.configuration_sets", progress
            )
    write_run_index("veer_eval", run_index(result))
    if "veer" in result.methods:
        result.trace = off_event_loop(trace_intervention, cfg, result.methods["veer"])
    return result


def run_index(result: VeerEvalResult) -> dict[str, dict[str, SetRun]]:
    """Every run of the stage by method (a configuration's: `method, configuration`) and set."""
    runs: dict[str, dict[str, SetRun]] = {}
    for method, method_runs in result.methods.items():
        runs[method] = dict(method_runs.runs)
        if method in result.held_out:
            runs[method]["held_out"] = result.held_out[method]
        if method in result.synth_eval:
            runs[method][SYNTH_EVAL] = result.synth_eval[method]
    for name, by_method in result.configurations.items():
        for method, method_runs in by_method.items():
            runs[f"{method}, {name}"] = dict(method_runs.runs)
    return runs


# -- one intervention, traced with screenshots ----------------------------------------------------
class _Recording:
    """A defense as it is, plus the screenshots before and after each intervention."""

    def __init__(self, inner: Defense) -> None:
        self.inner, self.name, self.shots = inner, inner.name, []

    def reset(self, goal: str, episode_key: str) -> None:
        self.inner.reset(goal, episode_key)

    def brief(self) -> list[str]:
        return self.inner.brief()

    def prepare(self, obs: PageObservation) -> tuple[PageObservation, str]:
        return self.inner.prepare(obs)

    def review(self, obs: PageObservation, action: Action, browser: Browser) -> Verdict:
        verdict = self.inner.review(obs, action, browser)
        if verdict.kind == "intervened" and verdict.observation is not None:
            self.shots.append((obs.screenshot, verdict.observation.screenshot))
        return verdict


def _chosen(runs: MethodRuns) -> tuple[Task, dict] | None:
    """The first TrickyArena-Single episode whose intervention had the longest trajectory."""
    single = runs.runs.get("trickyarena_single")
    if single is None:
        return None
    best, size = None, 0
    for task, record in zip(single.tasks, single.records, strict=True):
        for step in record["actions"]:
            for trace in step.get("defense", {}).get("trace", []):
                length = len(trace.get("trajectory", []))
                if length > size and record["T"] and not record["D"]:
                    best, size = (task, record), length
    return best


def trace_intervention(cfg: Config, runs: MethodRuns) -> dict:
    """Rerun one intervened episode with screenshots: its objective, trajectory, each verified
    step, and the page before and after (JPEG under the stage folder)."""
    chosen = _chosen(runs)
    if chosen is None:
        return {}
    task, _ = chosen
    spec = method_spec(cfg, "veer")
    folder = run_dir(spec) / f"trace-{fingerprint([task], spec)}"
    index = folder / "trace.json"
    if index.is_file():
        return read_json(index)
    defense = _Recording(spec.make_defense())
    agent = make_web_agent(spec.agent, spec.seed)
    runner = Runner(lambda: agent, screenshots=True, step_timeout_s=spec.step_timeout_s)
    with serving([task]) as origins:
        watch = selectors_of(task.success, task.deception).events
        env = ArenaEnv(next(iter(origins.values()))[0], True, spec.step_timeout_s, watch)
        try:
            record = run_episode(env, agent, task, defense, runner)
        finally:
            env.close()
    folder.mkdir(parents=True, exist_ok=True)
    images = []
    for i, (before, after) in enumerate(defense.shots):
        pair = {}
        for when, png in (("before", before), ("after", after)):
            if png:
                path = folder / f"{i}-{when}.jpg"
                Image.open(io.BytesIO(png)).convert("RGB").save(path, quality=80)
                pair[when] = str(path.relative_to(paths.ROOT))
        images.append(pair)
    trace = {"task": task.id, "goal": task.goal, "record": record, "images": images}
    write_json(index, trace)
    return read_json(index)  # as a rerun reads it (canonical key order): the same printout
