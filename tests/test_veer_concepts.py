"""Commitments read by meaning (`defenses.veer.concepts`), the task's declined phrases, and L_t's
toggles switched on by another action: wording none of the arena apps use."""

from __future__ import annotations

from darkguard.defenses.veer.assessment import assess, covered, declined
from darkguard.defenses.veer.authorization import offline_authorization
from darkguard.defenses.veer.concepts import read_kind
from darkguard.defenses.veer.contracts import Commitment
from darkguard.defenses.veer.state import TemporalEvidence, ground
from darkguard.envs.arena.actions import Click
from darkguard.envs.arena.observation import Element, PageObservation

ORIGIN = "http://127.0.0.1:1"


def test_kinds_are_read_by_meaning_in_words_no_rule_lists() -> None:
    assert read_kind("Email me coupons and seasonal sales") == "marketing"
    assert read_kind("Let affiliated firms access my browsing history") == "data_sharing"
    assert read_kind("Add a 3-year breakdown guarantee") == "add_on"
    assert read_kind("Gift box (+$3)") == "add_on"  # a label that adds a price is a paid extra
    assert read_kind("Next without extras") == ""  # what follows "without" is declined
    assert read_kind("View order") == ""


def _commitment(outcome: str, kind: str) -> Commitment:
    return Commitment(outcome, kind, "latent", "active", "click", ("x",), "reversible")


def test_the_task_declines_by_meaning_and_its_own_commit_is_covered() -> None:
    task = "Sign up for the Lite plan trial with me@x.org, without automatic renewal."
    renew = _commitment("Keep renewing my plan automatically", "subscription")
    assert declined(renew, task) and not covered(renew, offline_authorization(task))
    join = _commitment("Join now", "subscription")
    assert not declined(join, task) and covered(join, offline_authorization(task))
    extra = _commitment("Add a 3-year breakdown guarantee", "add_on")
    assert declined(extra, "Order one kettle, nothing else.")


def _el(index: int, role: str, name: str, **state) -> Element:
    return Element(index, role, name, name, "", state, (0, 0, 10, 10), 1.0, False, False, "")


def _page(*els: Element) -> PageObservation:
    return PageObservation("goal", ORIGIN + "/plan", "Plan", "", tuple(els), 0, 30)


def test_a_toggle_switched_on_by_another_click_is_charged_only_with_temporal_evidence() -> None:
    before = _page(_el(0, "radio", "Yearly billing", checked=False),
                   _el(1, "checkbox", "Email me coupons and seasonal sales", checked=False),
                   _el(2, "link", "Help"))  # fmt: skip
    after = _page(_el(0, "radio", "Yearly billing", checked=True),
                  _el(1, "checkbox", "Email me coupons and seasonal sales", checked=True),
                  _el(2, "link", "Help"))  # fmt: skip
    s0, s1 = ground(before), ground(after)
    evidence = TemporalEvidence()
    evidence.add("assessed", "released Click", s0, (s0.controls[0].ref,))  # the radio was clicked
    evidence.observe(s0, s1)  # ... and the checkbox went on with it
    auth = offline_authorization("Read the help page.")
    with_lt = assess(Click(2), s1, auth, ORIGIN, evidence=evidence)
    assert with_lt.authorization == "UNAUTHORIZED"
    assert [c.trigger for c in with_lt.unauthorized] == ["transition"]
    assert assess(Click(2), s1, auth, ORIGIN).authorization == "AUTHORIZED"  # w/o L_t
