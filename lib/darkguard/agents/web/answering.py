"""Reading tasks: collect (plan kind `collect`: like, save or follow the named thing) and answer
(`answer`: a table cell, a listed title or a sentence read off the page, written to the
scratchpad; the best finding so far when steps run out)."""

from __future__ import annotations

import re

from darkguard.agents.web.grounding import overlap
from darkguard.agents.web.reading import (
    ANSWER_THRESHOLD,
    find_answer,
    metrics,
    table_answer,
    write_answer,
)
from darkguard.agents.web.vocabulary import COLLECT_BUTTON, CONTINUE, METRIC_OF
from darkguard.envs.arena.actions import Action
from darkguard.envs.arena.observation import Element, PageObservation


class AnsweringMixin:
    """The `collect` and `answer` handlers of `OfflineWebAgent`.

    Reads the agent's `plan` and `grounder`; updates `answer` and `best` (the best finding so
    far); calls its `_actionable`, `_tried`, `_commit` and `_note`.
    """

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
