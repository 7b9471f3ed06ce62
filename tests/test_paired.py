"""Paired comparisons and the words reports may use for them (`darkguard.metrics.paired`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from darkguard.metrics.paired import Paired, guard_effect, paired

ROOT = Path(__file__).resolve().parents[1]


def test_paired_counts_the_discordant_tasks() -> None:
    base = {"a": True, "b": True, "c": False, "d": False}
    other = {"a": True, "b": False, "c": True, "d": True}
    assert paired(base, other) == Paired(gained=2, lost=1)
    assert Paired(0, 0).p == 1.0 and Paired(0, 6).p == 0.0312  # 2 x (1/2)^6, 3 digits


def test_paired_refuses_runs_on_different_tasks() -> None:
    with pytest.raises(ValueError, match="different tasks"):
        paired({"a": True}, {"b": True})


@pytest.mark.parametrize(
    ("d_sr", "sr", "d_dfr", "dfr", "verdict"),
    [
        # the release's numbers: SR up, DFR down, neither beyond chance
        (
            4.06,
            Paired(25, 17),
            -1.02,
            Paired(1, 3),
            "the paper's direction (SR up, DFR not up), not significant at 5%",
        ),
        (
            10.0,
            Paired(20, 2),
            0.0,
            Paired(0, 0),
            "the paper's effect (SR up, DFR not up), significant at 5%",
        ),
        (
            -10.0,
            Paired(2, 20),
            0.0,
            Paired(0, 0),
            "against the paper's direction (SR down), significant at 5%",
        ),
        (
            1.0,
            Paired(3, 1),
            5.0,
            Paired(12, 0),
            "against the paper's direction (DFR up), significant at 5%",
        ),
        (
            -1.0,
            Paired(1, 3),
            0.0,
            Paired(0, 0),
            "not the paper's direction (SR not up or DFR up), not significant at 5%",
        ),
        (0.0, Paired(0, 0), 0.0, Paired(0, 0), "no task changed"),
    ],
)
def test_the_verdict_follows_the_tests_not_the_sign(d_sr, sr, d_dfr, dfr, verdict) -> None:
    claim = guard_effect(d_sr, sr, d_dfr, dfr)
    assert claim.endswith(": " + verdict)
    assert f"{sr.gained} gained / {sr.lost} lost" in claim
    assert f"{dfr.lost} avoided / {dfr.gained} added" in claim


def test_readme_states_no_effect_of_its_own() -> None:
    """Effects are stated by the generated headline (reports/tables/report/headline), worded
    from the paired tests; the front door repeats none by hand."""
    text = (ROOT / "README.md").read_text()
    claims = re.findall(
        r"[^.\n]*\b(?:significant(?:ly)?|effect appears|improves?|outperforms?|reduces?)\b[^.\n]*",
        text,
        flags=re.IGNORECASE,
    )
    assert not claims, claims


def test_the_committed_headline_words_each_effect_from_its_tests() -> None:
    """Every 'vs vanilla' cell of the committed headline carries its counts, p-values and a
    verdict at 5%, as `guard_effect` writes them."""
    headline = ROOT / "reports" / "tables" / "report" / "headline.csv"
    import pandas as pd

    cells = [c for c in pd.read_csv(headline)["vs vanilla"].dropna() if c]
    assert cells
    for cell in cells:
        assert re.search(r"gained / \d+ lost, p = [\d.e-]+\)", cell), cell
        assert re.search(r"at 5%$|no task changed$", cell), cell


def test_the_headline_states_both_sides_of_the_transfer(tmp_path) -> None:
    """With a held-out style family, the headline gives the evaluator on its valid clicks and
    each run on the training families' and the held-out family's test tasks, each gated run with
    its verdict."""
    import json

    from darkguard.reports.report import headline_table

    judged = {"pass_rate": 0.7, "c4_fatal_error_rate": 0.1, "c2_rate": 0.05, "c3_rate": 0.05}
    claim = "SR +1.00 pp (2 gained / 1 lost, p = 1), DFR -1.00 pp (1 avoided / 0 added, p = 1): x"
    run = {"agent": "a", "SR": 30.0, "DFR": 2.0, "NFR": 68.0, "tasks": 10}
    gated = {**run, "evaluator": "e", "vs_vanilla": {"claim": claim}}
    side = [{**run, "evaluator": None}, gated]
    files = {
        "stage1.json": {"valid_after": judged, "heldout_after": judged},
        "stage2.json": {"initial_success": 1, "final_success": 2},
        "guard.json": {
            "runs": [{**run, "evaluator": None}, gated],
            "transfer": {"held-out family": side, "training families": side},
        },
    }
    for name, value in files.items():
        (tmp_path / name).write_text(json.dumps(value))
    rows = list(headline_table(tmp_path)["result"])
    assert any("held-out style family's valid" in r for r in rows)
    sides = [r for r in rows if "test tasks of the" in r]
    assert len(sides) == 4 and "training families" in sides[0] and "held-out" in sides[-1]
