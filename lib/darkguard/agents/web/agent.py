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
from dataclasses import dataclass, replace

from darkguard.agents.web.goal import Avoid, Plan, dates_in, parse_goal, parse_warnings, times_in
from darkguard.agents.web.grounding import STOPWORDS, Grounder, contains_phrase, overlap
from darkguard.agents.web.reading import (
    ANSWER_THRESHOLD,
    Finding,
    find_answer,
    metrics,
    scratchpad,
    table_answer,
    write_answer,
)
from darkguard.envs.arena.actions import Action, Back, Click, Select, Stop, Type
from darkguard.envs.arena.observation import Element, PageObservation

ACTION_ROLES = frozenset({"button", "link", "generic", "menuitem", "tab", "img", "summary"})
TOGGLE_ROLES = frozenset({"checkbox", "switch"})
CHOICE_ROLES = frozenset({"radio", "option", "generic", "button", "link", "tab", "menuitem"})
TEXT_ROLES = frozenset({"textbox", "searchbox", "spinbutton"})


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


ADD_TO_CART = _rx(
    r"\badd\s+(?:it\s+|item\s+|this\s+)?to\s+(?:my\s+|your\s+)?(?:cart|bag|basket|trolley)\b|"
    r"^\s*\+?\s*add\s*$|^\s*buy\s+(?:it\s+)?now\b"
)
CART_LINK = _rx(r"\b(?:cart|basket|shopping\s+bag|my\s+bag)\b|^\s*bag\b|🛒")
CART_ACTION = _rx(r"\bupdate\b|\bempty\b|\bclear\b|\bapply\b|\bsave\s+for\s+later\b")
CHECKOUT = _rx(r"\bcheck\s?-?out\b|\bproceed\s+to\s+(?:checkout|payment)\b")
PLACE_ORDER = _rx(
    r"\bplace\s+(?:my\s+|your\s+|the\s+)?order\b|\bconfirm\s+(?:and\s+pay|order|purchase|"
    r"payment)\b|\bcomplete\s+(?:order|purchase|payment|checkout)\b|\bpay\s+now\b|"
    r"\bsubmit\s+order\b|^\s*pay\b|\b(?:continue|proceed)\s+to\s+(?:secure\s+)?(?:payment|pay)\b"
)
REMOVE = _rx(r"\bremove\b|\bdelete\b|^\s*[×✕x]\s*$|\bdiscard\b")
CONTINUE = _rx(r"^\s*(?:continue|next|proceed|go\s+on|get\s+started|ok|okay|got\s+it|done)\b")
DECLINE = _rx(
    r"\bno,?\s+thanks?\b|\bno\s+thank\s+you\b|\bdecline\b|\breject\b|\bnot\s+now\b|"
    r"\bmaybe\s+later\b|\bskip\b|\bclose\b|\bdismiss\b|^\s*[×✕x]\s*$|\bi\s+don[’']?t\s+want\b|"
    r"\bcontinue\s+without\b|\b(?:strictly\s+)?necessary\s+only\b|\bonly\s+(?:strictly\s+)?"
    r"necessary\b|\bessential\s+only\b|\brefuse\b|^\s*no\b|\bdeny\b|\bnot\s+interested\b|"
    r"\bopt\s+out\b|\bkeep\s+(?:my\s+)?(?:current|free|basic)\b"
)
MORE = _rx(
    r"\bmore\s+options\b|\bmanage\b|\bcustomi[sz]e\b|\bpreferences\b|\bsettings\b|"
    r"\bother\s+options\b|\bshow\s+more\b|\bmore\s+choices\b|^\s*options\b|\breview\b"
)
AFFIRM = _rx(
    r"\baccept\b|\bagree\b|\ballow\b|^\s*ok\b|^\s*yes\b|\bgot\s+it\b|\bcontinue\b|\binstall\b|"
    r"\bstart\b|\bclaim\b|\bsubscribe\b|\bjoin\b|\bupgrade\b"
)
SAVE = _rx(r"\bsave\b|\bapply\b|\bupdate\b|\bconfirm\b|\bsubmit\b|^\s*done\b")
SUBMIT = _rx(
    r"\bbook\b|\bconfirm\b|\breserve\b|\bsubmit\b|\bschedule\b|\brequest\b|\bsend\b|"
    r"\bcomplete\b|^\s*continue\b|^\s*next\b"
)
PLAN_BUTTON = _rx(
    r"\b(?:get|choose|select|buy|start|subscribe|join|upgrade|try|sign\s+(?:me\s+)?up|go|"
    r"purchase|pick|register)\b"
)
COLLECT_BUTTON = _rx(
    r"\blike\b|\bsave\b|\bfollow\b|\bbookmark\b|\bfavou?rite\b|\badd\s+to\s+(?:my\s+|a\s+)?"
    r"(?:playlist|library|favou?rites|list|wish\s*list)\b|[♥❤♡]"
)
FOLD = _rx(r"\bpreferences\b|\badvanced\b|\bdetails\b|\bmore\b|\bshow\b|\bexpand\b|[▸▾+]$")
FIELD_LABEL = {
    "email": _rx(r"e-?mail"),
    "phone": _rx(r"phone|mobile|tel"),
    "name": _rx(r"\bname\b"),
}
SIGNUP_WORDS = _rx(r"subscri|\bjoin\b|sign\s*up|register|membership")
SEARCH = _rx(r"\bsearch\b|\bfind\b|\blook\s*up\b")
DANGER = _rx(
    r"\bsign\s*out\b|\blog\s*out\b|\bdelete\s+(?:my\s+)?account\b|\bunsubscribe\b|\breset\b|"
    r"\bclear\s+(?:all|cart|history)\b"
)
MARKETING = _rx(r"\bnewsletter\b|\boffers?\b|\bmarketing\b|\bpromotion|\bpartners?\b")
SUCCESS = _rx(
    r"thank\s+you\s+for\s+(?:your\s+)?(?:order|purchase|subscri\w+|booking|shopping)|"
    r"order\s+(?:#|number|no\.?|id)\s*:?\s*[\w-]*\d|order\s+(?:has\s+been\s+|was\s+|is\s+)?"
    r"(?:placed|confirmed|received|complete)|\bbooking\s+(?:is\s+)?confirmed\b|\bbooked\b|"
    r"(?:appointment|visit|booking)\s+(?:has\s+been\s+|is\s+|was\s+)?(?:booked|scheduled|"
    r"confirmed|requested|cancel+ed)|(?:has|have)\s+been\s+cancel+ed|\bcancel+ed\s+"
    r"successfully|(?:settings|preferences|changes)\s+(?:have\s+been\s+|were\s+|are\s+)?saved|"
    r"saved\s+successfully|\b(?:was|were|been|is\s+now)\s+cancel+ed\b|\bsubscription\s+(?:is\s+)?(?:now\s+)?active\b|"
    r"you(?:'re|\s+are)\s+(?:now\s+)?(?:subscribed|a\s+member|on\s+the)|welcome\s+to\s+\w+|"
    r"purchase\s+(?:is\s+)?complete"
)
PLAN_WORDS = _rx(r"\b(?:plan|membership|subscription|tier|newsletter)s?\b")
METRIC_OF = {
    "cheapest": ("price", min),
    "priciest": ("price", max),
    "best_rated": ("rating", max),
    "worst_rated": ("rating", min),
    "newest": ("date", max),
    "oldest": ("date", min),
    "popular": ("plays", max),
    "longest": ("duration", max),
    "shortest": ("duration", min),
}
STRONG, WEAK = 0.8, 0.42  # navigation scores: follow at once / follow when nothing better
BACKDROP_AREA = 0.4 * 1280 * 800  # an element this large is a backdrop, not a button
MAX_TRIES = 2  # clicks of one element on one page


@dataclass(frozen=True)
class Card:
    """One listed thing: its name, its link, its action button, what it says."""

    name: str
    link: Element | None
    action: Element | None
    text: str
    order: int


def _key(url: str, el: Element) -> tuple[str, str, str, str]:
    return (url.split("#")[0], el.role, el.name, el.context[:60])


def stem_plural(word: str) -> str:
    """'pillows' -> 'pillow', 'batteries' -> 'battery'; other words as they are."""
    low = word.lower()
    if len(low) > 4 and low.endswith("ies"):
        return word[:-3] + "y"
    if len(low) > 3 and low.endswith("s") and not low.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _first_line_name(text: str) -> str:
    return re.split(r"\s[$€£]|\s\d|\s·|\s\|", text.strip(), maxsplit=1)[0][:80]


class OfflineWebAgent:
    """The generic scripted web agent (see the module docstring)."""

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
        self.reset("", "")

    # -- episode ------------------------------------------------------------------------------
    def reset(self, goal: str, episode_key: str) -> None:
        """A new episode: parse the goal; seed the RNG from (seed, episode_key)."""
        self.plan: Plan = parse_goal(goal)
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
        self.trace: list[str] = []  # why each action was taken (for debugging and tests)

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

    def act(self, obs: PageObservation) -> Action:
        """The next action for the observation."""
        draw = self.rng.random()  # one draw per step keeps the stream fixed
        sig = (obs.url, len(obs.elements), hash(obs.text[:3000]))
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
        self.tries[_key(obs.url, el)] += 1
        self.tries[_key(obs.url, el)[:3]] += 1
        self.names[el.name] += 1
        return self._note(f"{why}: {el.name!r}", Click(el.index))

    def _tried(self, obs: PageObservation, el: Element, loose: bool = False) -> int:
        """Clicks of this element on this page (`loose`: of any element so named)."""
        key = _key(obs.url, el)
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
        """Enabled, and not hidden: under a blocking dialog, or folded inside a dialog (a
        sticky bar over an element is no obstacle: clicks scroll it into view)."""
        if el.state.get("disabled", False):
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
        if self.committed and self._succeeded(obs):
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
        act = self._handle(obs, scope)
        if act is not None:
            return act
        if self.committed and self.plan.kind not in ("buy", "signup"):
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
        if 0 < len(buttons) <= 4 and self.plan.kind != "answer":
            return self._click(obs, self._salient(buttons), "interstitial: most prominent")
        if self.plan.kind == "answer" and self.best is not None:
            self.answer = self.best.value
            return self._note("answer: best so far", write_answer(obs, self.answer))
        if self.backs < 2 and obs.step > 0:
            self.backs += 1
            return self._note("back", Back())
        return self._note("stop: nothing to do", Stop(self._final()))

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

    # -- buy ----------------------------------------------------------------------------------
    def _buy(self, obs: PageObservation, els: list[Element]) -> Action | None:
        if self.added:
            return self._after_add(obs, els)
        adds = [e for e in els if self._actionable(e) and ADD_TO_CART.search(e.name)]
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
                        self.tries[_key(obs.url, el)] += 1
                        return self._note("quantity", Select(el.index, value))
                elif (
                    el.role in TEXT_ROLES
                    and str(el.state.get("value", "")) != value
                    and self._tried(obs, el) < 1
                ):
                    self.tries[_key(obs.url, el)] += 1
                    return self._note("quantity", Type(el.index, value))
                continue
            if el.role == "combobox":
                option = self._option_for(el.state.get("options", []), wanted)
                if option and el.state.get("value") != option and self._tried(obs, el) < 1:
                    self.tries[_key(obs.url, el)] += 1
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
            hits = [e for e in live if rx.search(e.name)]
            if hits:
                return self._commit(obs, self._salient(hits), why)
        go_on = [e for e in live if CONTINUE.search(e.name) and e.role == "button"]
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

    # -- cancel -------------------------------------------------------------------------------
    def _cancel(self, obs: PageObservation, els: list[Element]) -> Action | None:
        cands = [
            e
            for e in els
            if self._actionable(e)
            and re.search(r"\bcancel\b", e.name, re.I)
            and self._tried(obs, e) < MAX_TRIES
        ]
        if self.committed:  # one cancellation; then only its confirmation
            cands = [e for e in cands if e.in_dialog or re.search(r"\byes\b|confirm", e.name, re.I)]
        item = self.plan.item
        if item and not all(e.in_dialog for e in cands):
            cands = [e for e in cands if overlap(item, f"{e.name} {e.context} {obs.title}") >= 0.5]
        if not cands:
            return None
        if self.plan.superlative in ("newest",):
            pick = max(cands, key=lambda e: (e.box[1], e.box[0]))
        else:
            pick = min(cands, key=lambda e: (e.box[1], e.box[0]))
        return self._commit(obs, pick, "cancel")

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
            if self._actionable(e) and SUBMIT.search(e.name) and self._tried(obs, e) < MAX_TRIES
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
                        self.tries[_key(obs.url, el)] += 1
                        self.filled.add(key)
                        return self._note(f"select {kind} {opt!r}", Select(el.index, opt))
        return None

    # -- settings -----------------------------------------------------------------------------
    def _settings(self, obs: PageObservation, els: list[Element]) -> Action | None:
        p = self.plan
        toggles = [
            e
            for e in els
            if self._usable(e)
            and (e.role in TOGGLE_ROLES or "pressed" in e.state or "checked" in e.state)
            and e.role != "radio"
        ]
        if not toggles:
            return None
        seen = False
        for targets, want in ((p.turn_off, False), (p.turn_on, True)):
            for target in targets:
                full = self.grounder.scores(target, [e.name for e in toggles])
                head = self.grounder.scores(target, [e.name[:60] for e in toggles])
                scores = [max(a, b) for a, b in zip(full, head, strict=True)]
                order = sorted(range(len(toggles)), key=lambda i: (-scores[i], i))
                top = scores[order[0]]
                runner = scores[order[1]] if len(order) > 1 else 0.0
                if top < 0.6 and not (top >= 0.3 and top - runner >= 0.15):
                    continue
                best = order[0]
                seen = True
                el = toggles[best]
                state = bool(el.state.get("checked", el.state.get("pressed", False)))
                if state != want and self._tried(obs, el) < MAX_TRIES:
                    return self._click(obs, el, f"turn {'on' if want else 'off'} {target!r}")
        if not seen:
            return self._expand(obs, els)
        saves = [
            e
            for e in els
            if self._actionable(e) and SAVE.search(e.name) and self._tried(obs, e) < MAX_TRIES
        ]
        if saves:
            return self._commit(obs, self._salient(saves), "save settings")
        self.committed = True
        return None

    def _expand(self, obs: PageObservation, els: list[Element]) -> Action | None:
        """Open a collapsed section that may hold the setting the goal names."""
        folds = [
            e
            for e in els
            if self._actionable(e)
            and e.role in ("button", "summary", "tab")
            and (e.state.get("expanded") is False or MORE.search(e.name) or FOLD.search(e.name))
            and not SAVE.search(e.name)
            and not CONTINUE.search(e.name)
            and self._tried(obs, e, loose=True) < 1
        ]
        if not folds:
            return None
        targets = [*self.plan.turn_off, *self.plan.turn_on] or [self.plan.item]
        scores = self.grounder.best_scores(targets, [e.name for e in folds])
        best = max(range(len(folds)), key=lambda i: (scores[i], -i))
        return self._click(obs, folds[best], "open a section")

    # -- signup -------------------------------------------------------------------------------
    def _fill(self, obs: PageObservation, els: list[Element]) -> Action | None:
        """Type what the goal gives (e-mail, phone, name) into the matching empty fields."""
        pad = scratchpad(obs)
        for el in els:
            if el.role not in TEXT_ROLES or el is pad or not self._usable(el):
                continue
            label = f"{el.name} {el.context[:60]}"
            for kind, value in self.plan.fields.items():
                wanted = FIELD_LABEL[kind].search(el.name or label)
                if wanted and el.state.get("value") != value and self._tried(obs, el) < 1:
                    self.tries[_key(obs.url, el)] += 1
                    self.filled_field = el
                    return self._note(f"fill {kind}", Type(el.index, value))
        return None

    def _signup(self, obs: PageObservation, els: list[Element]) -> Action | None:
        live = [e for e in els if self._actionable(e) and self._tried(obs, e) < MAX_TRIES]
        if self.plan.fields:
            act = self._fill(obs, els)
            if act is not None:
                return act
            typed = self.filled_field
            near = [
                e
                for e in live
                if (PLAN_BUTTON.search(e.name) or SUBMIT.search(e.name)) and not self._avoided(e)
            ]
            if typed is not None and near and any(e.index == typed.index for e in els):
                tx, ty = typed.box[0], typed.box[1]
                below = [e for e in near if e.box[1] >= ty - 10] or near  # a form's button
                pick = min(
                    below,
                    key=lambda e: (
                        e.role != "button",
                        abs(e.box[1] - ty) + 0.5 * abs(e.box[0] - tx),
                    ),
                )
                self.filled_field = None
                return self._commit(obs, pick, "submit the form")
        if self.committed:
            confirm = [e for e in live if PLACE_ORDER.search(e.name) or CHECKOUT.search(e.name)]
            confirm = confirm or [e for e in live if re.search(r"\bconfirm\b|\bsubscribe\b",
                                                               e.name, re.I)]  # fmt: skip
            return self._commit(obs, confirm[0], "confirm the plan") if confirm else None
        buttons = [
            e
            for e in live
            if PLAN_BUTTON.search(e.name)
            and (metrics(e.context).get("price") is not None or PLAN_WORDS.search(e.context))
            and not self._avoided(e)
        ]
        if not buttons:
            return None
        core = PLAN_WORDS.sub("", self.plan.quoted[0] if self.plan.quoted else self.plan.item)
        metric = METRIC_OF.get(self.plan.superlative)
        if metric is not None:
            field, pick = metric
            valued = [(metrics(e.context).get(field), e) for e in buttons]
            valued = [(v, e) for v, e in valued if v is not None]
            if valued:
                target = pick(v for v, _ in valued)
                return self._commit(obs, next(e for v, e in valued if v == target), "plan")
        if core.strip():
            scored = [(overlap(core, e.name) + 0.5 * overlap(core, e.context[:80]), e)
                      for e in buttons]  # fmt: skip
            top = max(s for s, _ in scored)
            best = [e for s, e in scored if s == top]
            if top >= 0.5 and len(best) == 1:
                return self._commit(obs, best[0], "plan by name")
        return self._commit(obs, self._salient(buttons), "plan: most prominent")

    # -- collect ------------------------------------------------------------------------------
    def _collect(self, obs: PageObservation, els: list[Element]) -> Action | None:
        item = self.plan.item
        cands = [
            e
            for e in els
            if self._actionable(e)
            and COLLECT_BUTTON.search(e.name)
            and overlap(item, f"{e.name} {e.context} {obs.title}") >= 0.5
            and self._tried(obs, e) < 1
        ]
        if not cands:
            return None
        return self._commit(obs, min(cands, key=lambda e: (e.box[1], e.index)), "collect")

    # -- answer -------------------------------------------------------------------------------
    def _answer(self, obs: PageObservation, els: list[Element]) -> Action | None:
        p = self.plan
        cell = table_answer(p, obs)
        if cell is not None:
            self.answer = cell.value
            return self._note("answer: table cell", write_answer(obs, cell.value))
        if p.answer_type == "title":
            value = self._listed_title(obs, els)
            if value:
                self.answer = value
                return self._note("answer: listed title", write_answer(obs, value))
        found = find_answer(p, obs.text, obs.title, self.grounder.scores)
        if found is None:
            return None
        place_ok = not p.places or any(
            overlap(pl, f"{obs.title} {obs.url} {obs.text[:800]}") >= 0.5 for pl in p.places
        )
        if self.best is None or found.score > self.best.score:
            self.best = found
        if found.score >= ANSWER_THRESHOLD and place_ok:
            self.answer = found.value
            return self._note(f"answer ({found.score:.2f})", write_answer(obs, found.value))
        if obs.step >= obs.max_steps - 2 and self.best is not None:
            self.answer = self.best.value
            return self._note("answer: out of steps", write_answer(obs, self.answer))
        return None

    def _listed_title(self, obs: PageObservation, els: list[Element]) -> str:
        item = self.plan.item
        if item and overlap(item, f"{obs.title} {obs.text[:400]}") < 0.5:
            return ""
        rows = [
            e
            for e in els
            if self._actionable(e) and e.name and metrics(e.context) and not e.in_dialog
        ]
        rows = [e for e in rows if overlap(item, e.name) < 0.5 and not CONTINUE.search(e.name)]
        if not rows:
            return ""
        metric = METRIC_OF.get(self.plan.superlative)
        pick = rows[0]
        if metric is not None:
            field, choose = metric
            valued = [(metrics(e.context).get(field), e) for e in rows]
            valued = [(v, e) for v, e in valued if v is not None]
            if valued:
                target = choose(v for v, _ in valued)
                pick = next(e for v, e in valued if v == target)
        return re.sub(r"^(?:play|pause|like|open|listen\s+to)\s+", "", pick.name, flags=re.I)
