"""Can a tiny evaluator read guidance? Warm up one tiny evaluator per guidance rate (same size,
seed, steps and data as the `build_models` stage) and judge the valid-split clicks with:

- no guidance;
- oracle rules: a guidance block built like the warm-up's (1..n rules, one of them true for the
  click), drawn with another seed;
- the same rules with every advised label rotated (1 -> -1 -> 0 -> 1);
- rules of other clicks only (none of them describes the click judged);
- unrelated text of the same length.

    .venv/bin/python benchmarks/bench_guidance.py [--rate 0 --rate 0.5 ...] [--own-rate R ...]
        [--distractor-rate D ...] [--steps N]

Prints one JSON line per rate: training seconds, and per variant the pass rate and the share of
decisions that differ from the no-guidance ones. An evaluator that reads the rules gains with the
oracle rules and loses with the rotated ones; one that only reacts to prompt length moves the
same way under all of them; one that matches rules to its click keeps its no-guidance decisions
under other clicks' rules.
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
    from darkguard.defenses.dude.inputs import ObservationAids
    from darkguard.io import read_jsonl
    from darkguard.models.backends.hf import HFBackend
    from darkguard.models.parsing import parse_judgement, predicted_label
    from darkguard.models.spec import ModelSpec
    from darkguard.models.tiny.architecture import TinySize, build_tiny
    from darkguard.models.tiny.sft import warm_up
    from darkguard.stages.build_models import tokenizer_corpus, warmup_rows
    from darkguard.training.dude.guidance import permute_labels, unrelated_text
    from darkguard.training.dude.labelled import click_conversations
    from darkguard.training.dude.warmup_guidance import guidance_texts

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--evaluator", default="evaluator-large")
    parser.add_argument("--rate", type=float, action="append")
    parser.add_argument(
        "--own-rate", type=float, action="append", help="warm-up guidance_own_rate (params')"
    )
    parser.add_argument(
        "--distractor-rate",
        type=float,
        action="append",
        help="warm-up guidance_distractor_rate (params')",
    )
    parser.add_argument("--steps", type=int)
    parser.add_argument("--clicks", type=int, default=499, help="valid clicks judged")
    args = parser.parse_args()
    cfg = load_config()
    build = cfg.build_models
    seed = cfg.base.seed
    warm = build.warmup  # its seed is base.seed
    if args.steps:
        warm = warm.model_copy(update={"steps": args.steps})
    aids = ObservationAids(**build.aids.model_dump())
    data = paths.resolve(cfg.data.out_dir)
    records = {str(r["id"]): r for r in json.loads((data / "full.json").read_text())}
    train = read_jsonl(data / "clicks" / "train.jsonl")
    valid = read_jsonl(data / "clicks" / "valid.jsonl")[: args.clicks]
    corpus = tokenizer_corpus([records[i] for i in sorted({c["sample_id"] for c in train})])
    oracle = guidance_texts(valid, records, data, 1.0, warm.guidance_rules, seed + 1)
    variants = {
        "none": [None] * len(valid),
        "oracle rules": oracle,
        "rotated labels": [permute_labels(t) for t in oracle],
        "other clicks' rules": guidance_texts(
            valid, records, data, 1.0, warm.guidance_rules, seed + 1, own_rate=0.0
        ),
        "unrelated text": [unrelated_text(len(t.split())) for t in oracle],
    }
    settings = [
        (rate, own, distract)
        for rate in args.rate or [warm.guidance_rate]
        for own in args.own_rate or [warm.guidance_own_rate]
        for distract in args.distractor_rate or [warm.guidance_distractor_rate]
    ]
    for rate, own, distract in settings:
        w = warm.model_copy(
            update={
                "guidance_rate": rate,
                "guidance_own_rate": own,
                "guidance_distractor_rate": distract,
            }
        )
        start = time.perf_counter()
        rows = warmup_rows(train, records, data, build.max_pixels, w, aids)
        with tempfile.TemporaryDirectory() as tmp:
            init = build_tiny(
                Path(tmp) / "init",
                corpus,
                TinySize(**build.evaluators[args.evaluator].model_dump()),
                vocab_size=build.vocab_size,
                max_pixels=build.max_pixels,
                seed=seed,
            )
            log = warm_up(init, Path(tmp) / "warm", rows, w)
            train_s = time.perf_counter() - start
            spec = ModelSpec("bench", path=str(Path(tmp) / "warm"), batch_size=16)
            backend = HFBackend(spec)
            labels = {}
            for name, texts in variants.items():
                convs = click_conversations(data, valid, records, texts, aids, build.max_pixels)
                outs = backend.generate(convs)
                labels[name] = [predicted_label(parse_judgement(t)) for t in outs]
        truth = [c["label"] for c in valid]
        result = {
            name: {
                "pass_rate": round(
                    sum(p == t for p, t in zip(ls, truth, strict=True)) / len(truth), 4
                ),
                "changed": round(
                    sum(a != b for a, b in zip(ls, labels["none"], strict=True)) / len(truth), 4
                ),
            }
            for name, ls in labels.items()
        }
        losses = [e["loss"] for e in log if "loss" in e]
        print(
            json.dumps(
                {
                    "warmup": w.model_dump(),
                    "train_s": round(train_s, 1),
                    "final_loss": round(losses[-1], 4),
                    "variants": result,
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
