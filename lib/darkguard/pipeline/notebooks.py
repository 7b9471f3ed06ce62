"""Clean papermill-executed notebooks so that reruns on one machine are byte-identical."""

from __future__ import annotations

from pathlib import Path

import nbformat

from darkguard.io import atomic_write_text

VOLATILE_CELL_METADATA = ("papermill", "execution", "ExecuteTime", "collapsed", "scrolled")


def clean_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Drop timestamps and run metadata, and number the cells with stable ids."""
    nb.metadata.pop("papermill", None)
    nb.metadata.pop("widgets", None)
    for i, cell in enumerate(nb.cells):
        for key in VOLATILE_CELL_METADATA:
            cell.metadata.pop(key, None)
        cell["id"] = f"cell-{i:03d}"
        for output in cell.get("outputs", []):
            output.get("metadata", {}).pop("execution", None)
    return nb


def clean_file(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    atomic_write_text(Path(path), nbformat.writes(clean_notebook(nb)) + "\n")
