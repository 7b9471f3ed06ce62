"""Reusable page widgets for patterns: dialogs, banners, placement away from the task target."""

from __future__ import annotations

import numpy as np

from darkguard.ruc.synth.page import Page, esc

DARK_KINDS = (
    ("primary", 0.45),
    ("accent", 0.25),
    ("secondary", 0.15),
    ("ghost", 0.1),
    ("link", 0.05),
)
CORRECT_KINDS = (
    ("primary", 0.3),
    ("accent", 0.1),
    ("secondary", 0.25),
    ("ghost", 0.15),
    ("link", 0.2),
)


def pick_kind(rng: np.random.Generator, table: tuple[tuple[str, float], ...]) -> str:
    names, probs = zip(*table, strict=True)
    return str(rng.choice(names, p=np.array(probs) / sum(probs)))


def overlaps(a: tuple[int, int, int, int], b: tuple[int, int, int, int], margin: int = 12) -> bool:
    ax1, ay1, ax2, ay2 = a
    bx1, by1, bx2, by2 = b
    return not (
        ax2 + margin <= bx1 or bx2 + margin <= ax1 or ay2 + margin <= by1 or by2 + margin <= ay1
    )


def target_rect(page: Page) -> tuple[int, int, int, int]:
    x, y = page.card_origin(page.target)
    return x, y, x + page.card_w, y + page.card_h


def free_spot(page: Page, w: int, h: int, rng: np.random.Generator) -> tuple[int, int]:
    """A position for a w x h floating panel that does not cover the target card."""
    m = page.pad
    xs = [m, (page.width - w) // 2, page.width - w - m]
    ys = [page.header_h + m, (page.height - h) // 2, page.height - page.footer_h - h - m]
    spots = [
        (x, y) for y in ys for x in xs if not overlaps((x, y, x + w, y + h), target_rect(page))
    ]
    if not spots:  # fall back to covering the header strip only
        return (page.width - w) // 2, 4
    return spots[int(rng.integers(len(spots)))]


def dialog(
    page: Page,
    w: int,
    h: int,
    inner: str,
    rng: np.random.Generator,
    shade: bool = True,
    centered: bool = True,
) -> str:
    """A modal dialog; centered dialogs shade the page behind them."""
    if centered:
        x = (page.width - w) // 2 + int(rng.integers(-40, 41))
        y = (page.height - h) // 2 + int(rng.integers(-40, 41))
    else:
        x, y = free_spot(page, w, h, rng)
    back = '<div class="shade" style="position:fixed"></div>' if shade else ""
    return (
        f'{back}<div class="box col dialog" style="position:fixed;left:{x}px;top:{y}px;width:{w}px;'
        f'height:{h}px;padding:20px;gap:10px">{inner}</div>'
    )


def heading(text: str, size: int, h: int) -> str:
    return (
        f'<div style="height:{h}px;font-weight:700;font-size:{size}px;overflow:hidden;flex:none">'
        f"{esc(text)}</div>"
    )


def para(text: str, h: int, muted: bool = True) -> str:
    cls = "muted" if muted else ""
    return f'<div class="{cls}" style="height:{h}px;overflow:hidden;flex:none">{esc(text)}</div>'


def strip(page: Page, text: str, right: str, h: int, tone: str = "surface") -> str:
    """A full-width horizontal panel for the banner slot: a shrinkable text, then `right`."""
    bg = {
        "surface": "",
        "accent": "background:#fff4e5;color:#7a3e00;",
        "danger": "background:#fde8e8;color:#8a1111;",
    }[tone]
    return (
        f'<div class="row surface" style="width:{page.content_w}px;height:{h}px;padding:0 18px;'
        f'gap:14px;{bg}"><div class="clip" style="flex:1 1 auto;min-width:0">{esc(text)}</div>'
        f'<div class="row" style="flex:none;gap:10px;overflow:visible">{right}</div></div>'
    )
