"""Navigation: where the agent goes when a page offers nothing for the goal, and its fallback.

Links and buttons are scored against the plan's phrases (`grounding`); a search box gets the
goal's queries, most specific first; with nothing to follow: "Continue" / "Next", the control
the element scorer ranks first for the goal (`generic`), going back, or stopping.
"""

from __future__ import annotations

import re

from darkguard.agents.web.grounding import STOPWORDS
from darkguard.agents.web.reading import scratchpad, write_answer
from darkguard.agents.web.vocabulary import (
    ADD_TO_CART,
    CONTINUE,
    DANGER,
    MAX_TRIES,
    PLAN_WORDS,
    REMOVE,
    SEARCH,
    STRONG,
    WEAK,
)
from darkguard.envs.arena.actions import Action, Back, Stop, Type
from darkguard.envs.arena.observation import Element, PageObservation


def stem_plural(word: str) -> str:
    """'pillows' -> 'pillow', 'batteries' -> 'battery'; other words as they are."""
    low = word.lower()
    if len(low) > 4 and low.endswith("ies"):
        return word[:-3] + "y"
    if len(low) > 3 and low.endswith("s") and not low.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


class NavigationMixin:
    """Navigation and the fallback for `OfflineWebAgent`.

    Reads the agent's `plan`, `grounder`, `names`, `added`, `place_seen` and `best`; updates
    `searched`, `backs` and `answer`; calls its `_usable`, `_actionable`, `_avoided`,
    `_tried`, `_click`, `_note`, `_salient` and `_final`.
    """

    # -- navigation ---------------------------------------------------------------------------
    def _nav_ok(self, obs: PageObservation, el: Element) -> bool:
        if not (self._actionable(el) and el.name.strip()) or el.in_dialog:
            return False
        if DANGER.search(el.name) or REMOVE.search(el.name) or ADD_TO_CART.search(el.name):
            return False
        if self.plan.kind != "cancel" and re.search(r"\bcancel\b", el.name, re.I):
            return False
        return not self._avoided(el) and self._tried(obs, el) < MAX_TRIES

    def _queries(self) -> list[str]:
        """Search queries, most specific first; shorter ones are tried when a search fails:
        without 'by <artist>', content words with a singular last word, from the first
        capitalised word (the brand) on, the brand alone."""
        p = self.plan
        out = list(p.quoted)
        if p.kind in ("answer", "buy", "collect") and p.item:
            item = p.item
            words = [w for w in re.findall(r"[\w'&/-]+", item) if w.lower() not in STOPWORDS]
            if words:
                words[-1] = stem_plural(words[-1])
            caps = next((i for i, w in enumerate(words) if w[:1].isupper()), None)
            out += [item, re.sub(r"\s+by\s+.*$", "", item, flags=re.I), " ".join(words)]
            if caps is not None:
                out += [" ".join(words[caps:]), words[caps]]
        if p.topic:
            out.append(p.topic)
        if p.kind == "answer" and not p.item:
            out.append(p.attribute)
        return [q for q in dict.fromkeys(q.strip() for q in out) if q]

    def _navigate(self, obs: PageObservation, phrases: tuple[str, ...] = ()) -> Action | None:
        phrases = phrases or self._nav_phrases()
        cands = [e for e in obs.elements if self._nav_ok(obs, e)]
        box = self._search_box(obs)
        query = next((q for q in self._queries() if q.lower() not in self.searched), "")
        if not cands and box is None:
            return None
        best, score = None, 0.0
        if cands:
            names = [e.name for e in cands]
            scores = self.grounder.best_scores(phrases, names)
            whole = self.grounder.scores(self.plan.goal, names) if self.plan.goal else scores * 0
            for el, s, w in zip(cands, scores, whole, strict=True):
                value = max(float(s), 0.8 * float(w)) - 0.15 * self.names[el.name]
                value -= 0.25 * self._tried(obs, el)
                if value > score:
                    best, score = el, value
        if best is not None and score >= STRONG:
            return self._click(obs, best, f"navigate ({score:.2f})")
        if box is not None and query:
            self.searched.add(query.lower())
            return self._note(f"search {query!r}", Type(box.index, query, enter=True))
        if best is not None and score >= WEAK:
            return self._click(obs, best, f"navigate ({score:.2f})")
        return None

    def _nav_phrases(self) -> tuple[str, ...]:
        p = self.plan
        if p.kind == "answer" and p.places and not self.place_seen:
            return (*p.places, *((p.topic,) if p.topic else ()))
        extra: list[str] = []
        if p.kind == "buy" and self.added:
            extra = ["cart", "checkout"]
        elif p.kind == "book":
            noun = re.search(r"\b(appointment|visit|seat|table|ticket|room|session|class|train|"
                             r"flight|reservation)\b", p.goal, re.I)  # fmt: skip
            if noun:
                extra = [f"book {noun.group(1)}", f"schedule {noun.group(1)}"]
        elif p.kind == "settings":
            extra = [f"{w} settings" for w in ("privacy", "account")][:1]
        elif p.kind == "signup":
            core = PLAN_WORDS.sub("", p.item).strip()
            extra = [core, "plans", "pricing", "upgrade"]
        return (*p.phrases, *extra) if not self.added else (*extra, *p.phrases)

    def _search_box(self, obs: PageObservation) -> Element | None:
        pad = scratchpad(obs)
        for el in obs.elements:
            if el is pad or not self._usable(el) or el.in_dialog:
                continue
            if el.role == "searchbox" or (el.role == "textbox" and SEARCH.search(el.name)):
                return el
        return None

    def _fallback(self, obs: PageObservation, scope: list[Element]) -> Action:
        buttons = [
            e
            for e in scope
            if self._actionable(e)
            and e.name
            and not DANGER.search(e.name)
            and not self._avoided(e)
            and self._tried(obs, e) < 1
        ]
        go_on = [e for e in buttons if CONTINUE.search(e.name)]
        if go_on:
            return self._click(obs, go_on[0], "continue")
        if self.plan.kind == "answer" and self.best is not None:
            self.answer = self.best.value
            return self._note("answer: best so far", write_answer(obs, self.answer))
        if not (self.committed and self._page_done(obs)):
            act = self._generic(obs, scope)
            if act is not None:
                return act
        if self.backs < 2 and obs.step > 0:
            self.backs += 1
            return self._note("back", Back())
        return self._note("stop: nothing to do", Stop(self._final()))
