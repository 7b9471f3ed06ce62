"""Coercive Design: pressure tactics and artificially restricted choices."""

from __future__ import annotations

from darkguard.ruc.synth.page import Page
from darkguard.ruc.synth.patterns.common import (
    base_task,
    dialog_choice,
    say,
    two_buttons,
    with_suffix,
)
from darkguard.ruc.synth.widgets import strip


def signup_wall(page: Page, rng) -> None:
    suffix, title, body, dark, correct = say(page, rng, "signup_wall")
    page.task = with_suffix(base_task(page), suffix)
    dialog_choice(page, rng, title, body.format(site=page.copy.site), dark, correct)


def bundle_preselect(page: Page, rng) -> None:
    page.task = with_suffix(base_task(page), say(page, rng, "bundle_suffix"))
    offer, price, correct = say(page, rng, "upsell")
    page.card_actions[page.target] = two_buttons(
        page, rng, f"{offer} ({price})", correct, page.inner_w, page.style.button_h
    )
    page.correct = ("custom", 0)


def app_interstitial(page: Page, rng) -> None:
    task, message, dark, correct = say(page, rng, "app_interstitial")
    page.task = task
    h = int(rng.integers(64, 96))
    w = min(page.content_w - 300, int(rng.integers(300, 460)))
    buttons = two_buttons(page, rng, dark, correct, w, page.style.button_h)
    page.banner_h = h
    page.banner_html = strip(page, message.format(site=page.copy.site), buttons, h, "accent")
    page.correct = ("custom", 0)


def forced_notifications(page: Page, rng) -> None:
    suffix, title, body, dark, correct = say(page, rng, "forced_notifications")
    page.task = with_suffix(base_task(page), suffix)
    dialog_choice(page, rng, title.format(site=page.copy.site), body, dark, correct)
