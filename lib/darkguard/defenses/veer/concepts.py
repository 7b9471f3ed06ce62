"""What a text commits the user to, read by meaning: MiniLM sentence embeddings of the text against
short descriptions of each kind of commitment and of the ordinary steps of using a site.

A kind is read when the text lies closer to one of its descriptions than to any ordinary step, by
at least `MARGIN`, and close enough in itself (`FLOOR`). The descriptions say what each kind IS
in general words (what sharing data, a marketing opt-in or a paid add-on mean to a user); none is
taken from a site this project evaluates on. `MARGIN` and `FLOOR` are chosen on arena-synth's
`dev` controls (`benchmarks/bench_veer_commitments.py`); cosines are rounded to three decimals so
a decision does not rest on a CPU's last float bits.

Without the encoder (the wheel missing) nothing is read as material: a defense built on it then
stands aside rather than block by guesswork, and warns once.
"""

from __future__ import annotations

import re
import warnings
from functools import lru_cache

import numpy as np

from darkguard.agents.web.grounding import Grounder

# kind -> what a commitment of that kind is, in a user's general words
CONCEPTS: dict[str, tuple[str, ...]] = {
    "data_sharing": (
        "share my personal data with other companies",
        "let third parties use my information",
        "allow my activity and location to be tracked and collected",
        "sell or disclose my details to advertisers",
        "use my data for research and analysis by others",
    ),
    "marketing": (
        "send me promotional emails and special offers",
        "sign me up for the newsletter",
        "receive marketing messages by text or phone",
        "get news about deals and discounts",
    ),
    "consent": (
        "accept all cookies",
        "allow personalised advertising and analytics",
        "agree to tracking for targeted ads",
    ),
    "add_on": (
        "add an optional extra to my order for an additional fee",
        "include a protection plan or extended warranty",
        "add insurance or cover for an extra charge",
        "pay more for an upgraded option or extra service",
    ),
    "payment": (
        "make a donation to charity",
        "add a tip",
        "give extra money to a good cause",
    ),
    "subscription": (
        "start a recurring paid subscription",
        "renew my plan automatically every period",
        "join a paid membership",
        "start a free trial that turns into a paid plan",
        "keep paying for my current plan",
        "stay subscribed instead of leaving",
        "accept a discount offer to stay",
        "pause my subscription instead of cancelling it",
    ),
    "install": (
        "install an app or browser extension",
        "download and install extra software",
        "add the app to my home screen",
    ),
}
# the ordinary steps of using a site: a text closest to one of these commits nothing by itself
ORDINARY: tuple[str, ...] = (
    "view the details",
    "go to the next step",
    "continue",
    "go back",
    "choose a size, colour or quantity",
    "add the item to my basket",
    "choose a delivery option",
    "pick a date and a time",
    "search",
    "open my account",
    "read the article",
    "save my changes",
    "confirm",
    "cancel my subscription",
    "end my membership",
    "no thanks, decline",
    "close this window",
    "remove this item",
    "log in to my account",
    "download the file",
    "help and contact",
    "a product name and its price",
    "home page",
    "settings and preferences",
    "reminders and updates about my own orders and appointments",
    "pay for my order",
)
# what a task asks the site to do, in a user's general words: the authorized terminal outcome a
# task clause stands for when no verb rule names it (`authorization`), or information only ("")
TASK_OUTCOMES: dict[str, tuple[str, ...]] = {
    "purchase": (
        "buy a product",
        "order an item and pay for it",
        "put something in my basket and check out",
    ),
    "subscription": (
        "start a subscription or membership",
        "begin a free trial of a plan",
        "sign up for a plan",
        "upgrade to a better plan",
    ),
    "booking": (
        "book an appointment",
        "reserve a table, a room or a seat",
        "schedule a visit for a date and time",
    ),
    "cancellation": (
        "cancel my subscription",
        "end my membership",
        "close my account and stop paying",
    ),
    "setting": (
        "turn a setting on or off",
        "change my privacy or notification preferences",
        "stop the site sending me messages",
    ),
    "": (
        "find a piece of information on the site",
        "read an article",
        "download a file",
        "look up an opening time, a price or an address",
        "answer a question",
    ),
}
# what a dialog's or an offer's answer does, in general words: take it, turn it down, or look
# further before choosing (`read_intent`, when no word rule of `commitments.intent` names it)
INTENTS: dict[str, tuple[str, ...]] = {
    "accept": (
        "yes, add it",
        "yes, I accept",
        "agree and continue",
        "include it as well",
        "I'll take it",
    ),
    "decline": (
        "no thanks",
        "reject all",
        "only the strictly necessary ones",
        "continue without it",
        "I'm not interested",
    ),
    "more": (
        "show more options",
        "manage my choices",
        "choose which ones to allow",
        "customise the settings",
        "let me pick",
    ),
}
# chosen on arena-synth dev controls (benchmarks/bench_veer_commitments.py --grid): the best
# balanced accuracy among settings that flag at most 5% of a careful user's clicks
MARGIN = 0.0
FLOOR = 0.30
TEXT_CHARS = 100  # what is read of a text (names are short; contexts are cut)
# a task clause names an outcome when its closest description is that close (set on arena-synth
# dev tasks: every outcome clause above it, every question
# and information request closest to information)
OUTCOME_FLOOR = 0.35
# an answer's intent is read by meaning when its best description is this close and this far ahead
# (set on the answers no word rule names among arena-synth dev and valid controls: no accept or
# progress step is read as either, the closest a yes-answer read as decline by 0.094)
INTENT_FLOOR = 0.5
INTENT_MARGIN = 0.1

_GROUNDER = Grounder()
JOINERS = re.compile(r"\s+(?:and|with|plus|&)\s+|[,;:(]\s*|\s+[-–]\s+", re.I)
FIELD_NOTE = re.compile(r"\s*\((?:optional|required|if any)\)|\s*\*\s*$", re.I)
WITHOUT = re.compile(r"\s*\b(?:without|minus|excluding)\b", re.I)
# a price said to come on top: "+£4", "+ 2.99 EUR", "only £8 more", "for $3 extra"
ADDED_PRICE = re.compile(
    r"\+\s?[£$€¥]\s?\d|\+\s?\d+(?:[.,]\d\d)?\s?(?:[£$€¥]|usd|eur|gbp)|"
    r"[£$€¥]\s?\d+(?:[.,]\d\d)?\s+(?:more|extra)\b",
    re.I,
)


@lru_cache(maxsize=1)
def _anchors() -> tuple[np.ndarray, list[str], np.ndarray] | None:
    texts = [d for ds in CONCEPTS.values() for d in ds]
    vectors = _GROUNDER.encode(texts + list(ORDINARY))
    if not vectors:
        warnings.warn("MiniLM unavailable: no commitment is read by meaning", stacklevel=3)
        return None
    kinds = [k for k, ds in CONCEPTS.items() for _ in ds]
    return (
        np.stack([vectors[t] for t in texts]),
        kinds,
        np.stack([vectors[t] for t in ORDINARY]),
    )


def _anchors_of(groups: dict[str, tuple[str, ...]]) -> tuple[np.ndarray, list[str]] | None:
    """The descriptions' embeddings, stacked, and the group each belongs to (None without the
    encoder)."""
    texts = [d for ds in groups.values() for d in ds]
    vectors = _GROUNDER.encode(texts)
    if not vectors:
        return None
    return np.stack([vectors[t] for t in texts]), [k for k, ds in groups.items() for _ in ds]


@lru_cache(maxsize=1)
def _outcome_anchors() -> tuple[np.ndarray, list[str]] | None:
    return _anchors_of(TASK_OUTCOMES)


@lru_cache(maxsize=1)
def _intent_anchors() -> tuple[np.ndarray, list[str]] | None:
    return _anchors_of(INTENTS)


@lru_cache(maxsize=65536)
def intent_scores(text: str) -> tuple[tuple[str, float], ...]:
    """Each intent's best cosine to `text`, rounded to three decimals, best first."""
    text = " ".join(text.split())[:TEXT_CHARS]
    anchors = _intent_anchors()
    if not text or anchors is None:
        return ()
    vectors, kinds = anchors
    best: dict[str, float] = {}
    for kind, cos in zip(kinds, vectors @ _GROUNDER.encode([text])[text], strict=True):
        best[kind] = max(best.get(kind, -1.0), round(float(cos), 3))
    return tuple(sorted(best.items(), key=lambda kv: (-kv[1], kv[0])))


def read_intent(text: str) -> str:
    """accept | decline | more for an answer's words by meaning, "" when none is close enough
    (`INTENT_FLOOR`) and ahead of the others (`INTENT_MARGIN`)."""
    ranked = intent_scores(text)
    if len(ranked) < 2:
        return ""
    (kind, cos), (_, second) = ranked[0], ranked[1]
    return kind if cos >= INTENT_FLOOR and cos - second >= INTENT_MARGIN else ""


def read_outcome(clause: str) -> str:
    """The terminal outcome kind a task clause asks for by meaning (purchase, subscription,
    booking, cancellation, setting), "" for information only or when nothing is close enough."""
    clause = " ".join(clause.split())[:TEXT_CHARS]
    anchors = _outcome_anchors()
    if not clause or anchors is None:
        return ""
    vectors, kinds = anchors
    cosines = [round(float(c), 3) for c in vectors @ _GROUNDER.encode([clause])[clause]]
    best = max(range(len(kinds)), key=lambda i: (cosines[i], -i))
    return kinds[best] if cosines[best] >= OUTCOME_FLOOR else ""


def plainly_ordinary(text: str) -> bool:
    """Whether some clause of `text` is an ordinary step, close enough in itself (`FLOOR`) and
    closer than to any kind of commitment ("Collect from the shop (free)"): such a control says
    what it does, and the text around it is not read in its place."""
    for part in clauses(text):
        ranked = scores(part)
        if ranked and ranked[0][0] == "" and ranked[0][1] >= FLOOR:
            return True
    return False


@lru_cache(maxsize=65536)
def scores(text: str) -> tuple[tuple[str, float], ...]:
    """Each kind's best cosine to `text`, and the ordinary steps' best (as kind ""), rounded to
    three decimals, best first."""
    text = " ".join(text.split())[:TEXT_CHARS]
    anchors = _anchors()
    if not text or anchors is None:
        return ()
    concept, kinds, ordinary = anchors
    vec = _GROUNDER.encode([text])[text]
    best: dict[str, float] = {}
    for kind, cos in zip(kinds, concept @ vec, strict=True):
        best[kind] = max(best.get(kind, -1.0), round(float(cos), 3))
    best[""] = round(float((ordinary @ vec).max()), 3)
    return tuple(sorted(best.items(), key=lambda kv: (-kv[1], kv[0])))


def similarity(a: str, b: str) -> float:
    """Cosine of two texts' embeddings, rounded to three decimals (0 without the encoder)."""
    a, b = " ".join(a.split())[:TEXT_CHARS], " ".join(b.split())[:TEXT_CHARS]
    vectors = _GROUNDER.encode([a, b]) if a and b else {}
    return round(float(vectors[a] @ vectors[b]), 3) if vectors else 0.0


def clauses(text: str) -> list[str]:
    """The text and, when it joins several things ("Save changes and allow partners", "Next
    with cancellation cover"), each of them."""
    text = WITHOUT.split(text)[0]  # what follows "without" is declined, not committed
    text = FIELD_NOTE.sub("", text).strip()  # "(optional)" says how to fill a field, not what
    parts = [p.strip() for p in JOINERS.split(text) if p and p.strip()]
    return [text, *parts] if len(parts) > 1 else [text]


def read_kind(text: str, margin: float | None = None, floor: float | None = None) -> str:
    """The commitment kind `text` (or one of its clauses) stands for, "" when none: the kind
    whose lead over the ordinary steps is largest (see the module docstring). A label that adds a
    price ("+£4", "+ $2.99") is a paid extra unless its words say which other kind it is."""
    margin = MARGIN if margin is None else margin
    floor = FLOOR if floor is None else floor
    best, lead = "", 0.0
    for part in clauses(text):
        ranked = scores(part)
        if not ranked:
            continue
        ordinary = dict(ranked)[""]
        kind, cos = next(((k, c) for k, c in ranked if k), ("", 0.0))
        if kind and cos >= floor and cos - ordinary >= margin and cos - ordinary > lead:
            best, lead = kind, cos - ordinary
    if not best and ADDED_PRICE.search(WITHOUT.split(text)[0]):
        return "add_on"
    return best
