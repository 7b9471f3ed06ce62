"""The `arena_synth` stage (notebook 08): arena-synth generated, the base agent measured on it.

1. Generate arena-synth's two disjoint splits (`darkguard.envs.arena.synth`): `dev` (develop and
   train on it) and `eval` (other seeds, paraphrase banks, brands and layouts; reported only).
2. Measure the offline agent's element scorer (shipped weights, trained on `dev` by `darkguard
   arena train-scorer`) on careful users' demonstrations of both splits' clean twins: how often
   it ranks the clicked control first, and how often the completion model reads the page right.
3. Run the base agent with no defense on `eval` and on the hand-written `held_out` sites
   (journaled under `data/arena_synth/runs/`, so that an interrupted run resumes); the reports
   put them beside `arena_eval`'s TrickyArena / WebDecept rows with the sets the agent was
   developed on marked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from darkguard import paths
from darkguard.browser import off_event_loop
from darkguard.config import Config
from darkguard.envs.arena.synth import Manifest, generate
from darkguard.envs.arena.tasks import load_tasks
from darkguard.io import read_json, write_json
from darkguard.stages.arena_eval import no_defense_spec
from darkguard.stages.arena_runs import SetRun, agent_name, run_set, write_run_index

# The params.yaml keys the stage reads (dvc.yaml lists them as its `params`).
PARAMS = ("base.profile", "base.seed", "arena_synth", "arena_eval", "parallel")
SPLITS = ("dev", "eval")


@dataclass
class ScorerCheck:
    """The shipped scorer on one split's clean demonstrations."""

    split: str
    pages: int  # demonstrated clicks
    top1: float  # share ranked first
    done_pages: int
    done_accuracy: float  # completion model: finished vs unfinished pages


@dataclass
class ArenaSynthResult:
    agent: str
    manifests: dict[str, Manifest] = field(default_factory=dict)
    truth: dict[str, dict[str, dict]] = field(default_factory=dict)  # split -> id -> record
    scorer: list[ScorerCheck] = field(default_factory=list)
    scorer_meta: dict = field(default_factory=dict)
    runs: dict[str, SetRun] = field(default_factory=dict)


def split_dir(cfg: Config, split: str) -> Path:
    return paths.ROOT / cfg.arena_synth.out_dir / split


def generate_splits(cfg: Config) -> dict[str, Manifest]:
    """Both splits, written under `arena_synth.out_dir` (byte-identical for the same params)."""
    p = cfg.arena_synth
    sizes = {"dev": p.dev_tasks, "eval": p.eval_tasks}
    return {s: generate(s, sizes[s], p.seed, split_dir(cfg, s)) for s in SPLITS}


def check_scorer(cfg: Config, split: str) -> ScorerCheck:
    """The shipped weights on the split's clean demonstrations (cached by the split's files)."""
    from darkguard.agents.web.element_scorer import ScorerWeights
    from darkguard.agents.web.grounding import Grounder
    from darkguard.training.arena_scorer import collect, design, done_accuracy, top1

    folder = split_dir(cfg, split)
    cache = paths.data_dir() / "arena_synth" / f"scorer-check-{split}.json"
    weights = ScorerWeights.load()
    if weights is None:
        raise FileNotFoundError("the element scorer's weights are missing: darkguard arena "
                                "train-scorer writes them")  # fmt: skip
    key = {"manifest": read_json(folder / "manifest.json"), "weights": weights.meta}
    if cache.is_file() and read_json(cache).get("key") == key:
        return ScorerCheck(**read_json(cache)["check"])
    d = design(collect(folder), Grounder())
    check = ScorerCheck(
        split,
        len(d.groups),
        round(top1(weights.weights, d), 4),
        int(d.done.sum()),
        round(done_accuracy(weights.done, d), 4),
    )
    write_json(cache, {"key": key, "check": check.__dict__})
    return check


def run(cfg: Config, progress=None) -> ArenaSynthResult:
    from darkguard.agents.web.element_scorer import ScorerWeights
    from darkguard.training.arena_scorer import read_truth

    p = cfg.arena_synth
    spec = no_defense_spec(cfg)
    result = ArenaSynthResult(agent_name(spec.agent))
    result.manifests = generate_splits(cfg)
    result.truth = {s: read_truth(split_dir(cfg, s)) for s in SPLITS}
    weights = ScorerWeights.load()
    result.scorer_meta = weights.meta if weights is not None else {}
    # the scorer check replays demonstrations in this process: off a notebook's event loop
    result.scorer = [off_event_loop(check_scorer, cfg, s) for s in p.scorer_check]
    journals = paths.data_dir() / "arena_synth" / "runs" / f"{result.agent}-seed{spec.seed}"
    for name in p.sets:
        if name in SPLITS:
            tasks = load_tasks(split_dir(cfg, name)).tasks
            result.runs[f"arena_synth_{name}"] = run_set(
                spec, f"arena_synth_{name}", progress, tasks, journals
            )
        else:
            result.runs[name] = run_set(spec, name, progress, folder=journals)
    write_run_index("arena_synth", {"none": result.runs})
    return result
