"""Acting from the goal's meaning where no task-kind step fits: the agent's policy on any site.

When the planner has nothing for a page (an unparsed goal, a flow it does not know, a
confirmation step after a commit), the agent still acts:
- it types the goal's values (e-mail, phone, name) into the fields named for them;
- it chooses the option of a drop-down that the goal names (a date, a time, a size, a plan);
- otherwise it clicks the control the element scorer (`element_scorer`, learned by imitation on
  arena-synth `dev`) ranks first for the goal: goal words on the control, then forward progress
  ("Continue", "Confirm", in any wording), never a control it already tried twice on this page,
  never one a defense warned against.
Completion is judged from the page (`page_done`): a confirmation the page did not show before,
read by the same words the planner knows or by the completion model learned beside the scorer.
The agent ends an episode before acting only when the page offers nothing to act on.
"""

from __future__ import annotations

import re

import numpy as np

from darkguard.agents.web.element_scorer import ElementScorer
from darkguard.agents.web.grounding import overlap, tokens
from darkguard.agents.web.reading import scratchpad
from darkguard.agents.web.vocabulary import (
    ACTION_ROLES,
    DANGER,
    MAX_TRIES,
    TEXT_ROLES,
    TOGGLE_ROLES,
    element_key,
)
from darkguard.envs.arena.actions import Action, Select, Type
from darkguard.envs.arena.observation import Element, PageObservation

CLICK_ROLES = ACTION_ROLES | TOGGLE_ROLES | frozenset({"radio", "option"})
CHOICE_ROLES = frozenset({"radio", "option", "tab", "button", "menuitemradio"})
# choices too plain to be named by a goal ("no extras" does not name a "No" radio)
PLAIN_CHOICES = frozenset({"yes", "no", "on", "off", "none", "all", "other", "ok", "any", "more",
                           "less"})  # fmt: skip
QUANTITY_FIELD = re.compile(r"\bq(?:uanti)?ty\b|\bquantity\b|\bhow\s+many\b|\bnumber\s+of\b",
                            re.I)  # fmt: skip
SELECT_ROLES = frozenset({"combobox", "listbox"})
OPTION_MATCH = 0.99  # every word of a drop-down option found in the goal (a date, a time)


class GenericMixin:
    """The goal-meaning policy of `OfflineWebAgent` (see the module docstring).

    Reads the agent's `plan`, `grounder`, `names` and `tries`; calls its `_usable`, `_avoided`,
    `_tried`, `_fill`, `_click`, `_note` and `_commit`.
    """

    scorer: ElementScorer

    def _generic(self, obs: PageObservation, scope: list[Element]) -> Action | None:
        """The next action from the goal's meaning, or None when the page offers nothing."""
        act = self._fill(obs, scope)
        if act is not None:
            return act
        act = self._generic_select(obs, scope)
        if act is not None:
            return act
        return self._generic_click(obs, scope)

    # -- what the goal names: its options, its quantity, its values ---------------------------
    def _named(self, text: str) -> bool:
        """Whether the goal names this choice word for word ("Sage", "17:00", "Thursday 6
        March", "UK 8"), or as one of its parsed options."""
        text = " ".join(text.split())
        if not text or len(text) > 40 or text.lower() in PLAIN_CHOICES:
            return False
        if len(text) < 3 and not any(c.isdigit() for c in text):
            return False
        if any(text.lower() == v.lower() for v in self.plan.options.values() if v):
            return True
        return bool(re.search(rf"(?<![\w:]){re.escape(text)}(?![\w:])", self.plan.goal, re.I))

    def _goal_choices(self, obs: PageObservation, scope: list[Element]) -> Action | None:
        """Set what the goal names on this page before moving on: the quantity, a drop-down's
        named option, a named radio or option button (each element once per page)."""
        pad = scratchpad(obs)
        for el in scope:
            if el is pad or not self._usable(el) or self._tried(obs, el) >= 1:
                continue
            if el.role in SELECT_ROLES:
                options = [o for o in el.state.get("options", []) if o.strip()]
                if QUANTITY_FIELD.search(el.name) and self.plan.quantity > 1:
                    want = str(self.plan.quantity)
                    best = next((o for o in options if o.strip() == want), "")
                else:
                    named = [o for o in options if self._named(o)]
                    best = max(named, key=len) if named else ""
                if best and best != el.state.get("value"):
                    self.tries[element_key(obs.url, el)] += 1
                    return self._note(f"goal's choice {best!r}", Select(el.index, best))
            elif (
                el.role in TEXT_ROLES and QUANTITY_FIELD.search(el.name) and self.plan.quantity > 1
            ):
                want = str(self.plan.quantity)
                if str(el.state.get("value", "")) != want:
                    self.tries[element_key(obs.url, el)] += 1
                    return self._note("goal's quantity", Type(el.index, want))
            elif el.role in CHOICE_ROLES and (el.role != "button" or "pressed" in el.state):
                on = el.state.get("checked") or el.state.get("pressed") or el.state.get("selected")
                if not on and self._named(el.name) and not self._avoided(el):
                    return self._click(obs, el, "goal's choice")
        return None

    def _generic_select(self, obs: PageObservation, scope: list[Element]) -> Action | None:
        goal = self.plan.goal
        for el in scope:
            if el.role not in SELECT_ROLES or not self._usable(el) or self._tried(obs, el) >= 1:
                continue
            options = [o for o in el.state.get("options", []) if tokens(o)]
            named = [(overlap(o, goal), -len(tokens(o)), o) for o in options]
            named = [n for n in named if n[0] >= OPTION_MATCH]
            if not named:
                continue
            best = max(named)[2]
            if best != el.state.get("value"):
                self.tries[element_key(obs.url, el)] += 1
                return self._note(f"generic: choose {best!r}", Select(el.index, best))
        return None

    def _clickable(self, obs: PageObservation, el: Element) -> bool:
        if el.role not in CLICK_ROLES or not self._usable(el) or not (el.name or el.text).strip():
            return False
        w, h = el.box[2], el.box[3]
        if w * h > 0.4 * 1280 * 800 or (el.role == "generic" and len(el.text) > 80):
            return False
        if self._tried(obs, el) >= MAX_TRIES or self._avoided(el):
            return False
        asked = overlap(el.name, self.plan.goal) >= 0.5  # the goal's own words ("delete")
        return asked or not DANGER.search(el.name)

    def _generic_click(self, obs: PageObservation, scope: list[Element]) -> Action | None:
        pad = scratchpad(obs)
        cands = [e for e in scope if e is not pad and self._clickable(obs, e)]
        if not cands:
            return None
        tried = [self._tried(obs, e) for e in cands]
        named = [self.names[e.name] for e in cands]
        scores = self.scorer.scores(self.plan.goal, obs, cands, tried, named)
        best = int(np.argmax(scores))  # the first of equals: page order
        return self._commit(obs, cands[best], f"generic ({float(scores[best]):.2f})")

    def _page_done(self, obs: PageObservation) -> bool:
        """A completion the page shows since the agent's first commitment."""
        if not self.committed:
            return False
        if self._succeeded(obs):
            return True
        pad = scratchpad(obs)
        if not any(e is not pad and self._usable(e) for e in obs.elements):
            return True  # a page with nothing left to act on
        return obs.text != self.before_commit and self.scorer.done(obs) >= 0.5
