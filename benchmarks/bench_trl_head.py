"""What scoring only the labelled positions in trl's fused LM head saves
(`darkguard.models.trl_head.label_positions_only`): the tiny evaluator's warm-up (its rows built
as `build_models` builds them, from the train clicks), `--steps` steps from the same initial
model, once with trl's own choice on a CPU (every position projected) and once with the compact
path, timed around the training alone.

    .venv/bin/python benchmarks/bench_trl_head.py [--steps 40] [--evaluator evaluator-large]

Prints one JSON line per setting: training seconds and the logged losses; then the largest
difference between the two settings' logged losses. Models go to a temporary folder.
"""

from __future__ import annotations

import argparse
import contextlib
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
    from darkguard.models.tiny import sft
    from darkguard.models.tiny.build import TinySize, build_tiny
    from darkguard.ruc.validate import records_by_id
    from darkguard.stages.build_models import tokenizer_corpus_for, warmup_rows

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--evaluator", default="evaluator-large")
    args = parser.parse_args()
    params = load_config().for_profile("tiny").build_models
    data = paths.resolve(load_config().data.out_dir)
    aids = ObservationAids(**params.aids.model_dump())
    train = read_jsonl(data / "clicks" / "train.jsonl")
    rows = warmup_rows(train, records_by_id(data), data, params.max_pixels, params.warmup, aids)
    warm = params.warmup.model_copy(update={"steps": args.steps})
    dims = TinySize(**params.evaluators[args.evaluator].model_dump())
    losses = {}
    # trl's own choice first, then the compact path: sft.warm_up always asks for the compact
    # path, so the first run turns the request into a no-op
    settings = {"every position (trl on CPU)": True, "labelled positions only": False}
    for name, keep_trl in settings.items():
        with tempfile.TemporaryDirectory() as tmp:
            init = build_tiny(
                Path(tmp) / "init",
                tokenizer_corpus_for(data),
                dims,
                vocab_size=params.vocab_size,
                max_pixels=params.max_pixels,
                seed=warm.seed,
            )
            patch = _trl_choice() if keep_trl else contextlib.nullcontext()
            start = time.perf_counter()
            with patch:
                log = sft.warm_up(init, Path(tmp) / "out", rows, warm)
            seconds = time.perf_counter() - start
        losses[name] = [entry["loss"] for entry in log if "loss" in entry]
        print(json.dumps({"setting": name, "train_s": round(seconds, 1), "loss": losses[name]}))
    a, b = losses.values()
    print(json.dumps({"max_loss_difference": max(abs(x - y) for x, y in zip(a, b, strict=True))}))


@contextlib.contextmanager
def _trl_choice():
    """`label_positions_only` made a no-op: trl decides as it would on its own."""
    from darkguard.models.tiny import sft

    own = sft.label_positions_only
    sft.label_positions_only = contextlib.nullcontext
    try:
        yield
    finally:
        sft.label_positions_only = own


if __name__ == "__main__":
    main()
