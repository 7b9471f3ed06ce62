"""Benchmark Stage 1 under `accelerate launch`: the profile's GRPO run in one process and in
`--processes` processes (DDP, gloo on this CPU machine), with the same batch per step (the
per-device batch divided by the process count), side by side: reward per step, wall time.

    .venv/bin/python benchmarks/bench_stage1_launch.py [--steps N] [--processes 2]

Trains from the built evaluator on the built train clicks (run the build_ruc and build_models
stages first) into a temporary folder, and writes `benchmarks/results/stage1_launch.md`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    from darkguard import paths
    from darkguard.config import load_config
    from darkguard.defenses.dude.evaluator import evaluator_aids
    from darkguard.models.backends import load_backend
    from darkguard.models.registry import resolve_spec
    from darkguard.stages.stage1_grpo import _clicks
    from darkguard.training.dude.launch import GRPOJob, train
    from darkguard.training.dude.stage1 import grpo_rows

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, help="override stage1.grpo.<profile>.steps")
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    cfg = load_config()
    settings = cfg.stage1
    spec = resolve_spec(None, "evaluator", cfg)
    data_dir = paths.resolve(cfg.data.out_dir)
    clicks, records = _clicks(data_dir, "train")
    rows = grpo_rows(clicks, records, data_dir, load_backend(spec).max_pixels, evaluator_aids(spec))
    grpo = settings.grpo
    if args.steps:
        grpo = grpo.model_copy(update={"steps": args.steps})
    if grpo.per_device_batch_size % args.processes:
        raise SystemExit(f"per_device_batch_size {grpo.per_device_batch_size} is not divisible")
    curves, rows_out = {}, []
    for n in (1, args.processes):
        params = grpo.model_copy(update={"per_device_batch_size": grpo.per_device_batch_size // n})
        launch = settings.launch.model_copy(update={"num_processes": n})
        with tempfile.TemporaryDirectory() as tmp:
            job = GRPOJob(
                spec.path,
                rows,
                Path(tmp) / "adapter",
                Path(tmp) / "ckpt",
                params,
                settings.reward,
                cfg.base.seed,
                spec.device,
            )
            start = time.perf_counter()
            log = train(job, launch, Path(tmp) / "launch")
            seconds = time.perf_counter() - start
            saved = sorted(p.name for p in (Path(tmp) / "adapter").iterdir())
        steps = [e for e in log if "reward" in e]
        curves[n] = [e["reward"] for e in steps]
        row = {
            "processes": n,
            "per_device_batch": params.per_device_batch_size,
            "batch_per_step": params.per_device_batch_size * n * params.gradient_accumulation,
            "steps": len(steps),
            "distinct_steps": len({e["step"] for e in steps}),
            "seconds": round(seconds, 1),
            "reward_first10": round(statistics.mean(curves[n][:10]), 3),
            "reward_last10": round(statistics.mean(curves[n][-10:]), 3),
            "adapter_files": saved,
        }
        rows_out.append(row)
        print(json.dumps(row), flush=True)
    write_markdown(rows_out, curves, cfg.base.profile, spec.name)


def write_markdown(rows: list[dict], curves: dict[int, list[float]], profile, model) -> None:
    one, many = sorted(curves)
    lines = [
        f"# Stage 1 under accelerate launch ({profile}: {model}, this machine's CPUs, gloo)",
        "",
        "Measured by `benchmarks/bench_stage1_launch.py`: the profile's GRPO settings with the "
        "same batch per step in one process and in several (DDP).",
        "",
        "| processes | batch per device | batch per step | steps logged | distinct steps | "
        "seconds | mean reward, first 10 steps | mean reward, last 10 steps |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['processes']} | {r['per_device_batch']} | {r['batch_per_step']} | "
            f"{r['steps']} | {r['distinct_steps']} | {r['seconds']} | {r['reward_first10']} | "
            f"{r['reward_last10']} |"
        )
    lines += [
        "",
        "The reward curves side by side: the mean reward of each 10 steps (a step's reward is the "
        "mean over its 16 completions; the processes sample different completions, so single "
        "steps differ):",
        "",
        f"| steps | {one} process | {many} processes |",
        "|---|---|---|",
    ]
    for i in range(0, max(len(c) for c in curves.values()), 10):
        a, b = curves[one][i : i + 10], curves[many][i : i + 10]
        a_mean = statistics.mean(a) if a else ""
        b_mean = statistics.mean(b) if b else ""
        lines.append(f"| {i + 1}-{i + 10} | {_num(a_mean)} | {_num(b_mean)} |")
    a_all, b_all = statistics.mean(curves[one]), statistics.mean(curves[many])
    lines.append(f"| all | {_num(a_all)} | {_num(b_all)} |")
    csv = ROOT / "benchmarks" / "results" / "stage1_launch_curves.csv"
    pairs = enumerate(zip(curves[one], curves[many], strict=True), start=1)
    header = f"step,reward_{one}_process,reward_{many}_processes\n"
    csv.write_text(header + "".join(f"{i},{a},{b}\n" for i, (a, b) in pairs))
    out = ROOT / "benchmarks" / "results" / "stage1_launch.md"
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


def _num(value) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


if __name__ == "__main__":
    main()
