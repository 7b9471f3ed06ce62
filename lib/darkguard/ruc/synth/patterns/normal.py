"""Normal pages: their tasks and benign decorations that do not deceive."""

from __future__ import annotations

import numpy as np

from darkguard.ruc.synth.page import Page, button, esc, text_w
from darkguard.ruc.synth.patterns.common import base_task, say
from darkguard.ruc.synth.widgets import strip


def apply_normal(page: Page, rng: np.random.Generator) -> str:
    """Choose a Normal task and benign decorations (urgency badges, promos) that do not deceive."""
    r = rng.random()
    if r < 0.55:
        page.task, page.correct, kind = base_task(page), ("card_action", page.target), "card_action"
    elif r < 0.70:
        item = page.copy.items[page.target].title
        page.task = say(page, rng, "open_task").format(item=item)
        page.correct, kind = ("card_title", page.target), "card_title"
    elif r < 0.85 or not page.sidebar:
        j = int(rng.integers(len(page.copy.nav)))
        page.task = say(page, rng, "nav_task").format(section=page.copy.nav[j])
        page.correct, kind = ("nav", j), "nav"
    else:
        k = int(rng.integers(len(page.copy.sidebar)))
        page.task = say(page, rng, "sidebar_task").format(section=page.copy.sidebar[k])
        page.correct, kind = ("sidebar", k), "sidebar"
    if rng.random() < 0.35:  # benign urgency / social-proof cues, sometimes on the target itself
        for i in rng.choice(page.cols * page.rows, size=int(rng.integers(1, 3)), replace=False):
            cue = say(page, rng, "cues")
            page.card_extra[int(i)] = (
                f'<span class="badge" style="position:absolute;top:18px;'
                f'left:18px">{esc(cue)}</span>'
            )
    if rng.random() < 0.3:  # a benign promo strip with its own (unannotated) button
        h = int(rng.integers(56, 96))
        message, label = say(page, rng, "promo")
        w = text_w(label, page.style.font_size, 40)
        page.banner_h = h
        page.banner_html = strip(
            page, message.format(site=page.copy.site), button(label, "accent", w, h - 24), h
        )
    return kind
