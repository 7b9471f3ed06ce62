"""The embedded default's grounding agent: OCR + sentence embeddings (`perception`); it clicks the
best-matching text line and, once rejected, the next-best one."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field

import numpy as np
from PIL import Image

from darkguard.agents import Rejection
from darkguard.agents.perception import TextLine, encoder, read_lines, read_lines_many
from darkguard.models.parsing import AgentOutput, Click, ParseFailure


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
                self._lines[page] = read_lines(image)
            lines = self._lines[page]
            if not lines:
                self._cache[key] = []
                return []
            emb = encoder().encode([task] + [ln.text for ln in lines], normalize_embeddings=True)
            sims = emb[1:] @ emb[0]
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
                unread.setdefault(page, image)
        for page, lines in zip(unread, read_lines_many(list(unread.values())), strict=True):
            self._lines[page] = lines
        return [(self.propose(*request), 0) for request in requests]

    def propose(self, image: Image.Image, task: str, rejected: list[Rejection]) -> AgentOutput:
        for _, line in self.candidates(image, task):
            x, y = line.center
            if all(math.hypot(x - r.x, y - r.y) > self.min_separation_px for r in rejected):
                return Click(x, y)
        return ParseFailure("no candidate left")


def _page_key(image: Image.Image) -> tuple[str, tuple[int, int]]:
    return hashlib.sha1(image.tobytes()).hexdigest(), image.size
