"""Page layout of RUC-synth: header, optional sidebar, banner slot, a grid of cards, footer.

Every region and interactive element has explicit pixel geometry, so boxes measured in the
rendered DOM do not move with font metrics; only text inside a fixed box can differ.
Elements of interest carry `data-dg="correct"` or `data-dg="dark"`.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import numpy as np

from darkguard.ruc.synth.content import DomainCopy
from darkguard.ruc.synth.style import Style, stylesheet


def esc(text: str) -> str:
    return html.escape(text, quote=True)


def role_attr(role: str | None) -> str:
    return f' data-dg="{role}"' if role else ""


def button(text: str, kind: str, w: int, h: int, role: str | None = None, extra: str = "") -> str:
    """A button of fixed size; `kind` is one of style.BUTTON_KINDS."""
    return (
        f'<button class="btn btn-{kind}" style="width:{w}px;height:{h}px;{extra}"'
        f"{role_attr(role)}>{esc(text)}</button>"
    )


def link(text: str, w: int, h: int, role: str | None = None, extra: str = "") -> str:
    return (
        f'<a href="#" class="clip" style="display:inline-flex;align-items:center;width:{w}px;'
        f'height:{h}px;flex:none;{extra}"{role_attr(role)}>{esc(text)}</a>'
    )


def text_w(text: str, font_size: int, pad: int = 24) -> int:
    """A generous width estimate for a one-line label (boxes never depend on real metrics)."""
    return int(len(text) * font_size * 0.62) + pad


@dataclass
class Page:
    """A page under construction; deception patterns fill its slots before `html()`."""

    width: int
    height: int
    style: Style
    copy: DomainCopy
    rng: np.random.Generator
    task: str = ""
    correct: tuple = ("card_action", 0)
    target: int = 0
    header_h: int = 64
    footer_h: int = 44
    pad: int = 24
    gap: int = 16
    sidebar: str | None = None
    sidebar_w: int = 220
    cols: int = 3
    rows: int = 1
    banner_h: int = 0
    banner_html: str = ""
    sidebar_extra: str = ""
    sidebar_extra_h: int = 0
    card_actions: dict[int, str] = field(default_factory=dict)
    card_extra: dict[int, str] = field(default_factory=dict)
    overlays: list[str] = field(default_factory=list)
    words: dict = field(default_factory=dict)  # the style family's wording bank

    # ---- geometry -------------------------------------------------------------------------
    @property
    def content_x(self) -> int:
        return self.pad + (self.sidebar_w + self.gap if self.sidebar == "left" else 0)

    @property
    def content_w(self) -> int:
        return self.width - 2 * self.pad - (self.sidebar_w + self.gap if self.sidebar else 0)

    @property
    def grid_top(self) -> int:
        return self.header_h + self.pad + (self.banner_h + self.gap if self.banner_h else 0)

    @property
    def card_w(self) -> int:
        return (self.content_w - (self.cols - 1) * self.gap) // self.cols

    @property
    def card_h(self) -> int:
        avail = self.height - self.footer_h - self.pad - self.grid_top
        return min(380, (avail - (self.rows - 1) * self.gap) // self.rows)

    @property
    def inner_w(self) -> int:
        return self.card_w - 24

    def card_origin(self, i: int) -> tuple[int, int]:
        r, c = divmod(i, self.cols)
        return self.content_x + c * (self.card_w + self.gap), self.grid_top + r * (
            self.card_h + self.gap
        )

    def role(self, kind: str, index: int = 0) -> str | None:
        return "correct" if self.correct == (kind, index) else None

    # ---- regions --------------------------------------------------------------------------
    def _header(self) -> str:
        s, h = self.style, self.header_h
        fs = s.font_size
        nav = "".join(
            link(name, text_w(name, fs, 8), h - 16, self.role("nav", j), "margin-right:14px")
            for j, name in enumerate(self.copy.nav)
        )
        search_w = int(min(320, self.width * 0.2))
        return (
            f'<header class="box row surface" style="left:0;top:0;width:{self.width}px;'
            f"height:{h}px;"
            f'padding:0 {self.pad}px;border-radius:0;border-width:0 0 1px 0">'
            f'<div class="clip" style="width:190px;flex:none;font-weight:700;font-size:{fs + 6}px">'
            f"{esc(self.copy.site)}</div>"
            f'<nav class="nav row" style="flex:1;height:{h}px">{nav}</nav>'
            f'<input placeholder="Search" style="width:{search_w}px;height:{s.button_h}px">'
            f"{button('Search', 'ghost', 76, s.button_h, None, 'margin-left:6px')}"
            f"{link('Sign in', 64, s.button_h, None, 'margin-left:12px')}</header>"
        )

    def _sidebar(self) -> str:
        if not self.sidebar:
            return ""
        x = self.pad if self.sidebar == "left" else self.width - self.pad - self.sidebar_w
        top = self.header_h + self.pad
        h = self.height - self.footer_h - self.pad - top
        line_h = 32
        links = "".join(
            link(name, self.sidebar_w - 32, line_h, self.role("sidebar", k))
            for k, name in enumerate(self.copy.sidebar)
        )
        extra = ""
        if self.sidebar_extra:
            extra = (
                f'<div style="position:absolute;left:16px;bottom:16px;'
                f"width:{self.sidebar_w - 32}px;"
                f'height:{self.sidebar_extra_h}px">{self.sidebar_extra}</div>'
            )
        return (
            f'<aside class="box surface" style="left:{x}px;top:{top}px;width:{self.sidebar_w}px;'
            f'height:{h}px;padding:16px"><div class="muted" style="height:28px">Browse</div>'
            f'<div class="col">{links}</div>{extra}</aside>'
        )

    def _card(self, i: int) -> str:
        s, item = self.style, self.copy.items[i]
        x, y = self.card_origin(i)
        w, h = self.card_w, self.card_h
        fs = s.font_size
        title_h, line_h = int(fs * 2.7), int(fs * 1.5)
        thumb_h = h - 24 - title_h - 2 * line_h - s.button_h - 4 * 6
        hue = int(self.rng.integers(0, 360))
        thumb = (
            f'<div class="thumb" style="height:{thumb_h}px;background:linear-gradient(135deg,'
            f'hsl({hue},55%,70%),hsl({(hue + 40) % 360},45%,45%))"></div>'
        )
        title = (
            f'<a href="#" style="display:block;height:{title_h}px;overflow:hidden;font-weight:700;'
            f'line-height:{fs * 1.3:.1f}px;flex:none"{role_attr(self.role("card_title", i))}>'
            f"{esc(item.title)}</a>"
        )
        meta = (
            f'<div class="clip muted" style="height:{line_h}px;flex:none">'
            f"{esc(item.subtitle)}</div>"
            f'<div class="clip" style="height:{line_h}px;flex:none;font-weight:600">'
            f"{esc(item.price)}</div>"
        )
        actions = self.card_actions.get(i) or self.default_actions(i)
        return (
            f'<div class="box col surface" style="left:{x}px;top:{y}px;width:{w}px;height:{h}px;'
            f'padding:12px;gap:6px;overflow:visible">{thumb}{title}{meta}'
            f'<div class="row" style="height:{s.button_h}px;gap:8px;flex:none;overflow:visible">'
            f"{actions}</div>{self.card_extra.get(i, '')}</div>"
        )

    def default_actions(self, i: int) -> str:
        s = self.style
        w2 = min(text_w(self.copy.secondary, s.font_size), int(self.inner_w * 0.45))
        w1 = self.inner_w - w2 - 8
        return button(self.copy.action, "primary", w1, s.button_h, self.role("card_action", i)) + (
            button(self.copy.secondary, "link", w2, s.button_h)
        )

    def _banner(self) -> str:
        if not self.banner_h:
            return ""
        top = self.header_h + self.pad
        return (
            f'<div class="box" style="left:{self.content_x}px;top:{top}px;width:{self.content_w}px;'
            f'height:{self.banner_h}px;overflow:visible">{self.banner_html}</div>'
        )

    def _footer(self) -> str:
        links = "".join(
            link(t, text_w(t, 12, 4), self.footer_h - 12, None, "margin-right:16px;font-size:12px")
            for t in ("About", "Privacy", "Terms", "Contact", "Help")
        )
        return (
            f'<footer class="box row muted" style="left:0;top:{self.height - self.footer_h}px;'
            f'width:{self.width}px;height:{self.footer_h}px;padding:0 {self.pad}px">{links}'
            f'<span style="margin-left:auto">© 2025 {esc(self.copy.site)}</span></footer>'
        )

    def html(self) -> str:
        n_cards = self.cols * self.rows
        body = (
            self._header()
            + self._sidebar()
            + self._banner()
            + "".join(self._card(i) for i in range(n_cards))
            + self._footer()
            + "".join(self.overlays)
        )
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{esc(self.copy.site)}</title><style>{stylesheet(self.style)}</style></head>"
            f'<body style="width:{self.width}px;height:{self.height}px;position:relative">'
            f"{body}</body></html>\n"
        )
