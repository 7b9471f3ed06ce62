"""Reading pages ahead: the OCR worker processes read the screenshots a benchmark will show its
agents while this process does other work, and the offline agent takes a page's reading instead
of starting another (speed only: the same lines either way)."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Future
from pathlib import Path

from PIL import Image

from darkguard import cache
from darkguard.agents.page_lines import Page, page_key, stored_lines
from darkguard.agents.perception import TextLine, reading_result, start_reading

_AHEAD: dict[Page, Future] = {}  # page key -> its reading, started by `read_ahead`


def read_ahead(files: Iterable[Path]) -> int:
    """Start reading the screenshots in `files` (the pages a benchmark will show its agents, in
    the order it shows them) in the OCR worker processes, so that the reading overlaps with
    other work of this process; an agent shown one of them takes its reading rather than
    starting another. Pages already read (the page-lines cache) are skipped. Returns how many
    readings started; `stop_reading_ahead` cancels those no agent took."""
    started = 0
    for file in files:
        page = page_key(cache.decoded(file))
        if page in _AHEAD or stored_lines(page) is not None:
            continue
        _AHEAD[page] = start_reading(file)
        started += 1
    return started


def stop_reading_ahead() -> None:
    """Cancel the readings `read_ahead` started that have not begun, and forget them all."""
    for future in _AHEAD.values():
        future.cancel()
    _AHEAD.clear()


def taken(page: Page, image: Image.Image) -> list[TextLine] | None:
    """The lines of a page read ahead (None: not read ahead); read here when the workers could
    not read it."""
    if page not in _AHEAD:
        return None
    return reading_result(_AHEAD.pop(page), image)


def pending(page: Page) -> bool:
    """Whether `page` is being read ahead."""
    return page in _AHEAD
