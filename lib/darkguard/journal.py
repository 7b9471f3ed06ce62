"""Append-only run journals (rendered pages, evaluation episodes)."""

from __future__ import annotations

import json
from pathlib import Path

from darkguard.io import read_jsonl, write_jsonl


class Journal:
    """Append-only JSONL record of finished work items keyed by `key`; an interrupted run resumes
    from it (a torn last line from an interrupted write is ignored: that item runs again)."""

    def __init__(self, path: Path, key: str = "id") -> None:
        self.path = Path(path)
        self.key = key
        self.done: dict[str, dict] = {}
        if path.exists():
            try:
                rows = read_jsonl(path)
            except ValueError:  # a torn last line from an interrupted write
                rows = self._readable_prefix(path)
            self.done = {r[key]: r for r in rows}
        self._fh = None

    @staticmethod
    def _readable_prefix(path: Path) -> list[dict]:
        rows = []
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                break
        return rows

    def append(self, row: dict) -> None:
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = self.path.open("a", encoding="utf-8")
        self._fh.write(json.dumps(row, sort_keys=True) + "\n")
        self._fh.flush()
        self.done[row[self.key]] = row

    def finalize(self, order: list[str]) -> None:
        """Rewrite the journal in `order`, so finished runs are byte-identical."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None
        write_jsonl(self.path, [self.done[i] for i in order if i in self.done])
