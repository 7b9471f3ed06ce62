"""Listed things: the cards of a listing (a name, a link, an action button, what it says) and
the one the goal asks for, by its superlative (cheapest, best rated, ...) or by its name."""

from __future__ import annotations

import re
from dataclasses import dataclass

from darkguard.agents.web.grounding import contains_phrase, overlap
from darkguard.agents.web.reading import metrics
from darkguard.agents.web.vocabulary import CONTINUE, METRIC_OF, REMOVE
from darkguard.envs.arena.observation import Element, PageObservation


@dataclass(frozen=True)
class Card:
    """One listed thing: its name, its link, its action button, what it says."""

    name: str
    link: Element | None
    action: Element | None
    text: str
    order: int


def _first_line_name(text: str) -> str:
    return re.split(r"\s[$€£]|\s\d|\s·|\s\|", text.strip(), maxsplit=1)[0][:80]


class ListingMixin:
    """Listed things for `OfflineWebAgent`.

    Reads the agent's `plan`, `avoid`, `grounder` and `searched`; calls its `_actionable`
    and `_avoided`.
    """

    # -- listed things ------------------------------------------------------------------------
    def _cards(self, obs: PageObservation, els: list[Element], action_rx) -> list[Card]:
        actions = [e for e in els if self._actionable(e) and action_rx.search(e.name)]
        links = [
            e
            for e in els
            if e.role in ("link", "generic", "button")
            and self._actionable(e)
            and len(e.name) >= 3
            and not action_rx.search(e.name)
            and not REMOVE.search(e.name)
            and not CONTINUE.search(e.name)
        ]
        cards: list[Card] = []
        if actions:
            for i, act in enumerate(actions):
                link = self._card_link(act, links)
                name = link.name if link else _first_line_name(act.context)
                text = act.context + (" " + link.context if link else "")
                cards.append(Card(name, link, act, text, i))
            return cards
        for i, link in enumerate(links):
            if metrics(link.context) and not link.in_dialog:
                cards.append(Card(link.name, link, None, link.context or link.name, i))
        return cards

    @staticmethod
    def _card_link(act: Element, links: list[Element]) -> Element | None:
        named = [e for e in links if e.name.lower() in act.context.lower()]
        pool = named or links
        ax, ay, aw, _ = act.box

        def distance(e: Element) -> float:
            x, y, w, _ = e.box
            apart = max(0, max(x, ax) - min(x + w, ax + aw))  # horizontal gap
            above = ay - y
            return (abs(above) if above >= -20 else 1e4) + 3 * apart

        best = min(pool, key=distance, default=None)
        return best if best is not None and distance(best) < 1e4 else None

    def _relevant(self, obs: PageObservation, phrase: str) -> bool:
        if not phrase:
            return True
        where = f"{obs.title} {re.sub(r'[/_?=&.-]+', ' ', obs.url)}"
        return overlap(phrase, where) >= 0.5 or phrase.lower() in self.searched

    def _pick(self, obs: PageObservation, cards: list[Card], phrase: str) -> Card | None:
        """The card the goal asks for: by its superlative, else by its name."""
        cards = [
            c
            for c in cards
            if not self.avoid.matches_context(c.text) and not (c.action and self._avoided(c.action))
        ]
        if not cards:
            return None
        metric = METRIC_OF.get(self.plan.superlative)
        if metric is not None:
            if not self._relevant(obs, phrase):
                return None
            titled = overlap(phrase, obs.title) >= 0.5
            about = [c for c in cards if contains_phrase(c.text, phrase)] if phrase else []
            pool = about if len(about) >= 2 and not titled else cards  # search hits: on topic
            field, pick = metric
            valued = [(metrics(c.text).get(field), c) for c in pool]
            valued = [(v, c) for v, c in valued if v is not None]
            if valued:
                target = pick(v for v, _ in valued)
                return next(c for v, c in valued if v == target)
        if not phrase:
            return None
        scores = self.grounder.scores(phrase, [c.name for c in cards])
        ranked = sorted(
            ((float(s) + 0.3 * overlap(phrase, c.text), -c.order, c) for s, c in zip(scores, cards,
             strict=True)), key=lambda t: (t[0], t[1]), reverse=True)  # fmt: skip
        return ranked[0][2] if ranked[0][0] >= 0.75 else None
