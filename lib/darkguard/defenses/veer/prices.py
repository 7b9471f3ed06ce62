"""Prices as temporal evidence (paper Appendix B.2, "verified findings"): the price a product
page showed for an item, kept for the episode (its scope is the item, not the route), and the
check at a checkout boundary that the order still charges it.

Read off the page's visible text and title only: a page that offers "Add to cart" shows one
item, named by its title; its price is the first amount after the last mention of that name.
At checkout an item's amount is the first one after its name; it agrees with the recorded price
when it is a whole number of that price (a line total), within a cent per unit.
"""

from __future__ import annotations

import re

from darkguard.defenses.veer.commitments import boundary
from darkguard.defenses.veer.state import WebState

AMOUNT = re.compile(r"[$£€¥]\s?(\d{1,6}(?:,\d{3})*(?:\.\d{2})?)")
TITLE_SEP = re.compile(r"\s+[|–—-]\s+")
MAX_UNITS = 50


def _amount(text: str) -> float | None:
    match = AMOUNT.search(text)
    return float(match.group(1).replace(",", "")) if match else None


def item_name(state: WebState) -> str:
    """The item a product page shows: its title, less the site's name."""
    return TITLE_SEP.split(state.title)[0].strip() if state.title else ""


def shown_price(state: WebState) -> tuple[str, float] | None:
    """(item, price) when the page is a product page (it offers to add one item to the cart)."""
    if not any(boundary(c) == "REVERSIBLE" for c in state.controls):
        return None
    name = item_name(state)
    where = state.text.rfind(name) if name else -1
    if where < 0:
        return None
    price = _amount(state.text[where + len(name) : where + len(name) + 400])
    return (name, price) if price else None


def charged_more(state: WebState, shown: dict[str, float]) -> list[tuple[str, float, float]]:
    """(item, shown price, amount now) for every recorded item the page charges more for."""
    raised = []
    for name, price in shown.items():
        where = state.text.find(name)
        if where < 0:
            continue
        now = _amount(state.text[where + len(name) : where + len(name) + 200])
        if now is None or now <= price + 0.005:
            continue
        units = round(now / price)
        if 1 <= units <= MAX_UNITS and abs(now - units * price) <= 0.01 * units:
            continue  # a line total of the same price
        raised.append((name, price, now))
    return raised
