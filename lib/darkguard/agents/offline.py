"""The embedded default's grounding agent: OCR + sentence embeddings (`perception`); it clicks the
best-matching text line and, once rejected, the next-best one."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from PIL import Image

from darkguard.agents import Rejection, Stateless
from darkguard.agents.page_lines import page_key, store_lines, stored_lines
from darkguard.agents.perception import TextLine, read_lines, read_lines_many, similarity_to
from darkguard.agents.read_ahead import pending, taken
from darkguard.envs import Observation
from darkguard.models.parsing import AgentOutput, Click, ParseFailure


@dataclass
class OfflineAgent(Stateless):
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
        page = page_key(image)
        key = (*page, task)
        if key not in self._cache:
            if page not in self._lines:
                lines = stored_lines(page)
                if lines is None:
                    lines = taken(page, image)
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

    def act(self, obs: Observation, rejected: Sequence[Rejection] = ()) -> AgentOutput:
        return self.act_many([(obs, list(rejected))])[0][0]

    def act_many(
        self, requests: list[tuple[Observation, list[Rejection]]]
    ) -> list[tuple[AgentOutput, int]]:
        """The next action for many (observation, rejected): the screenshots not read yet are
        read at once (`read_lines_many`); no tokens."""
        unread: dict[tuple, Image.Image] = {}
        for obs, _ in requests:
            image = obs.image
            page = page_key(image)
            if page not in self._lines:
                stored = stored_lines(page)
                if stored is not None:
                    self._lines[page] = stored
                else:
                    unread.setdefault(page, image)
        fresh = [page for page in unread if not pending(page)]
        read = read_lines_many([unread[page] for page in fresh]) if fresh else []
        lines_of = dict(zip(fresh, read, strict=True))
        for page, image in unread.items():
            lines = lines_of[page] if page in lines_of else taken(page, image)
            self._lines[page] = lines
            store_lines(page, lines)
        return [(self.choose(o.image, o.task, rejected), 0) for o, rejected in requests]

    def choose(self, image: Image.Image, task: str, rejected: list[Rejection]) -> AgentOutput:
        """The best-scoring line's centre not near a turned-back click."""
        for _, line in self.candidates(image, task):
            x, y = line.center
            if all(math.hypot(x - r.x, y - r.y) > self.min_separation_px for r in rejected):
                return Click(x, y)
        return ParseFailure("no candidate left")
