"""Tables are written as CSV and Markdown; an empty cell is blank in the CSV and a dash in the
Markdown, with every other cell as pandas writes it."""

from __future__ import annotations

import pandas as pd

from darkguard.reports.tables import MISSING, markdown, save_table


def test_an_empty_cell_is_a_dash_in_markdown_and_blank_in_csv(tmp_path) -> None:
    df = pd.DataFrame({"rate": [87.5, float("nan")], "test": ["McNemar", None], "n": [32, 24]})
    path = save_table(df, "t", "A caption", tmp_path)
    text = path.read_text()
    assert text.startswith("**A caption**\n\n")
    assert "nan" not in text and text.count(MISSING) == 2
    assert (tmp_path / "t.csv").read_text().splitlines() == [
        "rate,test,n",
        "87.5,McNemar,32",
        ",,24",
    ]


def test_only_empty_cells_change_and_widths_are_kept() -> None:
    df = pd.DataFrame({"method": ["nanny", "Veer"], "p": [float("nan"), 0.125]})
    plain, dashed = df.to_markdown(index=False), markdown(df)
    assert "nanny" in dashed and "nan " not in dashed.replace("nanny", "")
    assert [len(line) for line in plain.splitlines()] == [len(line) for line in dashed.splitlines()]
    assert dashed.replace(f"  {MISSING}", "nan") == plain
