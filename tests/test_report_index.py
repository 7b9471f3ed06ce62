"""The report index names every generated table and figure, and every name exists."""

from __future__ import annotations

from darkguard import paths
from darkguard.reports.report import NOTEBOOKS, OUTPUTS, expand, index_markdown, missing_outputs


def indexed() -> set[str]:
    return {f for o in OUTPUTS for p in o.files for f in expand(p)}


def test_every_committed_table_and_figure_is_indexed() -> None:
    root = paths.ROOT / "reports"
    generated = {
        p.relative_to(root).as_posix()
        for folder in ("tables", "figures", "metrics", "plots", "experience", "timings")
        for p in (root / folder).rglob("*")
        if p.is_file()
    }
    assert generated - indexed() == set()


def test_every_indexed_output_exists_in_the_committed_reports() -> None:
    assert missing_outputs(paths.ROOT / "reports") == []


def test_index_rows_name_notebooks_that_exist() -> None:
    for stage, notebook in NOTEBOOKS.items():
        assert (paths.NOTEBOOKS / f"{notebook}.ipynb").is_file(), stage
    text = index_markdown()
    assert text.count("\n| `") == len(OUTPUTS)
    assert expand("a/b.{csv,md}") == ["a/b.csv", "a/b.md"] and expand("x.png") == ["x.png"]
