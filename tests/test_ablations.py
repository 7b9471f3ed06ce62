"""The ablations driver: reward variants trained from stage1.reward overrides, settings errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from darkguard.config import RewardOverride, load_config
from darkguard.stages import ablations
from darkguard.stages.ablations import reward_ablation


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

    def fake_stage1(cfg, out_dir, pools=True, reuse=None, before=True):
        assert not before  # every variant starts from the same evaluator: not judged again
        calls.append((cfg.stage1.reward.model_dump(), Path(out_dir), pools, reuse))
        return Result(0.1 * len(calls))

    monkeypatch.setattr(ablations.stage1_grpo, "run", fake_stage1)
    monkeypatch.setattr(ablations, "ablations_dir", lambda: tmp_path / "abl")
    monkeypatch.setattr(ablations, "stage_dir", lambda: tmp_path / "stage1")
    cfg = load_config()
    variants = {"full": RewardOverride(), "w/o omega": RewardOverride(use_omega=False)}
    rows = reward_ablation(cfg, variants)
    assert [r["variant"] for r in rows] == ["full", "w/o omega"]
    assert calls[0] == (cfg.stage1.reward.model_dump(), tmp_path / "stage1", False, True)
    assert calls[1][0]["use_omega"] is False and calls[1][1] == tmp_path / "abl/reward/w_o_omega"
    assert calls[1][3] is None  # a variant retrains unless DARKGUARD_REUSE_TRAINED=1
    assert rows[1]["fatal_error_rate"] == pytest.approx(0.2)
