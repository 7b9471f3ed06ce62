"""Regenerated reports are compared with the committed ones at the precision their computation
guarantees (`darkguard.reports.compare`): last-digit noise passes, any real change does not."""

from __future__ import annotations

import re
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest

from darkguard import paths
from darkguard.reports.compare import compare, difference, same_token, tokens

COMMITTED = [
    "reports/tables/guard/threshold_sweep.md",
    "reports/tables/guard/threshold_sweep.csv",
    "reports/tables/guard/gate.md",
    "reports/metrics/guard.json",
]


def last_digit_moved(text: str, step: int) -> str:
    """Every threshold figure (the evaluator's float32 P(L=1) of one click, written with six
    decimals, five when the sixth is a dropped zero) moved by `step` units of 1e-6, as another
    run or CPU rounds it; Markdown padding left as it falls. (Rates with fewer decimals are
    ratios of counts.)"""

    def move(match: re.Match) -> str:
        places = max(len(match.group(2)), 6)
        value = Decimal(match.group(0)) + step * Decimal("1e-6")
        return f"{max(value, Decimal(0)):.{places}f}"

    return re.sub(r"(-?\d+)\.(\d{5,})", move, text)


@pytest.mark.parametrize("name", COMMITTED)
@pytest.mark.parametrize("step", [-1, 1, 3])
def test_last_bits_of_a_committed_table_pass(name: str, step: int) -> None:
    text = (paths.ROOT / name).read_text()
    moved = last_digit_moved(text, step)
    assert moved != text  # the table has such figures, and they moved
    assert difference(text, moved) == ""


def test_a_real_change_is_named() -> None:
    text = (paths.ROOT / "reports/tables/guard/gate.md").read_text()
    sr = re.search(r"\| *(\d+\.\d{2,4}) *\|", text)  # a rate or an AUC of the table
    assert sr
    changed = text.replace(sr.group(0), sr.group(0).replace(sr.group(1), "99.99"), 1)
    assert "'99.99'" in difference(text, changed)
    assert same_token("0.468491", "0.468490") and same_token("32.49", "32.49")
    assert not same_token("32.49", "32.50")  # one task of 197 is 0.51 points
    assert not same_token("657", "658")  # counts are exact
    assert not same_token("guarded", "last")
    assert difference("| a | 1 |", "| a | 1 | 2 |")  # a row or a column more


def test_layout_that_follows_a_width_is_not_compared() -> None:
    old = "| t |   x |\n|:--|----:|\n| a | 0.468491 |\n"
    new = "| t |  x |\n|:---|---:|\n| a | 0.46849 |\n"
    assert len(tokens(old)) == len(tokens(new))
    assert difference(old, new) == ""


def test_compare_reads_the_working_tree_against_head(tmp_path: Path, monkeypatch) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "ci@example.org")
    git("config", "user.name", "ci")
    table = tmp_path / "reports/tables/t.md"
    table.parent.mkdir(parents=True)
    table.write_text("| threshold | SR |\n|--:|--:|\n| 0.468491 | 34.02 |\n")
    (tmp_path / "reports/tables/gone.md").write_text("x\n")
    git("add", "-A")
    git("commit", "-q", "-m", "tables")
    monkeypatch.chdir(tmp_path)
    table.write_text("| threshold | SR |\n|--:|--:|\n| 0.468490 | 34.02 |\n")
    assert compare(["reports/tables"]) == []
    table.write_text("| threshold | SR |\n|--:|--:|\n| 0.468490 | 34.54 |\n")
    (tmp_path / "reports/tables/gone.md").unlink()
    (tmp_path / "reports/tables/new.md").write_text("y\n")
    problems = compare(["reports/tables"])
    assert len(problems) == 3
    assert any("t.md: after" in p and "'34.02' -> '34.54'" in p for p in problems)
    assert "reports/tables/gone.md: removed" in problems
    assert "reports/tables/new.md: added" in problems
