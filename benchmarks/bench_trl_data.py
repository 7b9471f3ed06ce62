"""What encoding the trainers' images fast saves (`models.trl_data.trl_dataset`): the evaluator's
warm-up rows (as `build_models` builds them) and Stage 1's GRPO rows (as `stage1_grpo` builds
them) turned into trl's `datasets.Dataset` by `Dataset.from_list` and by `trl_dataset`, timed, and
compared row by row (every column, every image's pixels).

    .venv/bin/python benchmarks/bench_trl_data.py

Prints one JSON line per row set: rows, distinct images, seconds of each, and whether they hold
the same rows. Reads data/ like the stages; writes nothing.
"""

from __future__ import annotations

import json
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _same(old, new) -> bool:
    import numpy as np

    if old.features != new.features or list(old.features) != list(new.features):
        return False
    for a, b in zip(old, new, strict=True):
        if {k: v for k, v in a.items() if k != "images"} != {
            k: v for k, v in b.items() if k != "images"
        }:
            return False
        for x, y in zip(a["images"], b["images"], strict=True):
            if (x.mode, x.size) != (y.mode, y.size) or not np.array_equal(x, y):
                return False
    return True


def main() -> None:
    from datasets import Dataset

    from darkguard import paths
    from darkguard.config import load_config, view
    from darkguard.defenses.dude.evaluator import evaluator_aids
    from darkguard.defenses.dude.inputs import ObservationAids
    from darkguard.io import read_jsonl
    from darkguard.models.backends import load_backend
    from darkguard.models.registry import resolve_spec
    from darkguard.models.trl_data import trl_dataset
    from darkguard.notebook import quiet_libraries
    from darkguard.ruc.validate import records_by_id
    from darkguard.stages import stage1_grpo
    from darkguard.stages.build_models import warmup_rows
    from darkguard.training.dude.stage1 import grpo_rows

    quiet_libraries()
    cfg = load_config()
    data = paths.resolve(cfg.data.out_dir)
    records = records_by_id(data)
    train = read_jsonl(data / "clicks" / "train.jsonl")
    build = cfg.for_profile("tiny").build_models
    aids = ObservationAids(**build.aids.model_dump())
    stage1 = view(cfg, stage1_grpo.PARAMS)
    spec = resolve_spec(None, "evaluator", stage1)
    row_sets = {
        "warm-up rows (build_models)": lambda: warmup_rows(
            train, records, data, build.max_pixels, build.warmup, aids
        ),
        "GRPO rows (stage1_grpo)": lambda: grpo_rows(
            train, records, data, load_backend(spec).max_pixels, evaluator_aids(spec)
        ),
    }
    for name, make in row_sets.items():
        rows = make()
        start = time.perf_counter()
        old = Dataset.from_list(rows)
        from_list = time.perf_counter() - start
        start = time.perf_counter()
        new = trl_dataset(rows)
        fast = time.perf_counter() - start
        print(
            json.dumps(
                {
                    "rows": name,
                    "n": len(rows),
                    "distinct_images": len({id(i) for r in rows for i in r["images"]}),
                    "from_list_s": round(from_list, 1),
                    "trl_dataset_s": round(fast, 1),
                    "same_rows": _same(old, new),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
