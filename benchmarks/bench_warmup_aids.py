"""Which observation aids the tiny evaluator needs: warm up one tiny evaluator per aid setting
(same size, seed, steps and data as the `build_models` stage) and judge the valid-split clicks.

    .venv/bin/python benchmarks/bench_warmup_aids.py [--evaluator evaluator-small]
        [--setting '{"zoom": false}' ...] [--steps N] [--learning-rate LR]

Prints one JSON line per setting: training seconds, final loss, the valid metrics and the
confusion counts (true label -> predicted label).
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
    from darkguard.defenses.dude.evaluator import Evaluator
    from darkguard.defenses.dude.inputs import ObservationAids
    from darkguard.defenses.dude.warmup import balanced, trl_rows
    from darkguard.io import read_jsonl
    from darkguard.metrics.judging import confusion
    from darkguard.models.backends.hf import HFBackend
    from darkguard.models.spec import ModelSpec
    from darkguard.models.tiny.architecture import TinySize, build_tiny
    from darkguard.models.tiny.sft import warm_up
    from darkguard.stages.build_models import tokenizer_corpus

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--evaluator", default="evaluator-small")
    parser.add_argument("--setting", action="append", help="aids as JSON (repeatable)")
    parser.add_argument("--steps", type=int)
    parser.add_argument("--learning-rate", type=float)
    args = parser.parse_args()
    cfg = load_config()
    build = cfg.build_models
    seed = cfg.base.seed
    warm = build.warmup  # its seed is base.seed
    if args.steps:
        warm = warm.model_copy(update={"steps": args.steps})
    if args.learning_rate:
        warm = warm.model_copy(update={"learning_rate": args.learning_rate})
    settings = [json.loads(s) for s in args.setting or ['{"zoom": true}', '{"zoom": false}']]
    data = paths.resolve(cfg.data.out_dir)
    records = {str(r["id"]): r for r in json.loads((data / "full.json").read_text())}
    train = read_jsonl(data / "clicks" / "train.jsonl")
    valid = read_jsonl(data / "clicks" / "valid.jsonl")
    corpus = tokenizer_corpus([records[i] for i in sorted({c["sample_id"] for c in train})])
    for setting in settings:
        aids = ObservationAids(**setting)
        start = time.perf_counter()
        rows = trl_rows(train, records, data, build.max_pixels, warm.confidence, aids)
        if warm.balance:
            row_of = {id(c): r for c, r in zip(train, rows, strict=True)}
            rows = [row_of[id(c)] for c in balanced(train)]
        with tempfile.TemporaryDirectory() as tmp:
            init = build_tiny(
                Path(tmp) / "init",
                corpus,
                TinySize(**build.evaluators[args.evaluator].model_dump()),
                vocab_size=build.vocab_size,
                max_pixels=build.max_pixels,
                seed=seed,
            )
            log = warm_up(init, Path(tmp) / "warm", rows, warm)
            train_s = time.perf_counter() - start
            spec = ModelSpec("bench", path=str(Path(tmp) / "warm"), batch_size=16)
            run = Evaluator(HFBackend(spec), aids).judge_clicks(data, valid, records)
        losses = [e["loss"] for e in log if "loss" in e]
        print(
            json.dumps(
                {
                    "evaluator": args.evaluator,
                    "aids": setting,
                    "steps": warm.steps,
                    "learning_rate": warm.learning_rate,
                    "train_s": round(train_s),
                    "final_loss": round(losses[-1], 4),
                    **run.metrics,
                    "confusion": confusion([c["label"] for c in run.clicks], run.outputs),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
