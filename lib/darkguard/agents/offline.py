"""The embedded default's grounding agent: OCR + sentence embeddings (`perception`); it clicks the
best-matching text line and, once rejected, the next-best one."""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

from darkguard import paths
from darkguard.agents import Rejection
from darkguard.agents.perception import TextLine, read_lines, read_lines_many, similarity_to
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
                    lines = read_lines(image)
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
        read = read_lines_many(list(unread.values())) if unread else []
        for page, lines in zip(unread, read, strict=True):
            self._lines[page] = lines
            store_lines(page, lines)
        return [(self.propose(*request), 0) for request in requests]

    def propose(self, image: Image.Image, task: str, rejected: list[Rejection]) -> AgentOutput:
        for _, line in self.candidates(image, task):
            x, y = line.center
            if all(math.hypot(x - r.x, y - r.y) > self.min_separation_px for r in rejected):
                return Click(x, y)
        return ParseFailure("no candidate left")


def _page_key(image: Image.Image) -> tuple[str, tuple[int, int]]:
    return hashlib.sha1(image.tobytes()).hexdigest(), image.size


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
