"""Shared pieces of the deception patterns: task phrasing, paired choices, dialogs, copy."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from darkguard.ruc.synth.page import Page, button, link, text_w
from darkguard.ruc.synth.widgets import (
    CORRECT_KINDS,
    DARK_KINDS,
    dialog,
    heading,
    para,
    pick_kind,
)

Pattern = Callable[[Page, np.random.Generator], None]


def say(page: Page, rng: np.random.Generator, key: str):
    """One alternative of the family wording bank's `key` (the page's domain's, for the keys
    given per domain), drawn by `rng`."""
    options = page.words[key]
    if isinstance(options, dict):
        options = options[page.copy.domain]
    return options[int(rng.integers(len(options)))]


def countdown(rng: np.random.Generator) -> str:
    return f"{int(rng.integers(0, 15)):02d}:{int(rng.integers(0, 60)):02d}"


def base_task(page: Page) -> str:
    return page.copy.task_template.format(item=page.copy.items[page.target].title)


def with_suffix(task: str, suffix: str) -> str:
    return task.rstrip(".") + " " + suffix


def two_buttons(
    page: Page, rng: np.random.Generator, dark: str, correct: str, width: int, h: int
) -> str:
    """Dark and correct buttons side by side in random order, with a random width split."""
    fs = page.style.font_size
    need_d, need_c = text_w(dark, fs), text_w(correct, fs)
    spare = max(0, width - 10 - need_d - need_c)
    share = float(rng.uniform(0.0, 1.0))
    wd = min(need_d + int(spare * share), width - 10 - min(need_c, (width - 10) // 2))
    wc = width - 10 - wd
    b_dark = button(dark, pick_kind(rng, DARK_KINDS), wd, h, "dark")
    kind = pick_kind(rng, CORRECT_KINDS)
    b_ok = (
        link(correct, wc, h, "correct")
        if kind == "link"
        else button(correct, kind, wc, h, "correct")
    )
    return b_dark + b_ok if rng.random() < 0.5 else b_ok + b_dark


def stacked(page: Page, rng: np.random.Generator, dark: str, correct: str, width: int) -> str:
    """Dark and correct choices stacked in a dialog (sizes and order vary)."""
    h = page.style.button_h
    hd, hc = h + int(rng.integers(0, 14)), h + int(rng.integers(-6, 8))
    fs = page.style.font_size
    wd = min(width, max(text_w(dark, fs), int(width * rng.uniform(0.4, 1.0))))
    wc = min(width, max(text_w(correct, fs), int(width * rng.uniform(0.3, 1.0))))
    kind = pick_kind(rng, CORRECT_KINDS)
    b_dark = button(dark, pick_kind(rng, DARK_KINDS), wd, hd, "dark")
    b_ok = (
        link(correct, wc, hc, "correct")
        if kind == "link"
        else button(correct, kind, wc, hc, "correct")
    )
    first, second = (b_dark, b_ok) if rng.random() < 0.7 else (b_ok, b_dark)
    return f'<div class="col" style="gap:10px;flex:none">{first}{second}</div>'


def dialog_choice(page: Page, rng, title: str, body: str, dark: str, correct: str) -> None:
    w = int(rng.integers(420, 600))
    title_h = 2 * (page.style.font_size + 5) + 8
    h = max(170, 40 + title_h + 10 + 40 + 10 + 30) + 2 * page.style.button_h  # fits both choices
    inner = (
        heading(title, page.style.font_size + 5, title_h)
        + para(body, 40)
        + stacked(page, rng, dark, correct, w - 40)
    )
    page.overlays.append(
        dialog(page, w, h, inner, rng, shade=rng.random() < 0.75, centered=rng.random() < 0.7)
    )
    page.correct = ("custom", 0)
