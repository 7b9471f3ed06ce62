"""Emotional Manipulation: urgency cues and social influence."""

from __future__ import annotations

from darkguard.ruc.synth.page import Page, button
from darkguard.ruc.synth.patterns.common import (
    base_task,
    countdown,
    dialog_choice,
    say,
    two_buttons,
    with_suffix,
)
from darkguard.ruc.synth.widgets import (
    DARK_KINDS,
    pick_kind,
    strip,
)


def urgency_banner(page: Page, rng) -> None:
    page.task = base_task(page)
    h = int(rng.integers(60, 100))
    message, offer = say(page, rng, "urgency")
    w = min(int(rng.integers(150, 340)), page.content_w // 2)
    page.banner_h = h
    page.banner_html = strip(
        page,
        message.format(time=countdown(rng)),
        button(offer, pick_kind(rng, DARK_KINDS), w, h - 20, "dark"),
        h,
        "danger",
    )
    page.correct = ("card_action", page.target)


def social_proof_upsell(page: Page, rng) -> None:
    suffix, label = say(page, rng, "social_proof")
    page.task = with_suffix(base_task(page), suffix)
    n = int(rng.integers(120, 4000))
    offer, _, correct = say(page, rng, "upsell")
    dark = label.format(n=f"{n:,}", offer=offer)
    page.card_actions[page.target] = two_buttons(
        page, rng, dark, correct, page.inner_w, page.style.button_h
    )
    page.correct = ("custom", 0)


def fear_warning(page: Page, rng) -> None:
    page.task = base_task(page)
    message, label = say(page, rng, "fear")
    h = int(rng.integers(60, 100))
    w = min(int(rng.integers(140, 300)), page.content_w // 2)
    page.banner_h = h
    page.banner_html = strip(
        page, message, button(label, pick_kind(rng, DARK_KINDS), w, h - 20, "dark"), h, "danger"
    )
    page.correct = ("card_action", page.target)


def countdown_offer(page: Page, rng) -> None:
    suffix, title, body, dark, correct = say(page, rng, "countdown")
    page.task = with_suffix(base_task(page), suffix)
    dialog_choice(page, rng, title.format(time=countdown(rng)), body, dark, correct)
