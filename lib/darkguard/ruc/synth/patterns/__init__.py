"""Deception patterns per category (paper 4.2) and the tasks of Normal pages.

Each pattern fills slots of a `Page`, sets the task and which element is correct, and marks the
deceptive element with `data-dg="dark"`. Styles, sizes, positions and order are sampled so that
no single feature (size, colour, position, being in a dialog) separates correct from deceptive.
"""

from __future__ import annotations

import numpy as np

from darkguard.ruc.synth.page import Page
from darkguard.ruc.synth.patterns.coercive import (
    app_interstitial,
    bundle_preselect,
    forced_notifications,
    signup_wall,
)
from darkguard.ruc.synth.patterns.cognitive import (
    confirmshaming,
    cookie_false_hierarchy,
    disguised_ad,
)
from darkguard.ruc.synth.patterns.common import Pattern
from darkguard.ruc.synth.patterns.emotional import (
    countdown_offer,
    fear_warning,
    social_proof_upsell,
    urgency_banner,
)
from darkguard.ruc.synth.patterns.normal import apply_normal
from darkguard.ruc.synth.patterns.spoofing import (
    encompassing_overlay,
    fake_next_step,
    fake_system_dialog,
    spoofed_continue,
)

__all__ = ["PATTERNS", "apply_deception", "apply_normal"]

PATTERNS: dict[str, dict[str, Pattern]] = {
    "Coercive Design": {
        "signup_wall": signup_wall,
        "bundle_preselect": bundle_preselect,
        "app_interstitial": app_interstitial,
        "forced_notifications": forced_notifications,
    },
    "Cognitive Manipulation": {
        "cookie_false_hierarchy": cookie_false_hierarchy,
        "disguised_ad": disguised_ad,
        "confirmshaming": confirmshaming,
    },
    "Contextual Path Spoofing": {
        "spoofed_continue": spoofed_continue,
        "encompassing_overlay": encompassing_overlay,
        "fake_next_step": fake_next_step,
        "fake_system_dialog": fake_system_dialog,
    },
    "Emotional Manipulation": {
        "urgency_banner": urgency_banner,
        "social_proof_upsell": social_proof_upsell,
        "fear_warning": fear_warning,
        "countdown_offer": countdown_offer,
    },
}


def apply_deception(page: Page, category: str, rng: np.random.Generator) -> str:
    """Apply a pattern of `category` drawn by `rng`; returns the pattern name."""
    names = sorted(PATTERNS[category])
    name = names[int(rng.integers(len(names)))]
    PATTERNS[category][name](page, rng)
    return name
