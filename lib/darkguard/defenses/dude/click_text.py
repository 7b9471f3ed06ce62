"""The text under a click (an observation aid): one PP-OCR pass over a small crop around the click
(not the page), the line whose box contains the click. Lines are cached per screenshot and click
in memory and on disk (`paths.cache_dir()/click_text`, one JSON file per screenshot digest), so
that the pipeline reads each click once however many stages judge it; many clicks are read at
once by the OCR worker processes (`read_crops_many`)."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image

from darkguard import paths
from darkguard.agents.perception import TextLine, read_crops_many

CROP = (320, 80)  # width, height of the crop read around a click, in screenshot pixels
PAD = 4  # a click this close to a line's box is on it (pixels)
FORMAT_VERSION = 1

Key = tuple[str, int, int]  # screenshot digest, click x, click y (rounded)


def crop_box(size: tuple[int, int], x: float, y: float) -> tuple[int, int, int, int]:
    """The CROP-sized box centred on the click, clipped to the screenshot."""
    w, h = size
    cw, ch = CROP
    left, top = max(0, round(x) - cw // 2), max(0, round(y) - ch // 2)
    return left, top, min(w, left + cw), min(h, top + ch)


def text_under(lines: list[TextLine], x: float, y: float) -> str:
    """The text of the line under the click (its box padded by PAD); the nearest line's centre
    wins when boxes overlap; "" when the click is on no text."""
    hits = [
        ln
        for ln in lines
        if ln.box[0] - PAD <= x <= ln.box[2] + PAD and ln.box[1] - PAD <= y <= ln.box[3] + PAD
    ]
    if not hits:
        return ""
    return min(hits, key=lambda ln: (ln.center[0] - x) ** 2 + (ln.center[1] - y) ** 2).text


class ClickTextCache:
    """OCR lines per (screenshot digest, click), in memory and on disk."""

    def __init__(self, root: Path | None) -> None:
        self.root = root
        self.memory: dict[Key, list[TextLine]] = {}
        self._loaded: set[str] = set()

    def get(self, key: Key) -> list[TextLine] | None:
        self._load(key[0])
        return self.memory.get(key)

    def read(self, items: list[tuple[Key, Callable[[], Image.Image]]]) -> list[list[TextLine]]:
        """The lines of every (key, image getter); the missing ones read at once and stored."""
        missing: dict[Key, Callable[[], Image.Image]] = {}
        for key, image in items:
            if self.get(key) is None:
                missing.setdefault(key, image)
        if missing:
            crops = []
            for (_, x, y), image in missing.items():
                img = image()
                box = crop_box(img.size, x, y)
                crops.append((np.asarray(img.crop(box)), (box[0], box[1])))
            for key, lines in zip(missing, read_crops_many(crops), strict=True):
                self.memory[key] = lines
            self._save({k[0] for k in missing})
        return [self.memory[key] for key, _ in items]

    def _file(self, digest: str) -> Path | None:
        return None if self.root is None else self.root / f"{digest}.json"

    def _load(self, digest: str) -> None:
        if digest in self._loaded:
            return
        self._loaded.add(digest)
        file = self._file(digest)
        if file is None or not file.is_file():
            return
        try:
            stored = json.loads(file.read_text())
            if stored.get("version") != FORMAT_VERSION:
                return
            for name, lines in stored["clicks"].items():
                x, y = (int(v) for v in name.split(","))
                self.memory[(digest, x, y)] = [TextLine(t, tuple(b)) for t, b in lines]
        except (OSError, ValueError, KeyError, TypeError):
            return  # a damaged entry is read again

    def _save(self, digests: set[str]) -> None:
        for digest in sorted(digests):
            file = self._file(digest)
            if file is None:
                continue
            clicks = {
                f"{x},{y}": [[ln.text, list(ln.box)] for ln in lines]
                for (d, x, y), lines in sorted(self.memory.items())
                if d == digest
            }
            _atomic_json(file, {"version": FORMAT_VERSION, "crop": list(CROP), "clicks": clicks})


def _atomic_json(file: Path, value: dict) -> None:
    tmp: str | None = None
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=file.parent, suffix=".part")
        with os.fdopen(fd, "w") as out:
            json.dump(value, out, sort_keys=True)
        os.replace(tmp, file)
    except OSError:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def _cache() -> ClickTextCache:
    global _CACHE
    root = paths.cache_dir()
    root = None if root is None else root / "click_text"
    if _CACHE is None or _CACHE.root != root:
        _CACHE = ClickTextCache(root)
    return _CACHE


_CACHE: ClickTextCache | None = None


def click_key(digest: str, x: float, y: float) -> Key:
    return digest, round(x), round(y)


def click_lines(items: list[tuple[str, float, float, Callable[[], Image.Image]]]) -> list:
    """OCR lines around each (screenshot digest, x, y, image getter) click: from the cache, the
    rest read at once."""
    return _cache().read([(click_key(d, x, y), image) for d, x, y, image in items])
