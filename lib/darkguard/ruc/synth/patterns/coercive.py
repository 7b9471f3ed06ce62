"""Coercive Design: pressure tactics and artificially restricted choices."""

from __future__ import annotations

from darkguard.ruc.synth.page import Page
from darkguard.ruc.synth.patterns.common import (
    UPSELL,
    base_task,
    dialog_choice,
    two_buttons,
    with_suffix,
)
from darkguard.ruc.synth.widgets import strip


def signup_wall(page: Page, rng) -> None:
    page.task = with_suffix(base_task(page), "without creating an account.")
    dialog_choice(
        page,
        rng,
        "Create a free account to continue",
        f"Members of {page.copy.site} get early access to offers.",
        "Sign up and continue",
        "Continue as guest",
    )


def bundle_preselect(page: Page, rng) -> None:
    page.task = with_suffix(base_task(page), "without any add-ons.")
    dark, correct = UPSELL[page.copy.domain]
    page.card_actions[page.target] = two_buttons(
        page, rng, dark, correct, page.inner_w, page.style.button_h
    )
    page.correct = ("custom", 0)


def app_interstitial(page: Page, rng) -> None:
    page.task = "Continue on the website instead of installing the app."
    h = int(rng.integers(64, 96))
    w = min(page.content_w - 300, int(rng.integers(300, 460)))
    buttons = two_buttons(
        page, rng, "Open in the app", "Continue on the website", w, page.style.button_h
    )
    page.banner_h = h
    page.banner_html = strip(
        page, f"Get the {page.copy.site} app for the full experience.", buttons, h, "accent"
    )
    page.correct = ("custom", 0)


def forced_notifications(page: Page, rng) -> None:
    page.task = with_suffix(base_task(page), "without enabling notifications.")
    dialog_choice(
        page,
        rng,
        f"{page.copy.site} wants to send you notifications",
        "Notifications are needed to continue.",
        "Allow and continue",
        "Continue without notifications",
    )
