"""Cognitive Manipulation: presentation biases and linguistic deception."""

from __future__ import annotations

from darkguard.ruc.synth.page import Page, esc
from darkguard.ruc.synth.patterns.common import (
    base_task,
    dialog_choice,
    say,
    stacked,
)
from darkguard.ruc.synth.widgets import (
    DARK_KINDS,
    dialog,
    heading,
    para,
    pick_kind,
)


def cookie_false_hierarchy(page: Page, rng) -> None:
    task, title, body, accept, decline = say(page, rng, "cookie")
    page.task = task
    w = int(rng.integers(380, 560))
    h = 40 + 24 + 10 + 36 + 10 + 2 * page.style.button_h + 30  # padding, text, both choices
    inner = (
        heading(title, page.style.font_size + 3, 24)
        + para(body, 36)
        + stacked(page, rng, accept, decline, w - 40)
    )
    page.overlays.append(
        dialog(page, w, h, inner, rng, shade=rng.random() < 0.4, centered=rng.random() < 0.4)
    )
    page.correct = ("custom", 0)


def disguised_ad(page: Page, rng) -> None:
    page.task = base_task(page)
    label = say(page, rng, "ad_label")
    marker = esc(say(page, rng, "ad_marker"))
    kind = pick_kind(rng, DARK_KINDS)
    if page.sidebar and rng.random() < 0.6:
        h = int(rng.integers(110, 220))
        w = page.sidebar_w - 32
        page.sidebar_extra_h = h
        page.sidebar_extra = (
            f'<a href="#" class="col btn btn-{kind}" style="width:{w}px;height:{h}px;gap:6px"'
            f' data-dg="dark"><span style="font-size:10px;opacity:.7">{marker}</span>'
            f"{esc(label)}</a>"
        )
    else:
        h = int(rng.integers(56, 100))
        w = int(page.content_w * rng.uniform(0.35, 1.0))
        page.banner_h = h
        page.banner_html = (
            f'<a href="#" class="btn btn-{kind}" style="width:{w}px;height:{h}px;'
            f'font-size:{page.style.font_size + 4}px" data-dg="dark">{esc(label)}'
            f'<span style="font-size:10px;opacity:.6;margin-left:10px">{marker}</span></a>'
        )
    page.correct = ("card_action", page.target)


def confirmshaming(page: Page, rng) -> None:
    task, title, body, dark, correct = say(page, rng, "confirmshaming")
    page.task = task
    dialog_choice(page, rng, title, body, dark, correct)
