"""Seed spread of the tiny DUDE trainings and of the guard: the evaluator's warm-up, Stage 1,
Stage 2's loop, the reward variants of Table 5 and the confidence-gated guard run, repeated with
other training seeds on the same built benchmark, so that each table's differences can be read
against the run-to-run spread (issue: "no seed was ever repeated").

    .venv/bin/python benchmarks/bench_seed_spread.py [--seed 1 --seed 2] [--out DIR]

What a seed changes: `base.seed` of the trainings (the warm-up's sampling, guidance and recolour
draws, GRPO's rollouts and batches, Stage 2's validation sample); what it keeps: the built
benchmark (`data/ruc`, built with the pipeline's seed; run `dvc repro build_ruc` first), the guard
suite and the valid suite of the threshold sweep (the pipeline's seed), the offline agent (code).
Each seed runs in a data folder of its own under `--out` (`DARKGUARD_DATA`), with `data/ruc`
linked in and the OCR cache shared; the pipeline's own outputs are never touched. A seed's steps
are journaled (`<out>/seed<S>/<step>.json`): a killed run resumes at the first missing step.

Seed 42 is the pipeline's: its figures are read from the committed metrics of this commit
(`reports/metrics/{stage1,guard,ablations}.json`, the warm-up's from `reports/tables/models/
warmup.csv`) unless `--seed 42` is given. The summary (`<out>/summary.json`, and with `--write`
`benchmarks/results/seed_spread.json`, which the notebooks read) gives per figure each seed's
value, the mean, the sample standard deviation and the range (max - min).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parents[1]
PIPELINE_SEED = 42
STEPS = ("warmup", "stage1", "stage2", "guard", "rewards", "stagewise")
JUDGED = ("pass_rate", "c4_fatal_error_rate", "c1_rate")
RESULTS = ROOT / "benchmarks" / "results" / "seed_spread.json"


def _pct(x: float) -> float:
    return round(100 * x, 2)


def judged(metrics: dict) -> dict:
    """Pass rate, Fatal Error Rate and benign acceptance (1 - C1) of a judged click set, in %."""
    return {
        "pass": _pct(metrics["pass_rate"]),
        "FER": _pct(metrics["c4_fatal_error_rate"]),
        "benign_accepted": _pct(1 - metrics["c1_rate"]),
    }


def step_warmup(cfg) -> dict:
    from darkguard import paths
    from darkguard.stages.build_models import build_evaluators

    built = build_evaluators(
        cfg.build_models, paths.resolve(cfg.data.out_dir), paths.data_dir() / "models"
    )
    (b,) = [b for b in built if b.name == "evaluator-large"]
    return {"valid": judged(b.valid_metrics), "heldout_valid": judged(b.heldout_metrics)}


def step_stage1(cfg) -> dict:
    from darkguard.stages import stage1_grpo

    result = stage1_grpo.run(cfg, reuse=False)
    return {
        "valid": judged(result.after.metrics),
        "heldout_valid": judged(result.heldout_after.metrics),
        "failure_pool": len(result.pools.failure),
        "success_pool": len(result.pools.success),
    }


def step_stage2(cfg) -> dict:
    """Algorithm 1 as the `stage2_summarize` stage runs it (its sweeps aside)."""
    from darkguard import paths
    from darkguard.defenses.dude.evaluator import tuned_spec
    from darkguard.io import atomic_write_text
    from darkguard.models.registry import resolve_spec
    from darkguard.ruc.validate import records_by_id
    from darkguard.stages.stage1_grpo import stage_dir
    from darkguard.stages.stage2_summarize import experience_dir, make_miner, read_pools

    data_dir = paths.resolve(cfg.data.out_dir)
    failure, success = read_pools(stage_dir())
    spec = tuned_spec(resolve_spec(None, "evaluator", cfg), stage_dir() / "adapter")
    miner = make_miner(cfg, spec, data_dir, records_by_id(data_dir))
    state = miner.loop(failure, success, cfg.stage2.loop)
    atomic_write_text(experience_dir() / "experience.txt", state.experience + "\n")
    return {
        "experience_words": len(state.experience.split()),  # not in the summary: seed 42's
        "valid_pass_before": state.log[0]["valid_pass_rate"],
        "valid_pass_after": state.log[-1]["valid_pass_rate"],
    }


def step_guard(cfg) -> dict:
    """The guard stage's confidence-gated run (threshold tuned on the valid suite), the oracle
    runs aside: the suite and the valid suite drawn with the pipeline's seed."""
    from darkguard.reports.guard_transfer import transfer_metrics
    from darkguard.stages import guard_eval

    fixed = cfg.override({"base.seed": PIPELINE_SEED, "guard_eval.oracle.accuracies": []})
    result = guard_eval.run(fixed)
    out: dict = {
        "threshold": {k: v["threshold"] for k, v in result.thresholds.items()},
    }
    runs = {r.evaluator: r for r in result.runs if not r.oracle}
    for name, run in runs.items():
        out["all" + ("" if name is None else "_gated")] = {
            k: run.metrics[k] for k in ("SR", "DFR", "NFR")
        }
    for group, rows in transfer_metrics(result).items():
        for row in rows:
            key = f"{group}{'' if row['evaluator'] is None else '_gated'}"
            out[key] = {k: row[k] for k in ("SR", "DFR", "NFR")}
    return out


def step_rewards(cfg) -> dict:
    """Table 5: every reward variant with overrides trained from this seed's evaluator (the
    variant without overrides is this seed's Stage 1, read from its step)."""
    from darkguard.jobs import run_jobs
    from darkguard.stages.ablations import reward_jobs

    settings = cfg.ablations
    rows = run_jobs(reward_jobs(cfg, settings.reward_variants), settings.workers)
    return {
        row["variant"]: {"pass": _pct(row["pass_rate"]), "FER": _pct(row["fatal_error_rate"])}
        for row in rows
    }


def step_stagewise(cfg) -> dict:
    """Table 4's gates without experience, by the paper's rule (a click executes when judged 1):
    the seed's warm-up evaluator ("vanilla evaluator") and its Stage-1 evaluator ("Stage 1
    only"), the `ablations.agent` on the guard suite (the pipeline's seed)."""
    from darkguard import paths
    from darkguard.defenses.dude.evaluator import tuned_spec
    from darkguard.models.registry import resolve_spec
    from darkguard.stages.guard_eval import Gate, guard_runs, suite_of
    from darkguard.stages.stage1_grpo import stage_dir

    data_dir = paths.resolve(cfg.data.out_dir)
    suite = suite_of(cfg.guard_eval, data_dir, PIPELINE_SEED)[0]
    base = resolve_spec(None, "evaluator", cfg)
    gates = [
        Gate("vanilla evaluator", base),
        Gate("Stage 1 only", tuned_spec(base, stage_dir() / "adapter")),
    ]
    agent = resolve_spec(cfg.ablations.agent, "agent", cfg)
    guard = cfg.guard_eval
    runs = guard_runs(
        [agent],
        gates,
        data_dir,
        suite,
        paths.data_dir() / "stagewise",
        guard.t_max,
        batch=guard.batch_tasks,
    )
    return {
        (run.evaluator or "agent alone"): {k: run.metrics[k] for k in ("SR", "DFR", "NFR")}
        for run in runs
    }


def run_seed(seed: int, out: Path) -> None:
    """Every step of one seed, in this process, in the seed's data folder (`DARKGUARD_DATA`)."""
    from darkguard.config import load_config

    cfg = load_config().override({"base.seed": seed})
    folder = out / f"seed{seed}"
    for step in STEPS:
        done = folder / f"{step}.json"
        if done.is_file():
            continue
        start = time.perf_counter()
        figures = globals()[f"step_{step}"](cfg)
        figures["seconds"] = round(time.perf_counter() - start, 1)
        tmp = done.with_suffix(".tmp")
        tmp.write_text(json.dumps(figures, indent=1, sort_keys=True) + "\n")
        tmp.replace(done)
        print(json.dumps({"seed": seed, "step": step, **figures}), flush=True)


def prepare(seed: int, out: Path) -> dict[str, str]:
    """The seed's data folder, with the built benchmark linked in; its environment."""
    data = out / f"seed{seed}" / "data"
    data.mkdir(parents=True, exist_ok=True)
    link = data / "ruc"
    if not link.exists():
        source = ROOT / "data" / "ruc"
        if not (source / "clicks" / "train.jsonl").is_file():
            sys.exit(f"{source}: no built benchmark (run `dvc repro build_ruc` first)")
        link.symlink_to(source)
    return {
        **os.environ,
        "DARKGUARD_DATA": str(data),
        "DARKGUARD_CACHE": str(ROOT / "data" / "cache"),
        "DARKGUARD_REUSE_TRAINED": "0",
        "PYTHONHASHSEED": "0",
    }


def committed() -> dict:
    """Seed 42's figures from this commit's committed metrics (the pipeline's own run)."""
    import csv

    metrics = ROOT / "reports" / "metrics"
    stage1 = json.loads((metrics / "stage1.json").read_text())
    guard = json.loads((metrics / "guard.json").read_text())
    ablations = json.loads((metrics / "ablations.json").read_text())
    with open(ROOT / "reports" / "tables" / "models" / "warmup.csv") as f:
        warm = [r for r in csv.DictReader(f) if r["Evaluator"].startswith("evaluator-large")]
    figures: dict = {
        "warmup": {},
        "stage1": {},
        "stage2": {},
        "guard": {},
        "rewards": {},
        "stagewise": {},
    }
    for row in warm:
        key = "heldout_valid" if "held-out" in row["Pages"] else "valid"
        figures["warmup"][key] = judged({k: float(row[k]) for k in JUDGED})
    figures["stage1"] = {
        "valid": judged(stage1["valid_after"]),
        "heldout_valid": judged(stage1["heldout_after"]),
    }
    stage2 = json.loads((metrics / "stage2.json").read_text())
    figures["stage2"] = {
        "valid_pass_before": stage2["valid_pass_rate_before"],
        "valid_pass_after": stage2["valid_pass_rate_after"],
    }
    g = figures["guard"]
    g["threshold"] = {k: v["threshold"] for k, v in guard["thresholds"].items()}
    for run in guard["runs"]:
        if not run["oracle"]:
            g["all" + ("" if run["evaluator"] is None else "_gated")] = {
                k: run[k] for k in ("SR", "DFR", "NFR")
            }
    for group, rows in guard["transfer"].items():
        for row in rows:
            key = f"{group}{'' if row['evaluator'] is None else '_gated'}"
            g[key] = {k: row[k] for k in ("SR", "DFR", "NFR")}
    for row in ablations["reward"]:
        if row["variant"] != "full":
            figures["rewards"][row["variant"]] = {
                "pass": row["pass rate (%)"],
                "FER": row["Fatal Error Rate (%)"],
            }
    for row in ablations["stagewise"]:
        if row["setting"] in ("vanilla evaluator", "Stage 1 only"):
            key = row["setting"]
        elif row["setting"].startswith("agent alone"):
            key = "agent alone"
        else:
            continue
        figures["stagewise"][key] = {k: row[k] for k in ("SR", "DFR")}
    return figures


def flatten(tree: dict, prefix: str = "") -> dict[str, float]:
    out: dict[str, float] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out |= flatten(value, name + ".")
        elif isinstance(value, int | float) and key != "seconds":
            out[name] = float(value)
    return out


def summary(per_seed: dict[int, dict]) -> dict:
    """Per figure: each seed's value, mean, sample SD and range."""
    flat = {s: flatten(f) for s, f in per_seed.items()}
    names = sorted(set.intersection(*(set(f) for f in flat.values())))
    figures = {}
    for name in names:
        values = [flat[s][name] for s in sorted(flat)]
        figures[name] = {
            "values": {str(s): flat[s][name] for s in sorted(flat)},
            "mean": round(statistics.fmean(values), 2),
            "sd": round(statistics.stdev(values), 2) if len(values) > 1 else 0.0,
            "range": round(max(values) - min(values), 2),
        }
    return {"seeds": sorted(per_seed), "figures": figures}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, action="append", help="training seeds (1, 2)")
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "seed_spread")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child: one seed
    parser.add_argument("--write", action="store_true", help=f"also write {RESULTS}")
    args = parser.parse_args()
    if args.one is not None:
        run_seed(args.one, args.out)
        return
    seeds = args.seed or [1, 2]
    for seed in seeds:
        env = prepare(seed, args.out)
        subprocess.run(
            [sys.executable, __file__, "--one", str(seed), "--out", str(args.out)],
            env=env,
            check=True,
        )
    per_seed: dict[int, dict] = {}
    if PIPELINE_SEED not in seeds:
        per_seed[PIPELINE_SEED] = committed()
    for seed in seeds:
        folder = args.out / f"seed{seed}"
        per_seed[seed] = {s: json.loads((folder / f"{s}.json").read_text()) for s in STEPS}
    result = summary(per_seed)
    from darkguard.config import load_config

    result["profile"] = load_config().base.profile  # the trainings' profile (params.yaml)
    result["source"] = {
        str(s): "committed metrics" if s == PIPELINE_SEED and s not in seeds else "this run"
        for s in per_seed
    }
    text = json.dumps(result, indent=1, sort_keys=True) + "\n"
    (args.out / "summary.json").write_text(text)
    if args.write:
        RESULTS.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
