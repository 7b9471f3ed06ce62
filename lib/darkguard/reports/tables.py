"""Saving tables as CSV + Markdown with a caption naming the profile and the paper reference."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from darkguard import paths
from darkguard.io import atomic_write_text


def save_table(df: pd.DataFrame, name: str, caption: str, directory: Path | None = None) -> Path:
    """Write `<name>.csv` and `<name>.md` (caption + table) into reports/tables/."""
    directory = Path(directory or paths.tables_dir())
    atomic_write_text(directory / f"{name}.csv", df.to_csv(index=False, lineterminator="\n"))
    md = f"**{caption}**\n\n{df.to_markdown(index=False)}\n"
    atomic_write_text(directory / f"{name}.md", md)
    return directory / f"{name}.md"
