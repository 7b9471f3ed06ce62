"""Build a tiny model from scratch and warm it up, or keep one already built with the same card."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from pathlib import Path

from darkguard.io import read_json, write_json
from darkguard.models.card import read_card, write_card
from darkguard.models.tiny.architecture import TinySize, build_tiny
from darkguard.models.tiny.sft import warm_up
from darkguard.reuse import reuse_trained


def reusable(out_dir: Path, card: dict) -> bool:
    """With `DARKGUARD_REUSE_TRAINED=1`: a model in `out_dir` was trained with exactly `card`."""
    return (
        reuse_trained()
        and (Path(out_dir) / "warmup_log.json").is_file()
        and read_card(out_dir) == card
    )


def build_and_warm_up(
    out_dir: Path,
    card: dict,
    corpus: list[str],
    dims: dict[str, int],
    vocab_size: int,
    rows: list[dict] | None,
    warm,
) -> list[dict]:
    """Build a tiny model, warm it up on `rows` into `out_dir` with its card and log, and return
    the log; a reusable model (`reusable`) is kept and its log returned."""
    log_file = Path(out_dir) / "warmup_log.json"
    if reusable(out_dir, card):
        return read_json(log_file)
    if rows is None:
        raise ValueError(f"{out_dir}: no warm-up rows to train on")
    with tempfile.TemporaryDirectory() as tmp:
        init = build_tiny(
            Path(tmp),
            corpus,
            TinySize(**dims),
            vocab_size=vocab_size,
            max_pixels=card["max_pixels"],
            seed=warm.seed,
        )
        if Path(out_dir).exists():
            shutil.rmtree(out_dir)
        log = warm_up(init, Path(out_dir), rows, warm)
    write_json(log_file, log)
    write_card(out_dir, card)
    return log


def card_corpus_hash(corpus: list[str]) -> str:
    """The tokenizer corpus's hash, recorded in every tiny model's card."""
    return hashlib.sha256("\n".join(corpus).encode()).hexdigest()
