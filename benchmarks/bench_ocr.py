"""How fast the offline perception reads a full page, and whether a setting changes what it
reads: PP-OCR (rapidocr) on one thread, as each OCR worker process runs it, over train-split
screenshots (every `--every`-th), once with onnxruntime's memory arena off (rapidocr's default)
and once with the package's `OCR_PARAMS` (arena on).

    .venv/bin/python benchmarks/bench_ocr.py [--pages 12] [--every 70]

Prints one JSON line per setting: seconds per page (after one page of warm-up), lines read, and
the pages whose lines (texts and boxes) differ from the first setting's.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from PIL import Image

THREAD = {"EngineConfig.onnxruntime.intra_op_num_threads": 1}


def read_all(params: dict, pages: list[np.ndarray]) -> tuple[float, list]:
    from rapidocr import RapidOCR

    from darkguard.agents.perception import _text_lines

    engine = RapidOCR(params={**params, **THREAD})
    engine(pages[0])
    start = time.perf_counter()
    lines = [_text_lines(engine(page)) for page in pages]
    return (time.perf_counter() - start) / len(pages), lines


def main() -> None:
    from darkguard import paths
    from darkguard.agents.perception import OCR_PARAMS
    from darkguard.config import load_config
    from darkguard.io import read_json

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", type=int, default=12)
    parser.add_argument("--every", type=int, default=70)
    args = parser.parse_args()
    data = paths.resolve(load_config().data.out_dir)
    records = read_json(Path(data) / "train.json")
    chosen = records[:: args.every][: args.pages]
    pages = [np.array(Image.open(data / r["image_path"]).convert("RGB")) for r in chosen]
    arena_off = {**OCR_PARAMS, "EngineConfig.onnxruntime.enable_cpu_mem_arena": False}
    first = None
    for name, params in (("arena off (rapidocr default)", arena_off), ("OCR_PARAMS", OCR_PARAMS)):
        seconds, lines = read_all(params, pages)
        first = lines if first is None else first
        differ = [r["id"] for r, a, b in zip(chosen, first, lines, strict=True) if a != b]
        row = {
            "setting": name,
            "pages": len(pages),
            "s_per_page": round(seconds, 3),
            "lines": sum(len(x) for x in lines),
            "pages_differing": differ,
        }
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
