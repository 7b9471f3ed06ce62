"""`darkguard evaluate`'s gate: the guard's own by default (its evaluator, Stage-1 adapter,
Stage-2 experience and tuned threshold), a named evaluator bare, each part overridable."""

from __future__ import annotations

import argparse
import json

import pytest

from darkguard.cli import guard_gate
from darkguard.config import load_config
from darkguard.defenses.dude import built
from darkguard.io import InputError
from darkguard.models import registry
from darkguard.models.spec import ModelSpec


def _args(**given) -> argparse.Namespace:
    values = {"evaluator": None, "adapter": None, "experience": None, "threshold": None}
    return argparse.Namespace(**{**values, **given})


@pytest.fixture
def metrics(tmp_path):
    path = tmp_path / "guard.json"
    path.write_text(json.dumps({"thresholds": {"evaluator_large": {"threshold": 0.486131}}}))
    return path


@pytest.fixture(autouse=True)
def models(monkeypatch):
    """Model names resolve without built folders; experience files read as their name."""
    monkeypatch.setattr(
        registry, "resolve_spec", lambda name, role, cfg: ModelSpec(name, path=f"/m/{name}")
    )
    monkeypatch.setattr(built, "read_experience", lambda source: f"text of {source}")


def test_default_is_the_guards_own_gate(metrics) -> None:
    cfg = load_config()
    chosen = guard_gate.choose_gate(_args(adapter="none"), cfg, metrics)
    assert chosen.spec.name == cfg.guard_eval.evaluators[0] == "evaluator_large"
    assert chosen.experience == f"text of {cfg.guard_eval.experience}"
    assert chosen.threshold == 0.486131
    assert "the guard's own evaluator" in chosen.says and "tuned on the valid split" in chosen.says


def test_a_named_evaluator_is_bare_unless_told(metrics, tmp_path) -> None:
    cfg = load_config()
    chosen = guard_gate.choose_gate(_args(evaluator="mine"), cfg, metrics)
    assert (chosen.spec.name, chosen.experience, chosen.threshold) == ("mine", None, None)
    assert "the paper's gate" in chosen.says and "--evaluator" in chosen.says
    told = guard_gate.choose_gate(_args(evaluator="mine", threshold="0.3", experience="e.txt"), cfg)
    assert (told.threshold, told.experience) == (0.3, "text of e.txt")
    plain = guard_gate.choose_gate(_args(threshold="none", experience="none", adapter="none"), cfg)
    assert (plain.threshold, plain.experience) == (None, None)


def test_bad_gate_settings_are_named(metrics, tmp_path) -> None:
    cfg = load_config()
    with pytest.raises(InputError, match="--threshold '2'"):
        guard_gate.choose_gate(_args(threshold="2"), cfg, metrics)
    with pytest.raises(InputError, match="not a LoRA adapter folder"):
        guard_gate.choose_gate(_args(adapter=str(tmp_path)), cfg, metrics)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"thresholds": {}}))
    with pytest.raises(InputError, match=r"thresholds\.evaluator_large\.threshold"):
        guard_gate.choose_gate(_args(adapter="none"), cfg, other)
