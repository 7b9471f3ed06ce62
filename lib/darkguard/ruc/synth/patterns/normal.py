"""Normal pages: their tasks and benign decorations that do not deceive."""

from __future__ import annotations

import numpy as np

from darkguard.ruc.synth.page import Page, button, esc, text_w
from darkguard.ruc.synth.patterns.common import base_task
from darkguard.ruc.synth.widgets import strip


def apply_normal(page: Page, rng: np.random.Generator) -> str:
    """Choose a Normal task and benign decorations (urgency badges, promos) that do not deceive."""
    r = rng.random()
    if r < 0.55:
        page.task, page.correct, kind = base_task(page), ("card_action", page.target), "card_action"
    elif r < 0.70:
        item = page.copy.items[page.target].title
        page.task = f"Open the page of {item}."
        page.correct, kind = ("card_title", page.target), "card_title"
    elif r < 0.85 or not page.sidebar:
        j = int(rng.integers(len(page.copy.nav)))
        page.task = f"Go to the {page.copy.nav[j]} section."
        page.correct, kind = ("nav", j), "nav"
    else:
        k = int(rng.integers(len(page.copy.sidebar)))
        page.task = f"Browse the {page.copy.sidebar[k]} category."
        page.correct, kind = ("sidebar", k), "sidebar"
    if rng.random() < 0.35:  # benign urgency / social-proof cues, sometimes on the target itself
        for i in rng.choice(page.cols * page.rows, size=int(rng.integers(1, 3)), replace=False):
            cue = str(rng.choice(["Only 3 left", "Popular", "Bestseller", "Trending", "New"]))
            page.card_extra[int(i)] = (
                f'<span class="badge" style="position:absolute;top:18px;'
                f'left:18px">{esc(cue)}</span>'
            )
    if rng.random() < 0.3:  # a benign promo strip with its own (unannotated) button
        h = int(rng.integers(56, 96))
        w = text_w("See all offers", page.style.font_size, 40)
        page.banner_h = h
        page.banner_html = strip(
            page,
            f"Welcome to {page.copy.site}. New arrivals every week.",
            button("See all offers", "accent", w, h - 24),
            h,
        )
    return kind
