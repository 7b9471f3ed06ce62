"""Warm-up data and a training smoke test on the tiny model."""

from __future__ import annotations

import json

import pytest
import torch
from safetensors.torch import load_file

from darkguard.config import WarmupParams
from darkguard.defenses.dude.inputs import ObservationAids
from darkguard.models.tiny.sft import warm_up
from darkguard.ruc.clicks import generate_clicks
from darkguard.stages.build_models import tokenizer_corpus
from darkguard.training.dude.warmup import balanced, trl_rows


def warmup(**changes) -> WarmupParams:
    """Warm-up settings of the tests (no guidance blocks), with `changes`."""
    values = {
        "steps": 300,
        "batch_size": 8,
        "learning_rate": 5e-4,
        "confidence": [0.8, 0.8],
        "text_nulls": 0,
        "text_null_pick": "random",
        "balance": True,
        "guidance_rate": 0.0,
        "guidance_rules": 3,
        "guidance_own_rate": 1.0,
        "guidance_distractor_rate": 0.0,
        "seed": 42,
    }
    return WarmupParams(**{**values, **changes})


def fixture_clicks(release):
    records = {str(r["id"]): r for r in json.loads((release / "full.json").read_text())}
    clicks, _ = generate_clicks(list(records.values()), 1, 42)
    return clicks, records


def test_balanced_repeats_rarer_labels() -> None:
    clicks = [{"label": 1}] * 4 + [{"label": 0}] * 4 + [{"label": -1, "i": i} for i in range(2)]
    out = balanced(clicks)
    assert [c["label"] for c in out].count(-1) == 4 and len(out) == 12
    assert [c["i"] for c in out if c["label"] == -1] == [0, 1, 0, 1]


def test_trl_rows_format(release) -> None:
    clicks, records = fixture_clicks(release)
    rows = trl_rows(clicks[:3], records, release, 65536, (0.8, 0.8), ObservationAids(zoom=True))
    row = rows[0]
    assert [m["role"] for m in row["prompt"]] == ["system", "user"]
    assert [p["type"] for p in row["prompt"][1]["content"]] == ["image", "image", "text"]
    assert row["completion"][0]["content"][0]["text"] == "<judge>1</judge> <conf>0.80</conf>"
    assert len(row["images"]) == 2
    w, h = row["images"][0].size
    assert w % 32 == 0 and h % 32 == 0 and w * h <= 65536


def test_tokenizer_corpus_is_deterministic(release) -> None:
    records = json.loads((release / "full.json").read_text())
    assert tokenizer_corpus(records) == tokenizer_corpus(list(reversed(records)))


@pytest.mark.slow
def test_warm_up_changes_the_weights(release, tiny_model, tmp_path, capsys) -> None:
    clicks, records = fixture_clicks(release)
    rows = trl_rows(clicks, records, release, 128 * 128, (0.8, 0.8))
    log = warm_up(tiny_model, tmp_path / "warm", rows, warmup(steps=3, batch_size=4))
    assert any("loss" in entry for entry in log)
    assert "'loss'" not in capsys.readouterr().out  # logs stay out of executed notebooks
    before = load_file(tiny_model / "model.safetensors")
    after = load_file(tmp_path / "warm" / "model.safetensors")
    changed = [k for k in before if not torch.equal(before[k], after[k])]
    assert len(changed) > len(before) // 2
    assert (tmp_path / "warm" / "processor_config.json").is_file()


@pytest.mark.slow
def test_build_and_warm_up_then_reuse(release, tmp_path, monkeypatch) -> None:
    from dataclasses import asdict

    from darkguard.models.card import read_card
    from darkguard.models.tiny.architecture import TinySize
    from darkguard.models.tiny.build import build_and_warm_up, reusable

    clicks, records = fixture_clicks(release)
    rows = trl_rows(clicks, records, release, 128 * 128, (0.8, 0.8))
    corpus = tokenizer_corpus(list(records.values()))
    card = {"role": "evaluator", "max_pixels": 128 * 128, "note": 1}
    warm = warmup(steps=2, batch_size=4)
    dims = asdict(TinySize())
    out = tmp_path / "model"
    log = build_and_warm_up(out, card, corpus, dims, 600, rows, warm)
    assert read_card(out) == card and (out / "warmup_log.json").is_file()
    assert not reusable(out, card)  # only with DARKGUARD_REUSE_TRAINED=1
    monkeypatch.setenv("DARKGUARD_REUSE_TRAINED", "1")
    assert reusable(out, card) and not reusable(out, {**card, "note": 2})
    assert build_and_warm_up(out, card, corpus, dims, 600, None, warm) == json.loads(
        (out / "warmup_log.json").read_text()
    )
    assert len(log) > 0
    with pytest.raises(ValueError, match="no warm-up rows"):
        build_and_warm_up(tmp_path / "other", card, corpus, dims, 600, None, warm)
