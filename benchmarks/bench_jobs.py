"""What training side by side saves (`darkguard.jobs`): Table 5's reward variants trained as the
`ablations` stage trains them, `--steps` GRPO steps each, once one after the other in this process
with torch's threads (two on this machine) and once as jobs, `--workers` side by side with one
thread each. Timed around the trainings (each variant also judges the valid clicks).

    .venv/bin/python benchmarks/bench_jobs.py [--steps 12] [--variants 2] [--workers 2]

Prints one JSON line per setting (seconds, the variants' valid pass rates) and writes nothing
outside a temporary data folder (the variants' adapters); reads data/ like the stage.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    import torch

    from darkguard import paths
    from darkguard.config import load_config, view
    from darkguard.jobs import run_jobs
    from darkguard.stages import ablations

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--variants", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    cfg = load_config()
    cfg = cfg.override({f"stage1.grpo.{cfg.base.profile}.steps": args.steps})
    profile = cfg.base.profile
    evaluator = cfg.models.default_evaluator
    model = paths.resolve(cfg.models.entries[evaluator].path)
    # absolute: the data folder moves below, for the variants' adapters only
    cfg = cfg.override(
        {
            "data.out_dir": str(paths.resolve(cfg.data.out_dir)),
            f"models.{profile}.{evaluator}.path": str(model),
        }
    )
    cfg = view(cfg, ablations.PARAMS)
    named = {k: v for k, v in cfg.ablations.reward_variants.items() if v.changes()}
    variants = dict(list(named.items())[: args.variants])
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["DARKGUARD_DATA"] = tmp  # the variants' adapters go here; reports untouched
        settings = {
            f"one after the other, {torch.get_num_threads()} threads": None,
            f"jobs, {args.workers} side by side, 1 thread each": args.workers,
        }
        for name, workers in settings.items():
            start = time.perf_counter()
            if workers is None:
                rows = [ablations.reward_variant(cfg, k, v) for k, v in variants.items()]
            else:
                rows = run_jobs(ablations.reward_jobs(cfg, variants), workers)
            seconds = time.perf_counter() - start
            print(
                json.dumps(
                    {
                        "setting": name,
                        "variants": list(variants),
                        "steps": args.steps,
                        "seconds": round(seconds, 1),
                        "valid_pass_rate": [round(r["pass_rate"], 4) for r in rows],
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
