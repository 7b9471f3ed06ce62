"""Choosing the evaluator's inputs for pages unlike its training, on the training families only:
leave one training style family out. RUC-synth is built again into `--work` with `--train`
families for training and `--heldout` (a training family of params.yaml, never the real held-out
one) as the unseen family; the tiny evaluator is then built and warmed up exactly as the
`build_models` stage does (`build_evaluators`), once per variant and warm-up seed, and judges the
valid clicks of both groups.

    .venv/bin/python benchmarks/bench_ruc_lofo.py --work /tmp/lofo \\
        --variant 'base={}' --variant 'match={"aids": {"task_match": true}}' --seed 42 --seed 43

A variant is NAME=JSON: overrides of `build_models.aids` and `build_models.warmup`. `--mix-rate R`
builds the benchmark with `data.families.mix_rate` R (default: the params'; training pages that mix
the training families attribute by attribute; the valid pages stay the same, so runs on builds with
different rates are paired click by click). Prints one JSON line per variant and seed: seconds, and
per page group the pass rate, Fatal Error Rate, benign acceptance, null-click accuracy and the
confusion counts; writes each click's predicted label to `WORK/predicted-NAME-SEED.jsonl`
(`benchmarks/paired_clicks.py` compares two such files). Single runs move by several clicks with
the seed alone (the tokenizer's corpus or the seed change the initial weights), so a choice rests
on the sum over seeds.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    import yaml

    from darkguard import paths
    from darkguard.config import load_config
    from darkguard.io import read_jsonl, write_jsonl
    from darkguard.reports.build_models import judged_groups, null_accuracy
    from darkguard.stages import build_ruc
    from darkguard.stages.build_models import build_evaluators

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", type=Path, required=True, help="folder for the benchmark build")
    parser.add_argument("--train", nargs="+", default=["plain", "soft"])
    parser.add_argument("--heldout", nargs="+", default=["dense"])
    parser.add_argument("--variant", action="append", required=True, help="NAME=JSON")
    parser.add_argument("--seed", type=int, action="append", help="warm-up seeds (default 42)")
    parser.add_argument("--mix-rate", type=float, help="data.families.mix_rate (default: params')")
    args = parser.parse_args()
    real = load_config()
    if set(args.heldout) & set(real.data.families.heldout):
        parser.error("the params' held-out family is for reporting; leave out a training family")
    raw = yaml.safe_load(paths.PARAMS_FILE.read_text(encoding="utf-8"))
    raw["data"]["families"].update(train=args.train, heldout=args.heldout)
    if args.mix_rate is not None:
        raw["data"]["families"]["mix_rate"] = args.mix_rate
    raw["data"]["out_dir"] = str(args.work.resolve() / "ruc")
    args.work.mkdir(parents=True, exist_ok=True)
    (args.work / "params.yaml").write_text(yaml.safe_dump(raw), encoding="utf-8")
    cfg = load_config(args.work / "params.yaml")
    data_dir = args.work / "ruc"
    if not (data_dir / "clicks" / "heldout_valid.jsonl").is_file():
        build_ruc.run(cfg)
    build = cfg.build_models
    largest = list(build.evaluators)[-1]
    for spec in args.variant:
        name, _, text = spec.partition("=")
        over = json.loads(text or "{}")
        for seed in args.seed or [42]:
            warm = {**over.get("warmup", {}), "seed": seed}
            params = build.model_copy(
                update={
                    "aids": build.aids.model_copy(update=over.get("aids", {})),
                    "warmup": build.warmup.model_copy(update=warm),
                    "evaluators": {largest: build.evaluators[largest]},
                }
            )
            start = time.perf_counter()
            built = build_evaluators(params, data_dir, args.work / f"models-{name}-{seed}")
            for b in built:
                row = {"variant": name, "seed": seed, "seconds": round(time.perf_counter() - start)}
                for pages, metrics, matrix in judged_groups(b):
                    row[pages] = {
                        **{k: metrics[k] for k in ("pass_rate", "c4_fatal_error_rate", "c1_rate")},
                        "null_accuracy": null_accuracy(matrix),
                        "confusion": matrix,
                    }
                print(json.dumps(row), flush=True)
                predicted = []
                groups = (("valid", b.valid_predicted), ("heldout_valid", b.heldout_predicted))
                for group, predictions in groups:
                    clicks = read_jsonl(data_dir / "clicks" / f"{group}.jsonl")
                    predicted += [
                        {"group": group, "id": c["click_id"], "label": c["label"], "predicted": y}
                        for c, y in zip(clicks, predictions, strict=True)
                    ]
                write_jsonl(args.work / f"predicted-{name}-{seed}.jsonl", predicted)


if __name__ == "__main__":
    main()
