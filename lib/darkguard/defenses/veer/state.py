"""S_t = G(o_t, L_t): the task-relevant Web state, assembled by code from the current observation
and the temporal evidence still valid (paper 3.1, Appendix B.2); no model is asked.

- `Control`: a grounded control with its state; its `ref` (role, name, and the surrounding text
  when the name alone is ambiguous; for a switch named only "On"/"Off", the surrounding text
  alone, so that switching it keeps its ref) is how trajectories name targets and how a later
  observation re-grounds them (`ground`).
- `TemporalEvidence` (L_t): observed transitions, verified findings, assessed and executed
  actions, open anomalies; an entry expires when its route (the page's path) or the state it
  depends on changes, and it never grants authorization.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlparse

from darkguard.envs.arena.observation import Element, PageObservation

TOGGLES = frozenset({"checkbox", "switch", "radio", "option", "menuitemcheckbox", "menuitemradio"})


@dataclass(frozen=True)
class Control:
    """An element as Veer reasons about it."""

    ref: str
    index: int
    role: str
    name: str
    context: str
    on: bool | None  # checked / pressed / selected; None for a control without such a state
    value: str = ""
    in_dialog: bool = False
    covered: bool = False
    expanded: bool | None = None  # a section's aria-expanded
    disabled: bool = False
    href: str = ""  # a link's destination

    @property
    def toggle(self) -> bool:
        return self.on is not None


STATE_WORDS = {"on": True, "off": False, "enabled": True, "disabled": False}


def _on(el: Element) -> bool | None:
    for key in ("checked", "pressed", "selected"):
        if key in el.state:
            return bool(el.state[key])
    # a clickable whose name is only its state ("On", "Off") is a switch showing that state
    if el.role in ("button", "generic") and (el.name or el.text).strip().lower() in STATE_WORDS:
        return STATE_WORDS[(el.name or el.text).strip().lower()]
    return None


SWITCH = "(switch)"  # a ref's name for a switch named only by its state
STATE_TOKEN = re.compile(r"\b(?:on|off|enabled|disabled)\b", re.I)


def _state_named(role: str, name: str) -> bool:
    return role in ("button", "generic") and name.strip().lower() in STATE_WORDS


def _ref(el: Element, twins: int) -> str:
    name = el.name or el.text
    if _state_named(el.role, name):
        # named by its state, which a click changes: the ref is the text around it, less states
        around = " ".join(STATE_TOKEN.sub(" ", el.context).split())
        return f"{el.role}:{SWITCH} @ {around[:80]}"
    ref = f"{el.role}:{name}"[:120]
    if twins > 1:  # the same role and name twice on the page: the surrounding text tells them apart
        ref += f" @ {el.context[:80]}"
    return ref


@dataclass(frozen=True)
class WebState:
    """S_t: the grounded controls, the route and the page facts of one observation."""

    url: str
    route: str
    title: str
    controls: tuple[Control, ...]
    text: str

    def control(self, ref: str) -> Control | None:
        """The control `ref` names on this page (re-grounding: the exact ref, else the same role
        and name with the most shared context)."""
        exact = [c for c in self.controls if c.ref == ref]
        if exact:
            return exact[0]
        role, _, rest = ref.partition(":")
        name, _, context = rest.partition(" @ ")
        same = [
            c
            for c in self.controls
            if c.role == role
            and ((c.name or "") == name or (name == SWITCH and _state_named(c.role, c.name or "")))
        ]
        if not same:
            return None
        words = set(re.findall(r"\w+", context.lower()))
        return max(same, key=lambda c: len(words & set(re.findall(r"\w+", c.context.lower()))))

    def toggles(self) -> tuple[Control, ...]:
        return tuple(c for c in self.controls if c.toggle)

    def dialog_open(self) -> bool:
        return any(c.in_dialog for c in self.controls)

    def dialog_text(self) -> str:
        """What the open dialog says: the names and surrounding texts of its controls."""
        parts = [p for c in self.controls if c.in_dialog for p in (c.name, c.context)]
        return " ".join(dict.fromkeys(p for p in parts if p))


def route_of(url: str) -> str:
    return urlparse(url).path or "/"


def ground(obs: PageObservation) -> WebState:
    """The state of the current observation, every element grounded with a ref."""
    counts: dict[tuple[str, str], int] = {}
    for el in obs.elements:
        key = (el.role, el.name or el.text)
        counts[key] = counts.get(key, 0) + 1
    controls = tuple(
        Control(
            _ref(el, counts[(el.role, el.name or el.text)]),
            el.index,
            el.role,
            el.name,
            el.context,
            _on(el),
            str(el.state.get("value", "")),
            el.in_dialog,
            el.covered,
            el.state.get("expanded"),
            bool(el.state.get("disabled", False)),
            el.href,
        )
        for el in obs.elements
    )
    return WebState(obs.url, route_of(obs.url), obs.title, controls, obs.text)


@dataclass
class Entry:
    kind: str  # transition | finding | assessed | executed | anomaly
    claim: str
    route: str
    depends_on: tuple[str, ...] = ()  # control refs whose state it rests on
    state: tuple[bool | None, ...] = ()  # their states when it was recorded


@dataclass
class TemporalEvidence:
    """L_t: what earlier observations established, kept while still valid."""

    entries: list[Entry] = field(default_factory=list)

    def add(self, kind: str, claim: str, state: WebState, depends_on: tuple[str, ...] = ()) -> None:
        snapshot = tuple((c.on if (c := state.control(r)) else None) for r in depends_on)
        self.entries.append(Entry(kind, claim, state.route, depends_on, snapshot))

    def observe(self, prev: WebState | None, now: WebState) -> None:
        """Record the toggles that changed between two observations of the same route, and drop
        what the new state invalidates (a finding on another route, a state that changed)."""
        if prev is not None and prev.route == now.route:
            for c in now.toggles():
                before = prev.control(c.ref)
                if before is not None and before.on != c.on:
                    self.add("transition", f"{c.ref}: {before.on} -> {c.on}", now, (c.ref,))
        self.entries = [e for e in self.entries if self._valid(e, now)]

    @staticmethod
    def _valid(entry: Entry, now: WebState) -> bool:
        if entry.kind in ("assessed", "executed"):
            return True  # the action record is kept for the whole episode
        if entry.route != now.route:
            return False
        for ref, then in zip(entry.depends_on, entry.state, strict=True):
            control = now.control(ref)
            if control is not None and control.on != then:
                return False
        return True

    def of(self, kind: str) -> list[Entry]:
        return [e for e in self.entries if e.kind == kind]
