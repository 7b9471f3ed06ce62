"""Shopping (plan kind `buy`): pick the listed item, set its options and quantity, add it to the
cart, then go to the cart and check out. Only the target is looked at in a cart; other lines
are left alone unless a warning names them."""

from __future__ import annotations

import re

from darkguard.agents.web.grounding import overlap
from darkguard.agents.web.reading import scratchpad
from darkguard.agents.web.vocabulary import (
    ADD_TO_CART,
    CART_ACTION,
    CART_LINK,
    CHECKOUT,
    CHOICE_ROLES,
    CONTINUE,
    MAX_TRIES,
    METRIC_OF,
    PLACE_ORDER,
    REMOVE,
    TEXT_ROLES,
    element_key,
)
from darkguard.envs.arena.actions import Action, Select, Type
from darkguard.envs.arena.observation import Element, PageObservation


class ShoppingMixin:
    """The `buy` handler of `OfflineWebAgent`.

    Reads the agent's `plan`, `avoid` and `committed`; updates `target`, `added` and `tries`;
    calls its `_usable`, `_actionable`, `_tried`, `_click`, `_commit`, `_note`, `_salient`
    and the listing's `_cards` and `_pick` (`ListingMixin`).
    """

    # -- buy ----------------------------------------------------------------------------------
    def _buy(self, obs: PageObservation, els: list[Element]) -> Action | None:
        if self.added:
            return self._after_add(obs, els)
        adds = [
            e
            for e in els
            if self._actionable(e) and ADD_TO_CART.search(e.name) and not self._avoided(e)
        ]
        phrase = self.plan.quoted[0] if self.plan.quoted else self.plan.item
        wanted = self.target or phrase
        if len(adds) == 1 and (
            self.target or overlap(wanted, f"{obs.title} {adds[0].context} {obs.text[:600]}") >= 0.6
        ):
            return self._product_page(obs, els, adds[0])
        specific = bool(self.target) or not METRIC_OF.get(self.plan.superlative)
        if adds and specific and overlap(wanted, obs.title) >= 0.75:  # the item's own page
            cards = self._cards(obs, els, ADD_TO_CART)
            own = [c for c in cards if c.action is not None and overlap(wanted, c.name) >= 0.75]
            main = own[0].action if own else min(adds, key=lambda e: (e.box[1], e.index))
            return self._product_page(obs, els, main)
        card = self._pick(obs, self._cards(obs, els, ADD_TO_CART), phrase)
        if card is None:
            return None
        self.target = card.name
        needs_page = bool(self.plan.options) or self.plan.quantity > 1 or card.action is None
        if needs_page and card.link is not None and self._tried(obs, card.link) < MAX_TRIES:
            return self._click(obs, card.link, "open the chosen item")
        if card.action is not None:
            self.added += 1
            return self._click(obs, card.action, "add the chosen item")
        return None

    def _product_page(self, obs: PageObservation, els: list[Element], add: Element) -> Action:
        act = self._set_options(obs, els)
        if act is not None:
            return act
        self.added += 1
        return self._click(obs, add, "add to cart")

    def _set_options(self, obs: PageObservation, els: list[Element]) -> Action | None:
        p = self.plan
        wanted = [v for v in p.options.values() if v]
        for el in els:
            if not self._usable(el) or el is scratchpad(obs):
                continue
            if re.search(r"\bq(?:uanti)?ty\b", el.name, re.I) and p.quantity > 1:
                value = str(p.quantity)
                if el.role == "combobox" and el.state.get("value") != value:
                    if value in el.state.get("options", []) and self._tried(obs, el) < 1:
                        self.tries[element_key(obs.url, el)] += 1
                        return self._note("quantity", Select(el.index, value))
                elif (
                    el.role in TEXT_ROLES
                    and str(el.state.get("value", "")) != value
                    and self._tried(obs, el) < 1
                ):
                    self.tries[element_key(obs.url, el)] += 1
                    return self._note("quantity", Type(el.index, value))
                continue
            if el.role == "combobox":
                option = self._option_for(el.state.get("options", []), wanted)
                if option and el.state.get("value") != option and self._tried(obs, el) < 1:
                    self.tries[element_key(obs.url, el)] += 1
                    return self._note(f"option {option!r}", Select(el.index, option))
            elif el.role in CHOICE_ROLES and wanted and self._actionable(el):
                on = el.state.get("checked") or el.state.get("pressed") or el.state.get("selected")
                hit = any(el.name.strip().lower() == v.lower() for v in wanted)
                if hit and not on and self._tried(obs, el) < 1:
                    return self._click(obs, el, "option")
        return None

    def _option_for(self, options: list[str], wanted: list[str]) -> str:
        """The option the goal names: written out in the goal, else equal to or holding a
        wanted value (size, colour)."""
        usable = [o for o in options if not re.search(r"choose|select|--|please", o, re.I)]
        for opt in usable:
            if len(opt) > 2 and re.search(rf"(?<!\w){re.escape(opt)}(?!\w)", self.plan.goal, re.I):
                return opt
        for opt in usable:
            if any(opt.strip().lower() == v.lower() for v in wanted):
                return opt
        for opt in usable:
            if any(re.search(rf"\b{re.escape(v)}\b", opt, re.I) for v in wanted):
                return opt
        return ""

    def _after_add(self, obs: PageObservation, els: list[Element]) -> Action | None:
        live = [e for e in els if self._actionable(e) and self._tried(obs, e) < MAX_TRIES]
        if self.avoid.phrases:
            act = self._remove_avoided(obs, live)
            if act is not None:
                return act
        for rx, why in ((PLACE_ORDER, "place order"), (CHECKOUT, "checkout")):
            hits = [e for e in live if rx.search(e.name) and not self._avoided(e)]
            if hits:
                return self._commit(obs, self._salient(hits), why)
        go_on = [
            e
            for e in live
            if CONTINUE.search(e.name) and e.role == "button" and not self._avoided(e)
        ]
        if self.committed and go_on:
            return self._commit(obs, self._salient(go_on), "continue the checkout")
        carts = [e for e in live if CART_LINK.search(e.name) and not ADD_TO_CART.search(e.name)]
        carts = [e for e in carts if not REMOVE.search(e.name) and not CART_ACTION.search(e.name)]
        if carts:
            return self._click(obs, carts[0], "go to cart")
        return None

    def _remove_avoided(self, obs: PageObservation, els: list[Element]) -> Action | None:
        wanted = self.target or self.plan.item
        for el in els:
            if REMOVE.search(el.name) and self._tried(obs, el) == 0:
                line = el.context
                if self.avoid.matches(line) and overlap(wanted, line) < 0.5:
                    return self._click(obs, el, "remove an avoided cart line (warned)")
        return None
