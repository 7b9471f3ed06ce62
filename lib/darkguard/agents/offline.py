"""The embedded default's grounding agent: OCR + sentence embeddings (`perception`); it clicks the
best-matching text line and, once rejected, the next-best one."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

from darkguard import cache, paths
from darkguard.agents import Rejection
from darkguard.agents.perception import (
    TextLine,
    read_lines,
    read_lines_many,
    reading_result,
    similarity_to,
    start_reading,
)
from darkguard.models.parsing import AgentOutput, Click, ParseFailure

LINES_VERSION = 1  # bump when what PP-OCR returns for a page changes (engine, parameters)


@dataclass
class OfflineAgent:
    """Grounding by OCR + sentence embeddings. Score of a line: cosine similarity to the task,
    plus a bonus for lying near the best-matching line (its item's button or link)."""

    name: str = "offline-ocr-minilm"
    near_weight: float = 0.3
    near_scale_px: float = 150.0
    min_separation_px: float = 12.0
    _cache: dict = field(default_factory=dict, repr=False)
    _lines: dict = field(default_factory=dict, repr=False)  # OCR lines per screenshot

    def candidates(self, image: Image.Image, task: str) -> list[tuple[float, TextLine]]:
        """All text lines, best first, with their scores (cached per screenshot and task)."""
        page = _page_key(image)
        key = (*page, task)
        if key not in self._cache:
            if page not in self._lines:
                lines = stored_lines(page)
                if lines is None:
                    lines = _read_ahead_lines(page, image)
                    lines = read_lines(image) if lines is None else lines
                    store_lines(page, lines)
                self._lines[page] = lines
            lines = self._lines[page]
            if not lines:
                self._cache[key] = []
                return []
            sims = similarity_to(task, lines)
            ax, ay = lines[int(np.argmax(sims))].center
            scored = []
            for sim, line in zip(sims, lines, strict=True):
                cx, cy = line.center
                near = math.exp(-math.hypot(cx - ax, cy - ay) / self.near_scale_px)
                scored.append((float(sim) + self.near_weight * near, line))
            self._cache[key] = sorted(scored, key=lambda s: (-s[0], s[1].box))
        return self._cache[key]

    def propose_many(
        self, requests: list[tuple[Image.Image, str, list[Rejection]]]
    ) -> list[tuple[AgentOutput, int]]:
        """`propose` for many (screenshot, task, rejected): the screenshots not read yet are
        read at once (`read_lines_many`); no tokens."""
        unread: dict[tuple, Image.Image] = {}
        for image, _, _ in requests:
            page = _page_key(image)
            if page not in self._lines:
                stored = stored_lines(page)
                if stored is not None:
                    self._lines[page] = stored
                else:
                    unread.setdefault(page, image)
        fresh = [page for page in unread if page not in _AHEAD]
        read = read_lines_many([unread[page] for page in fresh]) if fresh else []
        lines_of = dict(zip(fresh, read, strict=True))
        for page, image in unread.items():
            lines = lines_of[page] if page in lines_of else _read_ahead_lines(page, image)
            self._lines[page] = lines
            store_lines(page, lines)
        return [(self.propose(*request), 0) for request in requests]

    def propose(self, image: Image.Image, task: str, rejected: list[Rejection]) -> AgentOutput:
        for _, line in self.candidates(image, task):
            x, y = line.center
            if all(math.hypot(x - r.x, y - r.y) > self.min_separation_px for r in rejected):
                return Click(x, y)
        return ParseFailure("no candidate left")


_AHEAD: dict[tuple, Future] = {}  # page key -> its reading, started by `read_ahead`


def read_ahead(files: Iterable[Path]) -> int:
    """Start reading the screenshots in `files` (the pages a benchmark will show its agents, in
    the order it shows them) in the OCR worker processes, so that the reading overlaps with
    other work of this process; an agent shown one of them takes its reading rather than
    starting another. Pages already read (the page-lines cache) are skipped. Returns how many
    readings started; `stop_reading_ahead` cancels those no agent took."""
    started = 0
    for file in files:
        page = _page_key(cache.decoded(file))
        if page in _AHEAD or stored_lines(page) is not None:
            continue
        _AHEAD[page] = start_reading(file)
        started += 1
    return started


def stop_reading_ahead() -> None:
    """Cancel the readings `read_ahead` started that have not begun, and forget them all."""
    for future in _AHEAD.values():
        future.cancel()
    _AHEAD.clear()


def _read_ahead_lines(page: tuple, image: Image.Image) -> list[TextLine] | None:
    """The lines of a page read ahead (None: not read ahead); read here when the workers could
    not read it."""
    if page not in _AHEAD:
        return None
    return reading_result(_AHEAD.pop(page), image)


def _page_key(image: Image.Image) -> tuple[str, tuple[int, int]]:
    return cache.pixel_digest(image), image.size


def _lines_file(page: tuple[str, tuple[int, int]]) -> Path | None:
    """Where a page's OCR lines are kept between processes (`paths.cache_dir()/page_lines`,
    named by the page's pixels; None when the cache is off)."""
    root = paths.cache_dir()
    digest, (w, h) = page
    return None if root is None else root / "page_lines" / f"{digest}-{w}x{h}-v{LINES_VERSION}.json"


def stored_lines(page: tuple[str, tuple[int, int]]) -> list[TextLine] | None:
    """A page's OCR lines read by an earlier process (None: not stored or unreadable)."""
    file = _lines_file(page)
    try:
        if file is None or not file.is_file():
            return None
        return [TextLine(t, tuple(b)) for t, b in json.loads(file.read_text())]
    except (OSError, ValueError, TypeError):
        return None


def store_lines(page: tuple[str, tuple[int, int]], lines: list[TextLine]) -> None:
    """Keep a page's OCR lines for later processes (skipped when the cache cannot be written)."""
    file = _lines_file(page)
    if file is None:
        return
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        tmp = file.with_suffix(f".{os.getpid()}.part")
        tmp.write_text(json.dumps([[ln.text, list(ln.box)] for ln in lines]))
        os.replace(tmp, file)
    except OSError:
        return
