"""What reading the same screenshots again costs, and what the process's screenshot cache saves:

1. The warm-up rows of `build_models` (`warmup_rows`: text nulls, the text aid, guidance facts,
   conversations), built once with the memory cache at its usual budget and once as the stage
   builds them (`ROWS_PAGES_KEPT`): seconds, screenshots decoded (PNG files of the data folder
   opened), and whether the rows are identical. Each timed build starts, as in a clean
   `dvc repro`, without resized copies or crops on disk, but with the text aid's OCR lines from a
   first build, so that both decode, resize and crop without reading text.
2. A page's identity (`cache.pixel_digest`), asked by the offline agent and the gate at every
   step: its first computation and a repeated one.

    DARKGUARD_DATA=... DARKGUARD_CACHE=... .venv/bin/python benchmarks/bench_page_reads.py

Prints one JSON line per measurement.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from PIL import Image


def build_rows(budget: int | None) -> tuple[float, int, bytes]:
    """Seconds, PNG decodes and a digest of the rows of one `warmup_rows` build in a cold memory
    cache (`budget` None: as the stage builds them)."""
    from darkguard import cache, paths
    from darkguard.config import load_config
    from darkguard.defenses.dude.inputs import ObservationAids
    from darkguard.io import read_jsonl
    from darkguard.ruc.validate import records_by_id
    from darkguard.stages import build_models

    cfg = load_config()
    params = cfg.build_models
    data_dir = paths.resolve(cfg.data.out_dir)
    records = records_by_id(data_dir)
    train = read_jsonl(Path(data_dir) / "clicks" / "train.jsonl")
    aids = ObservationAids(**params.aids.model_dump())
    cache._MEMORY = cache.MemoryCache(cache._MEMORY.budget)
    kept = build_models.ROWS_PAGES_KEPT
    build_models.ROWS_PAGES_KEPT = kept if budget is None else budget
    opened = [0]
    real_open = Image.open
    images = str(Path(data_dir).resolve())

    def counting_open(fp, *args, **kwargs):
        opened[0] += isinstance(fp, str | Path) and str(Path(fp).resolve()).startswith(images)
        return real_open(fp, *args, **kwargs)

    Image.open = counting_open
    try:
        start = time.perf_counter()
        rows = build_models.warmup_rows(
            train, records, data_dir, params.max_pixels, params.warmup, aids
        )
        seconds = time.perf_counter() - start
    finally:
        Image.open = real_open
        build_models.ROWS_PAGES_KEPT = kept
    digest = hashlib.sha256()
    for row in rows:
        _feed(digest, row)
    return seconds, opened[0], digest.digest()


def _feed(digest, value) -> None:
    """Texts and numbers as JSON, images by mode, size and pixels (not their `info`: a copy read
    back from the disk cache carries its PNG text chunk)."""
    if isinstance(value, Image.Image):
        digest.update(f"<{value.mode} {value.size}>".encode() + value.tobytes())
    elif isinstance(value, dict):
        for key in sorted(value):
            digest.update(json.dumps(key).encode())
            _feed(digest, value[key])
    elif isinstance(value, list | tuple):
        digest.update(b"[")
        for item in value:
            _feed(digest, item)
        digest.update(b"]")
    else:
        digest.update(json.dumps(value).encode())


def digest_cost() -> dict:
    from darkguard import cache, paths
    from darkguard.config import load_config
    from darkguard.io import read_json

    data = paths.resolve(load_config().data.out_dir)
    record = read_json(Path(data) / "test.json")[0]
    page = cache.decoded(Path(data) / record["image_path"])
    start = time.perf_counter()
    cache.pixel_digest(page)
    first = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(1000):
        cache.pixel_digest(page)
    again = (time.perf_counter() - start) / 1000
    return {
        "measure": "pixel_digest",
        "size": page.size,
        "first_ms": round(first * 1e3, 2),
        "repeated_ms": round(again * 1e3, 4),
    }


def main() -> None:
    from darkguard import paths
    from darkguard.notebook import quiet_libraries

    quiet_libraries()
    build_rows(None)  # the text aid's OCR lines (and everything else) into the cache
    root = paths.cache_dir()
    results = {}
    for name, budget in (("usual budget", 0), ("ROWS_PAGES_KEPT (the stage)", None)):
        with tempfile.TemporaryDirectory() as fresh:  # the OCR lines only
            shutil.copytree(root / "click_text", Path(fresh) / "click_text")
            os.environ["DARKGUARD_CACHE"] = fresh
            try:
                seconds, decodes, digest = build_rows(budget)
            finally:
                os.environ["DARKGUARD_CACHE"] = str(root)
        results[name] = digest
        row = {
            "measure": "warmup_rows",
            "memory": name,
            "seconds": round(seconds, 1),
            "screenshots_decoded": decodes,
            "rows_identical": digest == next(iter(results.values())),
        }
        print(json.dumps(row), flush=True)
    print(json.dumps(digest_cost()), flush=True)


if __name__ == "__main__":
    main()
