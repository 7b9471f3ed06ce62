"""Veer's Web state S_t = G(o_t, L_t): controls grounded with refs that re-ground on a later
page; temporal evidence records transitions and expires with its route or state."""

from __future__ import annotations

from darkguard.defenses.veer.state import TemporalEvidence, ground
from darkguard.envs.arena.observation import Element, PageObservation


def el(index: int, role: str, name: str, context: str = "", **state) -> Element:
    return Element(index, role, name, name, context, state, (0, 0, 10, 10), 1.0, False, False)


def page(url: str, *elements: Element) -> PageObservation:
    return PageObservation("goal", url, "title", "text", tuple(elements), 0, 30)


SETTINGS = page(
    "http://127.0.0.1:1/health/privacy",
    el(0, "switch", "Share my data", "Data sharing with partners", checked=True),
    el(1, "switch", "Track activity", "Activity tracking", checked=True),
    el(2, "button", "Save", "Privacy settings"),
)


def test_refs_reground_on_a_later_page_even_when_indexes_move() -> None:
    state = ground(SETTINGS)
    share = state.control("switch:Share my data")
    assert share is not None and share.on is True and share.index == 0
    later = ground(
        page(SETTINGS.url, el(0, "link", "Home"), el(1, "switch", "Share my data", checked=False))
    )
    moved = later.control(share.ref)
    assert moved is not None and moved.index == 1 and moved.on is False
    assert later.control("switch:Track activity") is None


def test_twin_names_are_told_apart_by_their_context() -> None:
    state = ground(
        page(
            "http://127.0.0.1:1/cart",
            el(0, "button", "Remove", "Laptop $999.99"),
            el(1, "button", "Remove", "Extended warranty $89.00"),
        )
    )
    refs = [c.ref for c in state.controls]
    assert refs[0] != refs[1] and "warranty" in refs[1]
    assert state.control(refs[1]).index == 1


def test_temporal_evidence_records_transitions_and_expires() -> None:
    evidence = TemporalEvidence()
    before = ground(SETTINGS)
    after = ground(
        page(SETTINGS.url, el(0, "switch", "Share my data", checked=False), SETTINGS.elements[1])
    )
    evidence.observe(before, after)
    assert [e.claim for e in evidence.of("transition")] == ["switch:Share my data: True -> False"]
    evidence.add("finding", "tracking is on", after, ("switch:Track activity",))
    evidence.add("executed", "click Save", after)
    toggled = ground(
        page(
            SETTINGS.url,
            after.controls and SETTINGS.elements[0],
            el(1, "switch", "Track activity", checked=False),
        )
    )
    evidence.observe(after, toggled)
    assert "tracking is on" not in [e.claim for e in evidence.entries]  # its state changed
    evidence.observe(toggled, ground(page("http://127.0.0.1:1/health/", el(0, "link", "Home"))))
    assert [e.kind for e in evidence.entries] == ["executed"]  # a new route: only action records
