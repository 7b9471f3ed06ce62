"""The `offline` base web agent: one generic, scripted policy for every site, no LLM.

It reads only the goal and the observation (roles, names, texts, contexts, states, boxes,
prominence, covered, in a dialog; the page text; the URL). The goal becomes a plan (`goal`); the
plan's slots are grounded on elements (`grounding`); answers are read off pages (`reading`).

Its only susceptibility comes from ordinary habits, never from knowing a pattern:
- salience-greedy dialogs: a dialog that covers the page is dismissed with its most prominent
  button (unless the goal itself is served by a button there);
- defaults are kept: boxes and switches are never changed unless the goal says to turn one off
  (or on);
- "Continue" / "Next" are followed on pages that offer nothing for the goal;
- only the target is looked at in a cart; other lines are left alone.

Prompt channel: `warnings` (text a defense adds to the agent's context) become an avoid list
(`goal.parse_warnings`): avoided elements are not clicked, and a dialog holding one is declined
(a decline-like option, else "more options" to reveal one). Seeded epsilon-noise may click a
random plausible element. Loops are cut: an element is clicked at most twice per page, and a page
that does not change ends the episode with the best answer so far.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from darkguard.agents import Rejection
from darkguard.agents.web.answering import AnsweringMixin
from darkguard.agents.web.booking import BookingMixin
from darkguard.agents.web.downloading import DownloadMixin
from darkguard.agents.web.element_scorer import ElementScorer
from darkguard.agents.web.forms import FormsMixin
from darkguard.agents.web.generic import GenericMixin
from darkguard.agents.web.goal import Avoid, Plan, parse_goal, parse_warnings
from darkguard.agents.web.grounding import Grounder, overlap
from darkguard.agents.web.listing import ListingMixin
from darkguard.agents.web.navigation import NavigationMixin
from darkguard.agents.web.reading import Finding, scratchpad, write_answer
from darkguard.agents.web.shopping import ShoppingMixin
from darkguard.agents.web.vocabulary import (
    ACTION_ROLES,
    AFFIRM,
    BACKDROP_AREA,
    DANGER,
    DECLINE,
    MARKETING,
    MAX_TRIES,
    MORE,
    SIGNUP_WORDS,
    SUCCESS,
    TOGGLE_ROLES,
    element_key,
)
from darkguard.envs.arena.actions import Action, Click, Stop
from darkguard.envs.arena.observation import NOT_RUN, Element, PageObservation


class OfflineWebAgent(
    ShoppingMixin,
    BookingMixin,
    FormsMixin,
    AnsweringMixin,
    ListingMixin,
    DownloadMixin,
    NavigationMixin,
    GenericMixin,
):
    """The generic scripted web agent (see the module docstring): the core loop, dialogs and
    bookkeeping here; the task-kind handlers, listed things and navigation in the mixins."""

    name = "offline"

    def __init__(
        self,
        seed: int = 42,
        epsilon: float = 0.0,
        warnings: list[str] | None = None,
        embeddings: bool = True,
    ) -> None:
        self.seed, self.epsilon = seed, epsilon
        self.warnings = list(warnings or [])
        self.warned = parse_warnings(self.warnings)
        self.avoid = self.warned
        self.grounder = Grounder(embeddings)
        self.scorer = ElementScorer(self.grounder)
        self.reset("", "")

    # -- episode ------------------------------------------------------------------------------
    def reset(self, goal: str, episode_key: str) -> None:
        """A new episode: parse the goal; seed the RNG from (seed, episode_key)."""
        self.plan: Plan = parse_goal(goal)
        self.advice: list[str] = []
        self.warned = parse_warnings(self.warnings)
        self.avoid = self._avoid_for(self.plan)
        digest = hashlib.sha256(f"{self.seed}:{episode_key}".encode()).digest()
        self.rng = random.Random(int.from_bytes(digest[:8], "big"))
        self.tries: Counter = Counter()  # (url, role, name, context) -> clicks
        self.names: Counter = Counter()  # name -> clicks anywhere
        self.searched: set[str] = set()
        self.added = 0
        self.target = ""  # the listed thing chosen for the goal
        self.committed = False
        self.before_commit = ""
        self.filled: set[str] = set()  # booking slots done
        self.topic_seen = False
        self.place_seen = False
        self.filled_field: Element | None = None  # the last field typed from the goal
        self.answer = ""
        self.best: Finding | None = None
        self.handled_dialogs: set[tuple] = set()
        self.backs = 0
        self.last_sig: tuple | None = None
        self.same = 0
        self.blocking = False
        self.commit_step = -9
        self.before_last: tuple | None = None  # (committed, commit_step, before_commit, keys)
        self.trace: list[str] = []  # why each action was taken (for debugging and tests)
        self.turned_back: set[tuple] = set()  # keys turned back since the page last changed
        self.rejections_seen = 0
        self.url = ""

    def advise(self, text: str) -> None:
        """Text a defense puts in the agent's context during an episode (its brief, a rejected
        action's reason, a per-step warning): read like the warnings (`goal.parse_warnings`),
        for the rest of the episode."""
        self.advice.append(text)
        self.warned = parse_warnings(self.warnings + self.advice)
        self.avoid = self._avoid_for(self.plan)

    def _avoid_for(self, plan: Plan) -> Avoid:
        """The avoid list less what the goal itself asks for (a warning against subscriptions
        does not stop a goal that says to subscribe)."""
        asked = plan.goal.lower()
        keep = [
            p
            for p in self.warned.phrases
            if p not in asked and not (plan.kind == "signup" and SIGNUP_WORDS.search(p))
        ]
        return replace(self.warned, phrases=tuple(keep))

    def act(self, obs: PageObservation, rejected: Sequence[Rejection] = ()) -> Action:
        """The next action for the observation (a turned-back proposal's message arrived through
        `advise`, and the page says it was not carried out). A proposal that `rejected` says was
        turned back is not proposed again until something runs on the page."""
        turned = obs.error.startswith(NOT_RUN) and len(rejected) > self.rejections_seen
        if not turned:  # something ran (the agent's action or the defense's): the page may differ
            self.turned_back.clear()
        if obs.error.startswith(NOT_RUN) and self.before_last is not None:
            # a defense did not let the last proposal run: it neither committed nor was tried
            self.committed, self.commit_step, self.before_commit, clicked = self.before_last
            for key in clicked:
                self.tries[key] -= 1
            if turned and clicked:  # turned back, the page left as it was: not proposed again
                self.turned_back.add(clicked[0])
        self.rejections_seen = len(rejected)
        self.before_last = (self.committed, self.commit_step, self.before_commit, ())
        draw = self.rng.random()  # one draw per step keeps the stream fixed
        sig = (obs.url, len(obs.elements), hash(obs.text[:3000]))
        self.url = obs.url
        self.same = self.same + 1 if sig == self.last_sig else 0
        self.last_sig = sig
        if obs.done or self.same >= 4:
            return self._note("stop: done or stuck", Stop(self._final()))
        if draw < self.epsilon:
            noisy = self._noise(obs)
            if noisy is not None:
                return self._click(obs, noisy, "noise")
        return self._decide(obs)

    # -- bookkeeping --------------------------------------------------------------------------
    def _note(self, why: str, action: Action) -> Action:
        self.trace.append(why)
        return action

    def _click(self, obs: PageObservation, el: Element, why: str) -> Action:
        key = element_key(obs.url, el)
        self.tries[key] += 1
        self.tries[key[:3]] += 1
        if self.before_last is not None:
            self.before_last = (*self.before_last[:3], (key, key[:3]))
        self.names[el.name] += 1
        return self._note(f"{why}: {el.name!r}", Click(el.index))

    def _tried(self, obs: PageObservation, el: Element, loose: bool = False) -> int:
        """Clicks of this element on this page (`loose`: of any element so named)."""
        key = element_key(obs.url, el)
        return self.tries[key[:3] if loose else key]

    def _commit(self, obs: PageObservation, el: Element, why: str) -> Action:
        self.committed = True
        self.commit_step = obs.step
        self.before_commit = obs.text
        return self._click(obs, el, why)

    def _final(self) -> str:
        if self.answer:
            return self.answer
        if self.best is not None and self.plan.kind == "answer":
            return self.best.value
        return "done" if self.committed else ""

    # -- element sets -------------------------------------------------------------------------
    def _usable(self, el: Element) -> bool:
        """Enabled, not turned back by a defense on the page as it is, and not hidden: under a
        blocking dialog, or folded inside a dialog (a sticky bar over an element is no obstacle:
        clicks scroll it into view)."""
        if el.state.get("disabled", False):
            return False
        if self.turned_back and element_key(self.url, el) in self.turned_back:
            return False
        return not el.covered or (not self.blocking and not el.in_dialog)

    def _actionable(self, el: Element) -> bool:
        w, h = el.box[2], el.box[3]
        if w * h > BACKDROP_AREA or (el.role == "generic" and len(el.text) > 80):
            return False
        return el.role in ACTION_ROLES and self._usable(el)

    def _avoided(self, el: Element) -> bool:
        if not self.avoid.phrases or not self.avoid.matches(el.name) or DECLINE.search(el.name):
            return False
        item = self.plan.item or self.target
        return not (item and overlap(item, el.name) >= 0.5)  # the goal's own thing stays

    def _dialog(self, obs: PageObservation) -> tuple[list[Element], bool]:
        inside = [e for e in obs.elements if e.in_dialog and not e.covered]
        outside = [e for e in obs.elements if not e.in_dialog]
        covered = sum(e.covered for e in outside)
        blocking = bool(inside) and (covered >= 3 or (covered >= 1 and 2 * covered >= len(outside)))
        return inside, blocking

    # -- the policy ---------------------------------------------------------------------------
    def _decide(self, obs: PageObservation) -> Action:
        inside, blocking = self._dialog(obs)
        self.blocking = blocking
        if inside:
            act = self._in_dialog(obs, inside, blocking)
            if act is not None:
                return act
        scope = [e for e in obs.elements if not e.in_dialog] if blocking else list(obs.elements)
        if self.answer:
            return self._note("write answer", write_answer(obs, self.answer))
        if self.committed and self._page_done(obs) and self.plan.kind != "answer":
            return self._note("stop: success shown", Stop(self._final()))
        if self.avoid.untick:
            act = self._untick(obs, scope)
            if act is not None:
                return act
        if self.plan.places and not self.place_seen:
            self.place_seen = any(overlap(pl, obs.title) >= 0.5 for pl in self.plan.places)
        if self.plan.topic and not self.topic_seen:
            if overlap(self.plan.topic, obs.title) >= 0.5:
                self.topic_seen = True
            else:
                act = self._navigate(obs, (self.plan.topic,))
                if act is not None:
                    return act
        if self.plan.kind != "answer":
            act = self._fill(obs, scope) or self._goal_choices(obs, scope)
            if act is not None:
                return act
        act = self._handle(obs, scope)
        if act is not None:
            return act
        if self.committed and self.plan.kind not in ("buy", "signup"):
            if self._page_done(obs) or obs.text == self.before_commit:
                return self._note("stop: committed, nothing left", Stop(self._final()))
            act = self._generic(obs, scope)  # a confirmation step, a form after the commit
            if act is not None:
                return act
            return self._note("stop: committed, nothing left", Stop(self._final()))
        act = self._navigate(obs)
        if act is not None:
            return act
        return self._fallback(obs, scope)

    def _handle(self, obs: PageObservation, els: list[Element]) -> Action | None:
        kind = self.plan.kind
        if kind == "answer":
            return self._answer(obs, els)
        handler = {
            "buy": self._buy,
            "cancel": self._cancel,
            "book": self._book,
            "settings": self._settings,
            "signup": self._signup,
            "collect": self._collect,
            "download": self._download,
        }.get(kind)
        return handler(obs, els) if handler else None

    def _succeeded(self, obs: PageObservation) -> bool:
        """A confirmation that was not on the page before the commit (and is not a condition,
        as in 'prices are confirmed when your order is placed')."""
        before = self.before_commit.lower()
        for sentence in re.split(r"[.!\n]+", obs.text):
            m = SUCCESS.search(sentence)
            conditional = re.search(
                r"\b(?:when|once|after|before|until|if|unless)\b", sentence, re.I
            )
            if m and m.group(0).lower() not in before and not conditional:
                return True
        return False

    # -- dialogs ------------------------------------------------------------------------------
    def _in_dialog(
        self, obs: PageObservation, inside: list[Element], blocking: bool
    ) -> Action | None:
        buttons = [e for e in inside if self._actionable(e) and e is not scratchpad(obs)]
        if not buttons and not any(e.role in TOGGLE_ROLES for e in inside):
            return None
        signature = (obs.url, tuple(sorted(e.name for e in buttons)))
        if not blocking:
            consent = len(buttons) >= 2 and any(AFFIRM.search(e.name) for e in buttons)
            if not consent or signature in self.handled_dialogs:
                return None
        self.handled_dialogs.add(signature)
        answers_us = self.commit_step == obs.step - 1  # opened by our own commit (a confirm)
        if self.plan.kind != "answer" and (answers_us or not self.avoid.decline_dialogs):
            act = self._handle(obs, inside)  # a dialog that serves the goal (a confirm, a form)
            if act is not None:
                return act
        fresh = [e for e in buttons if self._tried(obs, e) < MAX_TRIES]
        usable = [e for e in fresh if not self._avoided(e)]
        if self.avoid.active and (len(usable) < len(fresh) or self.avoid.decline_dialogs):
            declines = [e for e in usable if DECLINE.search(e.name)]
            if declines:
                return self._click(obs, self._salient(declines), "dialog: decline (warned)")
            more = [e for e in usable if MORE.search(e.name) and self._tried(obs, e, True) < 1]
            if more:
                return self._click(obs, self._salient(more), "dialog: more options (warned)")
        if not usable:
            return None
        return self._click(obs, self._salient(usable), "dialog: most prominent")

    @staticmethod
    def _salient(els: list[Element]) -> Element:
        return max(els, key=lambda e: (e.prominence, -e.index))

    # -- habits and the prompt channel --------------------------------------------------------
    def _untick(self, obs: PageObservation, els: list[Element]) -> Action | None:
        for el in els:
            checked = el.state.get("checked") or el.state.get("pressed")
            if (
                el.role in TOGGLE_ROLES
                and checked
                and self._usable(el)
                and (self.avoid.matches(el.name) or MARKETING.search(el.name))
                and self._tried(obs, el) == 0
            ):
                return self._click(obs, el, "untick (warned)")
        return None

    def _noise(self, obs: PageObservation) -> Element | None:
        inside, blocking = self._dialog(obs)
        pool = inside if blocking else [e for e in obs.elements if not e.in_dialog]
        pool = [e for e in pool if self._actionable(e) and e.name and not DANGER.search(e.name)]
        return self.rng.choice(pool) if pool else None
