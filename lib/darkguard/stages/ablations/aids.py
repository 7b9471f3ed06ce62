"""Observation-aid ablation of the `ablations` stage: the profile's evaluator with each setting of
`ablations.observation_aids` (a zoomed crop around the click, OCR text under it) judging the
valid clicks, beside the evaluator as built.

A tiny evaluator only reads an input it was trained on, so under the `tiny` profile each setting
is a copy of the evaluator warmed up exactly like it (same card: size, tokenizer corpus, warm-up,
seed) but with those aids; a real checkpoint (`paper`) is given the aids at inference."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from pathlib import Path
from typing import Any

from darkguard import paths
from darkguard.config import WarmupParams
from darkguard.defenses.dude.evaluator import Evaluator, evaluator_aids
from darkguard.defenses.dude.inputs import ObservationAids
from darkguard.io import InputError, read_jsonl
from darkguard.models.backends import load_backend
from darkguard.models.card import read_card
from darkguard.models.spec import ModelSpec
from darkguard.models.tiny.build import build_and_warm_up, reusable
from darkguard.ruc.validate import records_by_id
from darkguard.stages.build_models import tokenizer_corpus_for, warmup_rows
from darkguard.training.dude.labelled import judge_clicks


def aids_label(aids: ObservationAids) -> str:
    """`zoom + OCR`, `zoom`, `OCR` or `none (paper inputs)`."""
    parts = [name for name, on in (("zoom", aids.zoom), ("OCR", aids.ocr)) if on]
    return " + ".join(parts) or "none (paper inputs)"


def aid_settings(base: ObservationAids, overrides: list[dict[str, Any]]) -> list[ObservationAids]:
    """The evaluator's own aids, then each override applied to them (a repeat is refused)."""
    known = {f.name for f in dataclasses.fields(ObservationAids)}
    settings = [base]
    for i, override in enumerate(overrides):
        unknown = sorted(set(override) - known)
        if unknown:
            raise InputError(
                f"params.yaml: ablations.observation_aids[{i}]: unknown key(s) {unknown}"
            )
        aids = dataclasses.replace(base, **override)
        if aids in settings:
            raise InputError(
                f"params.yaml: ablations.observation_aids[{i}]: {override} repeats a setting"
            )
        settings.append(aids)
    return settings


def trained_copy(base: ModelSpec, aids: ObservationAids, data_dir: Path, out_dir: Path) -> Path:
    """The tiny evaluator in `base.path` rebuilt and warmed up (its card's settings) with `aids`."""
    card = read_card(base.path)
    if "warmup" not in card:
        raise InputError(f"{base.path}: no tiny-model card with warm-up settings (darkguard.json)")
    card = {**card, "aids": dataclasses.asdict(aids)}
    warm = WarmupParams(**card["warmup"])
    rows = None
    if not reusable(out_dir, card):
        records = records_by_id(data_dir)
        train = read_jsonl(data_dir / "clicks" / "train.jsonl")
        rows = warmup_rows(train, records, data_dir, card["max_pixels"], warm, aids)
    corpus = tokenizer_corpus_for(data_dir)
    build_and_warm_up(out_dir, card, corpus, card["size"], card["vocab_size"], rows, warm)
    return out_dir


def copies_to_train(base: ModelSpec, overrides: list[dict[str, Any]]) -> list[ObservationAids]:
    """The aid settings that need a warmed-up copy of `base` (`trained_copy`): every setting
    besides the evaluator's own for a tiny evaluator (a card with warm-up settings), none for a
    checkpoint."""
    if base.backend != "hf" or "warmup" not in read_card(base.path):
        return []
    own = evaluator_aids(base)
    return [aids for aids in aid_settings(own, overrides) if aids != own]


def copy_dir(out_root: Path, aids: ObservationAids) -> Path:
    """Where the warmed-up copy with `aids` lives under `out_root`."""
    return Path(out_root) / paths.slug(aids_label(aids))


def aids_ablation(
    base: ModelSpec,
    overrides: list[dict[str, Any]],
    data_dir: Path,
    out_root: Path,
    trained: Collection[ObservationAids] = (),
) -> list[dict]:
    """One row per aid setting: the valid clicks' pass rate, FER and C1-C3 of the evaluator
    with those aids (a warmed-up copy per setting for a tiny model, else the same weights).
    Copies of the settings in `trained` were just warmed up (by `trained_copy`, e.g. as jobs
    beside other trainings) and are read as they are; the others are warmed up here."""
    to_train = copies_to_train(base, overrides)
    records = records_by_id(data_dir)
    valid = read_jsonl(data_dir / "clicks" / "valid.jsonl")
    own = evaluator_aids(base)
    rows = []
    for aids in aid_settings(own, overrides):
        spec = base
        if aids in to_train:
            path = copy_dir(out_root, aids)
            if aids not in trained:
                trained_copy(base, aids, data_dir, path)
            spec = dataclasses.replace(
                base, name=f"{base.name} ({aids_label(aids)})", path=str(path)
            )
        run = judge_clicks(Evaluator(load_backend(spec), aids), data_dir, valid, records)
        rows.append(
            {
                "aids": aids_label(aids),
                "as built": aids == own,
                "retrained": spec is not base,  # a warmed-up copy with these aids
                "clicks": len(valid),
                "pass_rate": run.metrics["pass_rate"],
                "fatal_error_rate": run.metrics["c4_fatal_error_rate"],
                **{k: run.metrics[k] for k in ("c1_rate", "c2_rate", "c3_rate")},
            }
        )
    return rows
