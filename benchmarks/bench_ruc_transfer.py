"""Transfer of the tiny evaluator to a style family it never saw: build and warm it up exactly as
the `build_models` stage does (`build_evaluators`), once per colour-augmentation rate, and judge
the valid clicks of the training style families and of the held-out family
(`data/ruc/clicks/valid.jsonl`, `heldout_valid.jsonl`; run `dvc repro build_ruc` first).

    .venv/bin/python benchmarks/bench_ruc_transfer.py [--recolour 0 --recolour 0.5]

Prints one JSON line per rate: warm-up seconds, and per page group the pass rate, Fatal Error
Rate, benign acceptance (1 - C1), null-click accuracy and the confusion counts. Models go to a
temporary folder, never over data/models. The choice between rates is made on the training
families' numbers; the held-out family's are reported, never chosen on.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    from darkguard import paths
    from darkguard.config import load_config
    from darkguard.reports.build_models import judged_groups, null_accuracy
    from darkguard.stages.build_models import build_evaluators

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--recolour", type=float, action="append", help="recolour rates")
    args = parser.parse_args()
    cfg = load_config()
    build = cfg.build_models
    data = paths.resolve(cfg.data.out_dir)
    for rate in args.recolour or [0.0, build.warmup.recolour_rate]:
        params = build.model_copy(
            update={"warmup": build.warmup.model_copy(update={"recolour_rate": rate})}
        )
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            built = build_evaluators(params, data, Path(tmp))
        for b in built:
            runtime = [e["train_runtime"] for e in b.log_history if "train_runtime" in e]
            row = {
                "evaluator": b.name,
                "recolour_rate": rate,
                "warmup_seconds": round(runtime[0], 1),
                "seconds": round(time.perf_counter() - start, 1),
            }
            for pages, metrics, matrix in judged_groups(b):
                row[pages] = {
                    **{k: metrics[k] for k in ("pass_rate", "c4_fatal_error_rate", "c1_rate")},
                    "benign_accepted": round(1 - metrics["c1_rate"], 4),
                    "null_accuracy": null_accuracy(matrix),
                    "confusion": matrix,
                }
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
