"""Commitments read by meaning (`defenses.veer.concepts`), the task's declined phrases, and L_t's
toggles switched on by another action: wording none of the arena apps use."""

from __future__ import annotations

from darkguard.defenses.veer.assessment import assess
from darkguard.defenses.veer.authorization import offline_authorization
from darkguard.defenses.veer.concepts import read_kind
from darkguard.defenses.veer.contracts import Commitment
from darkguard.defenses.veer.coverage import covered, declined
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


def _outcomes(task: str) -> list[str]:
    return [e.kind for e in offline_authorization(task).authorized_terminal_outcomes]


def test_a_task_clause_with_no_rule_verb_is_read_by_meaning() -> None:
    assert _outcomes("Begin a two-week trial of the Gold photo editing plan.") == ["subscription"]
    assert _outcomes("Put an end to my gym membership.") == ["cancellation"]
    assert _outcomes("Switch location history off, then save.") == ["setting"]
    # what must not happen, a question and a download ask for no outcome
    assert _outcomes("It must not renew into a paid plan.") == []
    assert _outcomes("At what time does the pool open on Sundays?") == []
    assert _outcomes("Download timetable.pdf.") == []


def test_a_commitment_that_names_another_thing_than_the_task_is_not_covered() -> None:
    auth = offline_authorization("Begin a two-week trial of the Gold photo editing plan.")
    assert covered(_commitment("Start trial: Gold", "subscription"), auth)
    assert not covered(_commitment("Start trial: Platinum", "subscription"), auth)
    assert not covered(_commitment("Move to annual billing", "subscription"), auth)
    assert covered(_commitment("Join now", "subscription"), auth)  # names nothing but the act


def test_a_step_that_ends_the_plan_is_covered_by_a_task_to_cancel_and_keeping_is_not() -> None:
    auth = offline_authorization("Put an end to my gym membership.")
    assert covered(_commitment("Proceed to cancel", "subscription"), auth)
    assert not covered(_commitment("Keep my membership and cancel later", "subscription"), auth)
    assert not covered(_commitment("Stay with 30% off", "subscription"), auth)


def test_a_box_ticked_to_opt_out_holds_the_opposite_and_a_plain_step_is_not_read_around() -> None:
    from darkguard.defenses.veer.commitments import active, material_kind

    page = ground(_page(_el(0, "checkbox", "Tick to opt out of partner offers by email",
                            checked=True),
                        _el(1, "checkbox", "Pick up in store", checked=False)))  # fmt: skip
    opt_out, pick_up = page.controls
    assert material_kind(opt_out) and not active(opt_out)
    assert material_kind(pick_up) == ""
