"""Booking (plan kind `book`): choose each slot the goal names (person, quoted name, date,
time, else its words) by a choice, a button or a drop-down option, then submit."""

from __future__ import annotations

import re

from darkguard.agents.web.goal import dates_in, times_in
from darkguard.agents.web.grounding import contains_phrase
from darkguard.agents.web.vocabulary import CHOICE_ROLES, MAX_TRIES, SUBMIT, element_key
from darkguard.envs.arena.actions import Action, Select
from darkguard.envs.arena.observation import Element, PageObservation


class BookingMixin:
    """The `book` handler of `OfflineWebAgent`.

    Reads the agent's `plan`; updates `filled` (the slots done) and `tries`; calls its
    `_usable`, `_actionable`, `_tried`, `_click`, `_commit` and `_note`.
    """

    # -- book ---------------------------------------------------------------------------------
    def _slots(self) -> list[tuple[str, str]]:
        p = self.plan
        out = [("person", x) for x in p.people] + [("quoted", x) for x in p.quoted]
        out += [("date", f"{m}-{d}") for m, d in p.dates] + [("time", t) for t in p.times]
        if not p.people:
            out += [("word", w) for w in p.words]
        return out

    @staticmethod
    def _slot_hit(kind: str, value: str, text: str) -> bool:
        if kind == "date":
            m, d = (int(x) for x in value.split("-"))
            return (m, d) in dates_in(text)
        if kind == "time":
            return value in times_in(text)
        return contains_phrase(text, value)

    def _book(self, obs: PageObservation, els: list[Element]) -> Action | None:
        open_slot = False
        for kind, value in self._slots():
            key = f"{kind}:{value}"
            named = [
                e
                for e in els
                if e.role in CHOICE_ROLES
                and self._usable(e)
                and self._slot_hit(kind, value, e.name)
            ]
            if not named:
                named = [
                    e
                    for e in els
                    if e.role in ("button", "link")
                    and self._actionable(e)
                    and len(e.name) <= 20
                    and self._slot_hit(kind, value, e.context)
                ]
            if not named:
                act = self._select_slot(obs, els, kind, value, key)
                if act is not None:
                    return act
                continue
            if any(e.state.get("checked") or e.state.get("selected") for e in named):
                self.filled.add(key)
                continue
            fresh = [e for e in named if self._tried(obs, e) < 1]
            if key in self.filled and not fresh:
                continue
            if fresh:
                self.filled.add(key)
                pick = min(fresh, key=lambda e: (e.role != "radio", len(e.name), e.index))
                return self._click(obs, pick, f"choose {kind} {value}")
            open_slot = True
        if not self.filled or open_slot:
            return None
        submits = [
            e
            for e in els
            if self._actionable(e)
            and SUBMIT.search(e.name)
            and self._tried(obs, e) < MAX_TRIES
            and not self._avoided(e)
        ]
        if not submits:
            return None
        pick = max(submits, key=lambda e: (bool(re.search(r"\bbook|confirm", e.name, re.I)),
                                           e.prominence))  # fmt: skip
        return self._commit(obs, pick, "submit the booking")

    def _select_slot(
        self, obs: PageObservation, els: list[Element], kind: str, value: str, key: str
    ) -> Action | None:
        for el in els:
            if el.role != "combobox" or not self._usable(el):
                continue
            for opt in el.state.get("options", []):
                if self._slot_hit(kind, value, opt):
                    if el.state.get("value") == opt:
                        self.filled.add(key)
                        return None
                    if self._tried(obs, el) < 1:
                        self.tries[element_key(obs.url, el)] += 1
                        self.filled.add(key)
                        return self._note(f"select {kind} {opt!r}", Select(el.index, opt))
        return None
