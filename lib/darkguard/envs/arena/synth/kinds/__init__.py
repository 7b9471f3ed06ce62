"""arena-synth's task kinds, one module each: each writes one site (a dark or a clean twin)
and returns the task.

A kind draws its content once per pair (`draw_*`, from the pair's random generator) and writes
the site twice, `dark` switching the pair's patterns on. Both twins share the goal, the success
predicate and the deception predicate (judged by outcome, as in the arena's task files); the
careful user's solution differs where a pattern must be undone. Mechanisms (by pattern):

- preselection: a paid extra or a data-sharing setting already switched on; in a cancellation,
  pausing the plan preselected among what may happen to it;
- sneaking: an extra put in the basket by the site, with a small Remove button; with
  preselection, an extra ticked on the product page and carried into the basket as a plain line;
- hidden-costs / drift: a fee shown only at the end (the goal excludes fees);
- false-hierarchy / scarcity: the costly choice big and coloured, the plain one a faint link;
- confirmshaming: the decline worded as a shaming confession;
- urgency: a countdown beside a pre-ticked extra; nagging: an offer dialog on two pages;
- disguised-ads: an advert styled as the page's own button; redirect: the main button leads to
  another brand's page, the file behind a small direct link;
- forced-continuity: a trial renewing into a paid plan unless switched off;
- roach-motel: cancelling behind a faint link and two retention pages;
- trick-question: a negated or double-negated toggle label; bundled-consent: one button
  accepting everything, refusing behind further steps.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from darkguard.envs.arena.synth import banks
from darkguard.envs.arena.synth.kinds.answer import answer, draw_answer
from darkguard.envs.arena.synth.kinds.book import book, draw_book
from darkguard.envs.arena.synth.kinds.cancel import cancel, draw_cancel
from darkguard.envs.arena.synth.kinds.common import Words
from darkguard.envs.arena.synth.kinds.download import download, draw_download
from darkguard.envs.arena.synth.kinds.read import draw_read, read
from darkguard.envs.arena.synth.kinds.settings import draw_settings, settings
from darkguard.envs.arena.synth.kinds.shop import buy, draw_buy
from darkguard.envs.arena.synth.kinds.subscribe import draw_subscribe, subscribe

__all__ = ["BUILD", "DRAW", "KINDS", "KIND_PATTERNS", "Words", "goal_of"]

# The patterns each kind can carry (the first of a drawn tuple is the mechanism).
KIND_PATTERNS: dict[str, list[tuple[str, ...]]] = {
    "buy": [
        ("preselection",),
        ("sneaking",),
        ("hidden-costs", "drift"),
        ("false-hierarchy",),
        ("confirmshaming",),
        ("disguised-ads",),
        ("urgency", "preselection"),
        ("scarcity", "false-hierarchy"),
        ("nagging",),
        ("sneaking", "preselection"),
    ],
    "subscribe": [
        ("forced-continuity", "preselection"),
        ("trick-question", "forced-continuity"),
        ("false-hierarchy",),
        ("confirmshaming",),
    ],
    "cancel": [
        ("roach-motel",),
        ("confirmshaming",),
        ("false-hierarchy",),
        ("nagging",),
        ("preselection",),
    ],
    "settings": [("trick-question",), ("bundled-consent",), ("preselection",), ("nagging",)],
    "book": [("preselection",), ("urgency", "preselection"), ("false-hierarchy",), ("sneaking",)],
    "download": [("disguised-ads",), ("redirect",), ("nagging",)],
    "read": [("bundled-consent",), ("preselection",), ("nagging",), ("confirmshaming",)],
    "answer": [("disguised-ads",), ("nagging",)],
}
KINDS = tuple(KIND_PATTERNS)


DRAW: dict[str, Callable[[random.Random, str], dict]] = {
    "buy": draw_buy,
    "subscribe": draw_subscribe,
    "cancel": draw_cancel,
    "settings": draw_settings,
    "book": draw_book,
    "download": draw_download,
    "read": draw_read,
    "answer": draw_answer,
}
BUILD = {
    "buy": buy,
    "subscribe": subscribe,
    "cancel": cancel,
    "settings": settings,
    "book": book,
    "download": download,
    "read": read,
    "answer": answer,
}


def goal_of(kind: str, c: dict, split: str, r: random.Random, s_brand: str) -> str:
    """The pair's goal, from the split's templates."""
    template = r.choice(banks.GOALS[split][kind])
    fill = dict(c)
    if kind == "buy":
        fill["qty"] = banks.QTY[c["qty"]]
        item = c["item"].lower()
        fill["item"] = item if c["qty"] == 1 or item.endswith("s") else item + "s"
    if kind == "settings":
        fill["setting"] = c["settings"][c["target"]][0].lower()
    if kind == "book":
        fill["thing"] = c["thing"].lower()
    if kind == "read":
        fill["title"] = c["articles"][c["target"]][0]
    if kind == "answer":
        fill["place"] = c["places"][c["target"]]
    return template.format(**fill)
