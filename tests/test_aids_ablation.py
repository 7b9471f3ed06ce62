"""Observation-aid ablation: settings, a warmed-up copy per setting for a tiny evaluator, the same
weights for a checkpoint without a card."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from darkguard.defenses.dude.inputs import ObservationAids
from darkguard.io import InputError, write_jsonl
from darkguard.models.card import read_card
from darkguard.models.spec import ModelSpec
from darkguard.stages.ablations.aids import (
    aid_settings,
    aids_ablation,
    aids_label,
    copies_to_train,
    copy_dir,
)
from tests.test_warmup import fixture_clicks, warmup


def test_aid_settings_apply_overrides_to_the_models_own() -> None:
    own = ObservationAids(zoom_size=200)
    settings = aid_settings(own, [{"zoom": True}, {"zoom": True, "ocr": True}])
    assert settings == [
        own,
        ObservationAids(zoom=True, zoom_size=200),
        ObservationAids(zoom=True, ocr=True, zoom_size=200),
    ]
    assert [aids_label(a) for a in settings] == ["none (paper inputs)", "zoom", "zoom + OCR"]
    with pytest.raises(InputError, match=r"observation_aids\[1\]: unknown key\(s\) \['blur'\]"):
        aid_settings(own, [{"zoom": True}, {"blur": True}])
    with pytest.raises(InputError, match=r"observation_aids\[0\]: \{'zoom': False\} repeats"):
        aid_settings(own, [{"zoom": False}])


def _with_click_files(release) -> None:
    clicks, _ = fixture_clicks(release)
    (release / "clicks").mkdir(exist_ok=True)
    write_jsonl(release / "clicks" / "train.jsonl", clicks)
    write_jsonl(release / "clicks" / "valid.jsonl", clicks[:6])


@pytest.mark.slow
def test_a_tiny_evaluator_is_warmed_up_again_per_setting(release, tmp_path, monkeypatch) -> None:
    from darkguard.models.tiny.architecture import TinySize
    from darkguard.models.tiny.build import build_and_warm_up
    from darkguard.stages.build_models import tokenizer_corpus_for, warmup_rows

    _with_click_files(release)
    clicks, records = fixture_clicks(release)
    warm = warmup(steps=2, batch_size=4)
    card = {
        "role": "evaluator",
        "aids": asdict(ObservationAids()),
        "max_pixels": 128 * 128,
        "vocab_size": 600,
        "warmup": warm.model_dump(),
        "size": asdict(TinySize()),
    }
    rows = warmup_rows(clicks, records, release, 128 * 128, warm, ObservationAids())
    corpus = tokenizer_corpus_for(release)
    base_dir = tmp_path / "evaluator"
    build_and_warm_up(base_dir, card, corpus, card["size"], 600, rows, warm)
    spec = ModelSpec("evaluator", path=str(base_dir), batch_size=8, max_new_tokens=16)

    out = aids_ablation(spec, [{"zoom": True}], release, tmp_path / "aids")
    assert [(r["aids"], r["as built"], r["retrained"], r["clicks"]) for r in out] == [
        ("none (paper inputs)", True, False, 6),
        ("zoom", False, True, 6),
    ]
    copy = tmp_path / "aids" / "zoom"
    assert read_card(copy) == {**card, "aids": asdict(ObservationAids(zoom=True))}
    assert all(0.0 <= r["pass_rate"] <= 1.0 for r in out)
    weights = (copy / "model.safetensors").stat().st_mtime_ns
    assert copies_to_train(spec, [{"zoom": True}]) == [ObservationAids(zoom=True)]
    assert copy_dir(tmp_path / "aids", ObservationAids(zoom=True)) == copy
    # a copy its job just warmed up is read as it is
    assert aids_ablation(spec, [{"zoom": True}], release, tmp_path / "aids", trained=[]) == out
    later = (copy / "model.safetensors").stat().st_mtime_ns
    assert later != weights  # warmed up again here: nothing said it was trained
    again = aids_ablation(
        spec, [{"zoom": True}], release, tmp_path / "aids", trained=[ObservationAids(zoom=True)]
    )
    assert again == out and (copy / "model.safetensors").stat().st_mtime_ns == later
    weights = later
    monkeypatch.setenv("DARKGUARD_REUSE_TRAINED", "1")
    assert aids_ablation(spec, [{"zoom": True}], release, tmp_path / "aids") == out
    assert (copy / "model.safetensors").stat().st_mtime_ns == weights  # reused, not retrained


def test_a_checkpoint_without_a_card_gets_the_aids_at_inference(
    release, tiny_model, tmp_path
) -> None:
    _with_click_files(release)
    spec = ModelSpec("hub-like", path=str(tiny_model), batch_size=8, max_new_tokens=8)
    out = aids_ablation(spec, [{"zoom": True}], release, tmp_path / "aids")
    assert [(r["aids"], r["retrained"]) for r in out] == [
        ("none (paper inputs)", False),
        ("zoom", False),
    ]
    assert not (tmp_path / "aids").exists()  # nothing trained
    assert copies_to_train(spec, [{"zoom": True}]) == []
