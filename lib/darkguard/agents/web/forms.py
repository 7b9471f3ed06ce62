"""Account tasks: cancel (plan kind `cancel`), settings (`settings`: turn named switches off or
on, then save; open collapsed sections to find them) and sign-up (`signup`: fill the fields the
goal gives, choose a plan, confirm). Defaults the goal does not name are kept."""

from __future__ import annotations

import re

from darkguard.agents.web.grounding import overlap
from darkguard.agents.web.reading import metrics, scratchpad
from darkguard.agents.web.vocabulary import (
    CHECKOUT,
    CONTINUE,
    FIELD_LABEL,
    FOLD,
    MAX_TRIES,
    METRIC_OF,
    MORE,
    PLACE_ORDER,
    PLAN_BUTTON,
    PLAN_WORDS,
    SAVE,
    SUBMIT,
    TEXT_ROLES,
    TOGGLE_ROLES,
    element_key,
)
from darkguard.envs.arena.actions import Action, Type
from darkguard.envs.arena.observation import Element, PageObservation

STATE_WORDS = re.compile(r"^\s*(?:on|off|yes|no|enabled?|disabled?|active|inactive|"
                         r"allowed|blocked|true|false)?\s*$", re.I)  # fmt: skip


OPTION_ROLES = frozenset({"radio", "option", "menuitemradio"})


# an option's words that end a plan (the goal's own verbs for a cancellation)
ENDS_PLAN = re.compile(r"^\W*(?:cancel|end|terminate|close|stop|quit|unsubscribe)\b", re.I)


def chosen(el: Element) -> bool:
    """Whether an option is the chosen one of its group."""
    return bool(el.state.get("checked") or el.state.get("selected"))


AFFIRM_STATE = re.compile(r"^\s*(?:on|yes|enabled?|active|allowed|true)\s*$", re.I)


def toggle_label(el: Element) -> str:
    """What a switch is for: its name, or the text beside it when its name only says its state
    ("On", "Off")."""
    if not STATE_WORDS.match(el.name):
        return el.name
    words = re.split(r"\s+(?:on|off|yes|no)\b", el.context, maxsplit=1, flags=re.I)
    return (words[0] if words and words[0].strip() else el.context)[:80]


class FormsMixin:
    """The `cancel`, `settings` and `signup` handlers of `OfflineWebAgent`.

    Reads the agent's `plan` and `grounder`; updates `committed`, `filled_field` and `tries`;
    calls its `_usable`, `_actionable`, `_avoided`, `_tried`, `_click`, `_commit`, `_note`
    and `_salient`.
    """

    # -- cancel -------------------------------------------------------------------------------
    def _cancel(self, obs: PageObservation, els: list[Element]) -> Action | None:
        cands = [
            e
            for e in els
            if self._actionable(e)
            and re.search(r"\bcancel\b", e.name, re.I)
            and self._tried(obs, e) < MAX_TRIES
        ]
        # an option that ends the plan ("What should happen to your plan?") is chosen, not
        # committed: the form's own button after it commits the choice
        options = [
            e
            for e in els
            if e.role in OPTION_ROLES
            and self._usable(e)
            and ENDS_PLAN.search(e.name)
            and self._tried(obs, e) < MAX_TRIES
        ]
        if options:
            for el in options:
                if not chosen(el):
                    return self._click(obs, el, "cancel: choose the option that ends it")
            picked = [e for e in options if chosen(e)]
            if picked and not cands:
                after = [
                    e
                    for e in els
                    if e.role == "button"
                    and self._actionable(e)
                    and e.box[1] > picked[0].box[1]
                    and self._tried(obs, e) < MAX_TRIES
                ]
                if after:
                    pick = min(after, key=lambda e: (e.box[1], e.box[0]))
                    return self._commit(obs, pick, "cancel: submit the chosen option")
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
        # a yes / no (on / off) pair of radios is a switch too: its "No" turns it off
        polar = {e.index: bool(AFFIRM_STATE.match(e.name)) for e in els
                 if e.role == "radio" and self._usable(e) and STATE_WORDS.match(e.name)
                 and e.name.strip()}  # fmt: skip
        radios = [e for e in els if e.index in polar]
        if not toggles and not radios:
            return None
        seen = False
        for targets, want in ((p.turn_off, False), (p.turn_on, True)):
            units = toggles + [e for e in radios if polar[e.index] == want]
            labels = [toggle_label(e) for e in units]
            for target in targets if units else ():
                full = self.grounder.scores(target, labels)
                head = self.grounder.scores(target, [label[:60] for label in labels])
                scores = [max(a, b) for a, b in zip(full, head, strict=True)]
                order = sorted(range(len(units)), key=lambda i: (-scores[i], i))
                top = scores[order[0]]
                runner = scores[order[1]] if len(order) > 1 else 0.0
                if top < 0.6 and not (top >= 0.3 and top - runner >= 0.15):
                    continue
                seen = True
                el = units[order[0]]
                state = bool(el.state.get("checked", el.state.get("pressed", False)))
                if el.index in polar:  # the radio that says what the goal wants
                    state, want_state = state, True
                else:
                    want_state = want
                if state != want_state and self._tried(obs, el) < MAX_TRIES:
                    return self._click(obs, el, f"turn {'on' if want else 'off'} {target!r}")
        if not seen:
            return self._expand(obs, els)
        saves = [
            e
            for e in els
            if self._actionable(e)
            and SAVE.search(e.name)
            and self._tried(obs, e) < MAX_TRIES
            and not self._avoided(e)
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
                    self.tries[element_key(obs.url, el)] += 1
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
