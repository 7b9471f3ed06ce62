"""Downloads (plan kind `download`): open the file the goal names, then take the download
control of the page that shows it."""

from __future__ import annotations

import re

from darkguard.agents.web.goal import FILE_NAME
from darkguard.agents.web.grounding import overlap
from darkguard.agents.web.vocabulary import MAX_TRIES
from darkguard.envs.arena.actions import Action
from darkguard.envs.arena.observation import Element, PageObservation

DOWNLOAD_VERB = re.compile(r"\b(?:download|get|save|export)\b", re.I)


class DownloadMixin:
    """The `download` handler of `OfflineWebAgent`.

    Reads the agent's `plan`; calls its `_actionable`, `_avoided`, `_tried`, `_click`, `_commit`
    and `_salient`.
    """

    def _download(self, obs: PageObservation, els: list[Element]) -> Action | None:
        wanted = self.plan.item
        if not wanted:
            return None
        live = [
            e
            for e in els
            if self._actionable(e) and self._tried(obs, e) < MAX_TRIES and not self._avoided(e)
        ]
        named = [e for e in live if wanted.lower() in e.name.lower()]
        listing = len({m.group(0).lower() for m in FILE_NAME.finditer(obs.text)}) >= 2
        near = (
            sorted(
                (e for e in live if wanted.lower() in e.context.lower() and not e.in_dialog),
                key=lambda e: (len(e.context), e.index),
            )
            if listing
            else []
        )  # a "View details" beside the file's name in a list of files
        shown = wanted.lower() in f"{obs.title} {obs.text}".lower()
        verbs = [
            e
            for e in live
            if DOWNLOAD_VERB.search(e.name)
            and (wanted.lower() in e.name.lower() or (shown and not named and not near))
        ]
        if verbs:
            own = [e for e in verbs if overlap(wanted, f"{e.name} {e.context}") >= 0.5]
            return self._commit(obs, self._salient(own or verbs), "download the file")
        if named:
            return self._click(obs, named[0], "open the file")
        if near:
            return self._click(obs, _beside(obs, near, wanted), "open the file")
        return None


def _beside(obs: PageObservation, near: list[Element], wanted: str) -> Element:
    """Of links all named alike ("See details"), the one written after the file's name: as many
    of them come before the name in the page's text as precede this link."""
    name = near[0].name
    alike = sorted((e for e in obs.elements if e.name == name), key=lambda e: e.index)
    text = obs.text.lower()
    at = text.find(wanted.lower())
    if len(alike) < 2 or at < 0 or any(e.name != name for e in near):
        return near[0]
    ordinal = text[:at].count(name.lower())
    pick = alike[ordinal] if ordinal < len(alike) else near[0]
    return pick if pick in near else near[0]
