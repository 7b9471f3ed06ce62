"""Benchmark Stage 1 on this machine: seconds per GRPO step, total stage time and peak memory.

    .venv/bin/python benchmarks/bench_stage1.py [--steps N]

Runs the stage as `stage1_grpo` does (params.yaml, the profile's evaluator), writing into a
temporary folder instead of data/stage1, and prints one JSON object.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    from darkguard.config import load_config
    from darkguard.stages import stage1_grpo

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, help="override stage1.grpo.<profile>.steps")
    args = parser.parse_args()
    cfg = load_config()
    profile = cfg.base.profile
    if args.steps:
        cfg = cfg.override({f"stage1.grpo.{profile}.steps": args.steps})
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        result = stage1_grpo.run(cfg, Path(tmp))
    total = time.perf_counter() - start
    step_times = [e["step_time"] for e in result.log_history if "step_time" in e]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "profile": profile,
                "evaluator": dataclasses.asdict(result.evaluator)["name"],
                "steps": len(step_times),
                "s_per_grpo_step_mean": round(statistics.mean(step_times), 3),
                "s_per_grpo_step_median": round(statistics.median(step_times), 3),
                "stage_s": round(total, 1),
                "peak_rss_mb": round(peak_mb),
                "valid_before": result.before.metrics,
                "valid_after": result.after.metrics,
                "failure_pool": len(result.pools.failure),
                "success_pool": len(result.pools.success),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
