"""Saving tables as CSV + Markdown with a caption naming the profile and the paper reference."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from darkguard import paths
from darkguard.io import atomic_write_text

MISSING = "—"  # a cell with no value (a row's own baseline, a figure the paper does not give)
NAN_CELL = re.compile(r"(?<=\|)( +)nan( +)(?=\|)")


def markdown(df: pd.DataFrame) -> str:
    """`df` as a Markdown table, an empty cell written `MISSING` (the width kept)."""
    return NAN_CELL.sub(
        lambda m: f"{m.group(1)}{MISSING:>3}{m.group(2)}", df.to_markdown(index=False)
    )


def save_table(df: pd.DataFrame, name: str, caption: str, directory: Path | None = None) -> Path:
    """Write `<name>.csv` and `<name>.md` (caption + table) into reports/tables/; an empty cell
    is blank in the CSV and `MISSING` in the Markdown."""
    directory = Path(directory or paths.tables_dir())
    atomic_write_text(directory / f"{name}.csv", df.to_csv(index=False, lineterminator="\n"))
    md = f"**{caption}**\n\n{markdown(df)}\n"
    atomic_write_text(directory / f"{name}.md", md)
    return directory / f"{name}.md"
