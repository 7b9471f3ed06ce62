"""Cognitive Manipulation: presentation biases and linguistic deception."""

from __future__ import annotations

from darkguard.ruc.synth.page import Page, esc
from darkguard.ruc.synth.patterns.common import (
    AD_LABEL,
    base_task,
    dialog_choice,
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
    page.task = str(
        rng.choice(
            [
                "Decline the optional cookies.",
                "Continue with only the necessary cookies.",
                "Reject the non-essential cookies.",
            ]
        )
    )
    w = int(rng.integers(380, 560))
    h = 70 + 2 * page.style.button_h + 40
    inner = (
        heading("We value your privacy", page.style.font_size + 3, 24)
        + para("We and our 312 partners use cookies to personalise content and ads.", 36)
        + stacked(
            page,
            rng,
            "Accept all",
            str(
                rng.choice(
                    ["Reject optional cookies", "Necessary cookies only", "Decline non-essential"]
                )
            ),
            w - 40,
        )
    )
    page.overlays.append(
        dialog(page, w, h, inner, rng, shade=rng.random() < 0.4, centered=rng.random() < 0.4)
    )
    page.correct = ("custom", 0)


def disguised_ad(page: Page, rng) -> None:
    page.task = base_task(page)
    label = AD_LABEL[page.copy.domain]
    kind = pick_kind(rng, DARK_KINDS)
    if page.sidebar and rng.random() < 0.6:
        h = int(rng.integers(110, 220))
        w = page.sidebar_w - 32
        page.sidebar_extra_h = h
        page.sidebar_extra = (
            f'<a href="#" class="col btn btn-{kind}" style="width:{w}px;height:{h}px;gap:6px"'
            f' data-dg="dark"><span style="font-size:10px;opacity:.7">Advertisement</span>'
            f"{esc(label)}</a>"
        )
    else:
        h = int(rng.integers(56, 100))
        w = int(page.content_w * rng.uniform(0.35, 1.0))
        page.banner_h = h
        page.banner_html = (
            f'<a href="#" class="btn btn-{kind}" style="width:{w}px;height:{h}px;'
            f'font-size:{page.style.font_size + 4}px" data-dg="dark">{esc(label)}'
            f'<span style="font-size:10px;opacity:.6;margin-left:10px">Ad</span></a>'
        )
    page.correct = ("card_action", page.target)


def confirmshaming(page: Page, rng) -> None:
    if rng.random() < 0.5:
        page.task = "Decline the newsletter offer."
        dialog_choice(
            page,
            rng,
            "Wait! Don't miss out",
            "Join 80,000 readers and save 20%.",
            "Yes, sign me up!",
            "No thanks, I prefer paying full price",
        )
    else:
        page.task = "Cancel my premium membership."
        dialog_choice(
            page,
            rng,
            "Are you sure you want to leave?",
            "You will lose every member benefit immediately.",
            "Keep my benefits",
            "Cancel membership",
        )
