"""The seed-spread verdicts: reading the benchmark's record, the comparisons each stage's metrics
give, and the verdict against the largest seed range of the figures compared."""

from __future__ import annotations

import json

import pytest

from darkguard.io import InputError
from darkguard.reports.seed_spread import (
    EXCEEDS,
    WITHIN,
    Comparison,
    ablation_comparisons,
    against_spread,
    guard_comparisons,
    load_spread,
    models_comparisons,
    spread_table,
    stage1_comparisons,
    summary_line,
    verdict,
)


def _figure(*values: float) -> dict:
    return {
        "values": {str(i): v for i, v in enumerate(values)},
        "mean": sum(values) / len(values),
        "sd": 0.0,
        "range": max(values) - min(values),
    }


def _record(tmp_path, figures: dict, profile: str = "tiny"):
    path = tmp_path / "seed_spread.json"
    path.write_text(json.dumps({"seeds": [1, 2, 42], "profile": profile, "figures": figures}))
    return path


def test_a_missing_record_is_none_and_a_broken_one_names_file_and_field(tmp_path):
    assert load_spread(tmp_path / "none.json") is None
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(InputError, match=r"bad\.json"):
        load_spread(bad)
    path = _record(tmp_path, {"stage1.valid.pass": {"values": {}, "mean": 1, "sd": 0}})
    with pytest.raises(InputError, match=r"figures\.stage1\.valid\.pass: no field 'range'"):
        load_spread(path)


def test_the_verdict_compares_with_the_largest_range_of_the_figures(tmp_path):
    spread = load_spread(
        _record(tmp_path, {"a": _figure(70.0, 72.0, 71.0), "b": _figure(60.0, 65.0, 61.0)})
    )
    table = against_spread(
        [
            Comparison("t", "b - a, small", 4.0, ("a", "b")),  # b's range 5 > 4
            Comparison("t", "b - a, large", -5.5, ("a", "b")),
            Comparison("t", "a alone", 2.5, ("a",)),  # a's range 2 < 2.5
        ],
        spread,
    )
    assert table["seed range"].tolist() == [5.0, 5.0, 2.0]
    assert table["verdict"].tolist() == [WITHIN, EXCEEDS, EXCEEDS]
    assert summary_line(table) == (
        "2 of 3 differences exceed the seed spread: b - a, large; a alone."
    )
    assert verdict(2.0, 2.0) == WITHIN  # equal to the range: not beyond it
    with pytest.raises(InputError, match="no figure 'c'"):
        against_spread([Comparison("t", "c", 1.0, ("c",))], spread)


def test_the_stages_metrics_give_their_differences():
    judged = {"pass_rate": 0.75, "c4_fatal_error_rate": 0.10, "c1_rate": 0.4}
    held = {"pass_rate": 0.60, "c4_fatal_error_rate": 0.30, "c1_rate": 0.6}
    models = models_comparisons(
        {"evaluators": {"evaluator-large": {**judged, "heldout_family": held}}}
    )
    assert [round(c.difference, 2) for c in models] == [-15.0, 20.0]
    assert models[0].figures == ("warmup.valid.pass", "warmup.heldout_valid.pass")
    assert models_comparisons({"evaluators": {}}) == []

    after = {**judged, "pass_rate": 0.80}
    stage1 = stage1_comparisons({"valid_before": judged, "valid_after": after})
    assert [round(c.difference, 2) for c in stage1] == [5.0, 0.0]
    assert stage1[0].figures == ("warmup.valid.pass", "stage1.valid.pass")

    alone = {"agent": "a", "evaluator": None, "oracle": False, "SR": 26.0, "DFR": 4.0}
    gated = {"agent": "a", "evaluator": "e", "oracle": False, "SR": 31.0, "DFR": 1.0}
    oracle = {"agent": "a", "evaluator": "oracle@1.0", "oracle": True, "SR": 60.0, "DFR": 0.0}
    guard = guard_comparisons(
        {"runs": [alone, gated, oracle], "transfer": {"held-out family": [alone, gated]}}
    )
    assert [(c.table, c.difference) for c in guard] == [
        ("guard/gate", 5.0),
        ("guard/gate", -3.0),
        ("guard/transfer", 5.0),
        ("guard/transfer", -3.0),
    ]
    assert guard[2].figures == ("guard.held-out family_gated.SR",)

    rows = ablation_comparisons(
        {
            "stagewise": [
                {"setting": "agent alone (no evaluator)", "SR": 26.0, "DFR": 4.0},
                {"setting": "vanilla evaluator", "SR": 24.0, "DFR": 1.5},
                {"setting": "Stage 1 only", "SR": 25.0, "DFR": 1.5},
            ],
            "reward": [
                {"variant": "full", "pass rate (%)": 73.8, "Fatal Error Rate (%)": 10.5},
                {"variant": "w/o omega", "pass rate (%)": 75.0, "Fatal Error Rate (%)": 10.5},
            ],
        }
    )
    named = {c.comparison: round(c.difference, 2) for c in rows}
    assert named["vanilla evaluator - agent alone: SR"] == -2.0
    assert named["Stage 1 only - vanilla evaluator: SR"] == 1.0
    assert named["w/o omega - full: pass"] == 1.2
    assert rows[-1].figures == ("rewards.w/o omega.FER", "stage1.valid.FER")


def test_a_record_of_another_profile_gives_no_table(tmp_path, monkeypatch):
    spread = load_spread(_record(tmp_path, {"a": _figure(1.0, 2.0)}, profile="tiny"))
    monkeypatch.setenv("DARKGUARD_REPORTS", str(tmp_path / "reports"))
    assert spread_table("guard", "paper", spread) is None
