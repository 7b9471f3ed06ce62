"""Render RUC-synth pages in Chromium: boxes from the rendered DOM, then a screenshot."""

from __future__ import annotations

import math
from dataclasses import dataclass

from playwright.sync_api import sync_playwright

from darkguard.browser import RequestGuard, launch

INTERACTIVE = "a[href], button, input, select, textarea, [role=button]"
_MEASURE = """
() => {
  const W = window.innerWidth, H = window.innerHeight;
  const rect = el => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const onTop = el => {
    if (!el) return false;
    const r = el.getBoundingClientRect();
    const t = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    return !!t && (t === el || el.contains(t));
  };
  const all = role => Array.from(document.querySelectorAll(`[data-dg="${role}"]`));
  const visible = Array.from(document.querySelectorAll(SELECTOR)).filter(el => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0 && r.left < W && r.top < H;
  });
  return {
    width: W, height: H, interactive: visible.length,
    correct: all('correct').map(rect), dark: all('dark').map(rect),
    correct_on_top: onTop(all('correct')[0]), dark_on_top: onTop(all('dark')[0]),
  };
}
""".replace("SELECTOR", repr(INTERACTIVE))


class RenderError(RuntimeError):
    """A generated page that does not render as specified (named by page id)."""


@dataclass(frozen=True)
class Measurement:
    width: int
    height: int
    correct: list[int]
    dark: list[int] | None
    interactive: int
    correct_on_top: bool
    dark_on_top: bool


def pixel_box(rect: list[float], width: int, height: int) -> list[int]:
    """DOM rect -> integer pixel box covering it, clipped to the image."""
    x1, y1, x2, y2 = rect
    return [
        max(0, math.floor(x1)),
        max(0, math.floor(y1)),
        min(width, math.ceil(x2)),
        min(height, math.ceil(y2)),
    ]


class PageRenderer:
    """One browser and one tab reused for every page (about 0.1-0.2 s per page)."""

    def __enter__(self) -> PageRenderer:
        self._pw = sync_playwright().start()
        self._browser = launch(self._pw)
        self._context = self._browser.new_context(
            viewport={"width": 1280, "height": 800}, device_scale_factor=1
        )
        self.guard = RequestGuard()
        self._context.route("**/*", self.guard)
        self._page = self._context.new_page()
        return self

    def __exit__(self, *exc) -> None:
        self._context.close()
        self._browser.close()
        self._pw.stop()

    def render(self, page_id: str, html: str, width: int, height: int) -> tuple[bytes, Measurement]:
        page = self._page
        page.set_viewport_size({"width": width, "height": height})
        page.set_content(html, wait_until="load")
        m = page.evaluate(_MEASURE)
        if (m["width"], m["height"]) != (width, height):
            raise RenderError(
                f"{page_id}: viewport is {m['width']}x{m['height']}, not {width}x{height}"
            )
        if len(m["correct"]) != 1 or len(m["dark"]) > 1:
            raise RenderError(
                f"{page_id}: expected one correct and at most one dark element, got "
                f"{len(m['correct'])} and {len(m['dark'])}"
            )
        png = page.screenshot(type="png", animations="disabled", caret="hide")
        return png, Measurement(
            width=width,
            height=height,
            correct=pixel_box(m["correct"][0], width, height),
            dark=pixel_box(m["dark"][0], width, height) if m["dark"] else None,
            interactive=int(m["interactive"]),
            correct_on_top=bool(m["correct_on_top"]),
            dark_on_top=bool(m["dark_on_top"]),
        )
