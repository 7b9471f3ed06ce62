"""What the tiny evaluator needs to see, and what it costs: build and warm up the evaluator exactly
as the `build_models` stage does (`build_evaluators`: its size, seed, data, text nulls, guidance),
once per aid setting and warm-up length, and judge the valid-split clicks.

    .venv/bin/python benchmarks/bench_warmup_aids.py [--evaluator evaluator-large]
        [--setting '{"zoom": true, "ocr": true}' ...] [--steps 300 --steps 600]
        [--size '{"hidden": 192, "layers": 4, ...}']   # another size under that name

Prints one JSON line per (setting, steps): warm-up seconds, seconds in all (OCR of the clicks
included; the OCR cache in data/cache/click_text makes later settings cheaper), the valid pass
rate, Fatal Error Rate, null-click accuracy and the confusion counts: the frontier of accuracy
against CPU minutes. Models go to a temporary folder, never over data/models.
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
    from darkguard.reports.build_models import null_accuracy
    from darkguard.stages.build_models import build_evaluators

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--evaluator", default="evaluator-large")
    parser.add_argument("--setting", action="append", help="aids as JSON (repeatable)")
    parser.add_argument("--steps", type=int, action="append", help="warm-up steps (repeatable)")
    parser.add_argument("--size", help="the evaluator's size as JSON (default: params.yaml's)")
    args = parser.parse_args()
    cfg = load_config()
    build = cfg.build_models
    data = paths.resolve(cfg.data.out_dir)
    settings = [json.loads(s) for s in args.setting or ['{"zoom": true, "ocr": true}']]
    if args.size:
        from darkguard.config.sections import TinySizeParams

        sizes = {args.evaluator: TinySizeParams(**json.loads(args.size))}
    else:
        sizes = {args.evaluator: build.evaluators[args.evaluator]}
    for setting in settings:
        for steps in args.steps or [build.warmup.steps]:
            params = build.model_copy(
                update={
                    "evaluators": sizes,
                    "aids": build.aids.model_copy(update=setting),
                    "warmup": build.warmup.model_copy(update={"steps": steps}),
                }
            )
            start = time.perf_counter()
            with tempfile.TemporaryDirectory() as tmp:
                (built,) = build_evaluators(params, data, Path(tmp))
            runtime = [e["train_runtime"] for e in built.log_history if "train_runtime" in e]
            row = {
                "evaluator": args.evaluator,
                "size": sizes[args.evaluator].model_dump(),
                "aids": setting,
                "steps": steps,
                "warmup_seconds": round(runtime[0], 1),
                "seconds": round(time.perf_counter() - start, 1),
                **{k: built.valid_metrics[k] for k in ("pass_rate", "c4_fatal_error_rate")},
                "null_accuracy": null_accuracy(built.valid_confusion),
                "confusion": built.valid_confusion,
            }
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
