"""A page's OCR lines, kept between processes (`paths.cache_dir()/page_lines`, one JSON file per
page, named by its pixels): the offline agent reads each screenshot once however many stages
show it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from PIL import Image

from darkguard import cache, paths
from darkguard.agents.perception import TextLine

LINES_VERSION = 1  # bump when what PP-OCR returns for a page changes (engine, parameters)
Page = tuple[str, tuple[int, int]]  # a page's pixel digest and size


def page_key(image: Image.Image) -> Page:
    return cache.pixel_digest(image), image.size


def _lines_file(page: Page) -> Path | None:
    """Where a page's OCR lines are kept between processes (`paths.cache_dir()/page_lines`,
    named by the page's pixels; None when the cache is off)."""
    root = paths.cache_dir()
    digest, (w, h) = page
    return None if root is None else root / "page_lines" / f"{digest}-{w}x{h}-v{LINES_VERSION}.json"


def stored_lines(page: Page) -> list[TextLine] | None:
    """A page's OCR lines read by an earlier process (None: not stored or unreadable)."""
    file = _lines_file(page)
    try:
        if file is None or not file.is_file():
            return None
        return [TextLine(t, tuple(b)) for t, b in json.loads(file.read_text())]
    except (OSError, ValueError, TypeError):
        return None


def store_lines(page: Page, lines: list[TextLine]) -> None:
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
