"""The ablations driver: reward variants trained from stage1.reward overrides, settings errors."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from darkguard.io import InputError
from darkguard.pipeline import ablations
from darkguard.pipeline.ablations import AblationSettings, reward_ablation

PARAMS = {
    "stage1": {"reward": {"use_omega": True, "use_alpha": True, "confidence_only": False}},
}


class FakePools:
    def __init__(self, fer: float) -> None:
        self.metrics = {
            "pass_rate": 0.5,
            "c4_fatal_error_rate": fer,
            "c1_rate": 0.1,
            "c2_rate": 0.2,
            "c3_rate": 0.3,
            "parse_failure_rate": 0.0,
        }


def test_reward_variants_train_with_their_overrides(monkeypatch, tmp_path) -> None:
    calls = []

    class Result:
        def __init__(self, fer: float) -> None:
            self.after = FakePools(fer)

    def fake_stage1(params, out_dir, pools=True, reuse=None, before=True):
        assert not before  # every variant starts from the same evaluator: not judged again
        calls.append((copy.deepcopy(params["stage1"]["reward"]), Path(out_dir), pools, reuse))
        return Result(0.1 * len(calls))

    monkeypatch.setattr(ablations, "run_stage1", fake_stage1)
    monkeypatch.setattr(ablations, "ablations_dir", lambda: tmp_path / "abl")
    monkeypatch.setattr(ablations, "stage_dir", lambda: tmp_path / "stage1")
    variants = {"full": {}, "w/o omega": {"use_omega": False}}
    rows = reward_ablation(copy.deepcopy(PARAMS), variants)
    assert [r["variant"] for r in rows] == ["full", "w/o omega"]
    assert calls[0] == (PARAMS["stage1"]["reward"], tmp_path / "stage1", False, True)
    assert calls[1][0]["use_omega"] is False and calls[1][1] == tmp_path / "abl/reward/w_o_omega"
    assert calls[1][3] is None  # a variant retrains unless DARKGUARD_REUSE_TRAINED=1
    assert rows[1]["fatal_error_rate"] == pytest.approx(0.2)


def test_reward_variant_with_an_unknown_switch_is_refused() -> None:
    with pytest.raises(InputError, match=r"reward_variants\.bad: unknown \['use_beta'\]"):
        reward_ablation(copy.deepcopy(PARAMS), {"bad": {"use_beta": False}})


def test_ablation_settings() -> None:
    s = AblationSettings.from_params(
        {"agent": {"tiny": "vlm_agent"}, "safety_prompt": " x "}, "tiny"
    )
    assert s.agent == "vlm_agent" and s.safety_prompt == "x"
    with pytest.raises(InputError, match="no agent for profile 'paper'"):
        AblationSettings.from_params({"agent": {"tiny": "a"}}, "paper")
    with pytest.raises(InputError, match=r"unknown key\(s\) \['agents'\]"):
        AblationSettings.from_params({"agent": {"tiny": "a"}, "agents": 1}, "tiny")
