"""Veer's reading of page structure, on wording none of the arena apps use: the option chosen in
a risky choice's place, switches named by their state, a step offered with and without an extra,
links marked as ads, a commit that also grants, extras listed at an added price in a summary, an
answer that keeps on what the task turns off, prices in any currency, and kind words that do
not make a control the one the task asked for."""

from __future__ import annotations

from darkguard.defenses.veer.assessment import assess
from darkguard.defenses.veer.authorization import offline_authorization
from darkguard.defenses.veer.contracts import Commitment
from darkguard.defenses.veer.coverage import covered
from darkguard.defenses.veer.intervention import objective, plan
from darkguard.defenses.veer.page_reading import advertised
from darkguard.defenses.veer.prices import charged_more
from darkguard.defenses.veer.state import ground
from darkguard.envs.arena.actions import Click
from darkguard.envs.arena.observation import Element, PageObservation

ORIGIN = "http://127.0.0.1:1"


def _el(index: int, role: str, name: str, context: str = "", **state) -> Element:
    return Element(index, role, name, name, context, state, (0, 0, 10, 10), 1.0, False, False, "")


def _state(*els: Element, text: str = "", title: str = "Page"):
    return ground(PageObservation("goal", ORIGIN + "/p", title, text, tuple(els), 0, 30))


def _verdict(task: str, state, index: int):
    return assess(Click(index), state, offline_authorization(task), ORIGIN)


def test_a_chosen_yes_is_undone_by_choosing_the_no_of_its_group() -> None:
    around = "Express lane (+$6) optional Yes No"
    state = _state(_el(0, "radio", "Yes", around, checked=True),
                   _el(1, "radio", "No", around, checked=False),
                   _el(2, "button", "Place order"))  # fmt: skip
    verdict = _verdict("Buy one desk fan.", state, 2)
    assert verdict.authorization == "UNAUTHORIZED"
    goal = objective(verdict, state, state.controls[2])
    steps = plan(goal, state, state.controls[2])
    assert [(s.verb, s.target) for s in steps] == [("choose", state.controls[1].ref)]
    assert not any(p.evidence_refs == (state.controls[1].ref,) for p in goal.preserved_task_state)


def test_a_switch_named_by_its_state_keeps_its_ref_when_switched() -> None:
    on = _state(_el(0, "generic", "On", "Express lane (+$6) On"), _el(1, "button", "Next"))
    off = _state(_el(0, "generic", "Off", "Express lane (+$6) Off"), _el(1, "button", "Next"))
    ref = on.controls[0].ref
    assert on.controls[0].on is True and off.control(ref) is off.controls[0]
    assert off.control(ref).on is False


def test_a_step_offered_with_and_without_an_extra_commits_the_extra() -> None:
    task = "Reserve a court on Friday at 18:00 for Ann Lee."
    twins = _state(
        _el(0, "button", "Next with Racket hire"), _el(1, "button", "Next without extras")
    )
    assert _verdict(task, twins, 0).authorization == "UNAUTHORIZED"
    assert _verdict(task, twins, 1).authorization == "AUTHORIZED"
    alone = _state(_el(0, "button", "Pay with card"), _el(1, "button", "Back"))
    assert _verdict("Buy one desk fan.", alone, 0).authorization == "AUTHORIZED"
    asked = "Reserve a court on Friday at 18:00 for Ann Lee with racket hire."
    assert _verdict(asked, twins, 0).authorization == "AUTHORIZED"


def test_a_link_marked_as_an_ad_beside_it_leads_away_from_the_task() -> None:
    state = _state(_el(0, "link", "Get it free", "manual.pdf 2 MB Get it free Sponsored Save"),
                   _el(1, "button", "Save"))  # fmt: skip
    assert _verdict("Download manual.pdf.", state, 0).authorization == "UNAUTHORIZED"
    assert advertised(state.controls[0])
    plain = _state(_el(0, "link", "Adverts policy", "Help Adverts policy Contact"))
    assert not advertised(plain.controls[0])  # a word about ads is no mark beside the link


def test_a_commit_that_also_grants_something_commits_it() -> None:
    state = _state(_el(0, "checkbox", "Location history", checked=False),
                   _el(1, "button", "Save and share my profile with sponsors"))  # fmt: skip
    task = "Switch location history off, then save."
    assert _verdict(task, state, 1).authorization == "UNAUTHORIZED"


def test_an_extra_listed_at_an_added_price_beside_the_commit_is_charged() -> None:
    task = "Reserve a court on Friday at 18:00 for Ann Lee."
    sneaked = _state(
        _el(0, "button", "Confirm", "Friday 18:00 for Ann Lee, with Ball boy (+$5) Confirm")
    )
    verdict = _verdict(task, sneaked, 0)
    assert verdict.authorization == "UNAUTHORIZED"
    assert verdict.unauthorized[0].outcome == "Ball boy (+$5)"
    clean = _state(_el(0, "button", "Confirm", "Friday 18:00 for Ann Lee Confirm"))
    assert _verdict(task, clean, 0).authorization == "AUTHORIZED"


def test_keeping_on_what_the_task_turns_off_contradicts_the_task() -> None:
    dialog = "Keep location history? Most people keep it. Keep it on No thanks"
    keep, decline = (
        Element(i, "button", name, name, dialog, {}, (0, 0, 9, 9), 1.0, False, True, "")
        for i, name in enumerate(("Keep it on", "No thanks"))
    )
    state = ground(PageObservation("goal", ORIGIN + "/s", "Settings", "", (keep, decline), 0, 30))
    task = "Switch location history off, then save."
    assert _verdict(task, state, 0).authorization == "UNAUTHORIZED"
    assert _verdict(task, state, 1).authorization == "AUTHORIZED"


def test_prices_are_read_in_any_currency() -> None:
    raised = _state(text="Order: Desk fan Qty: 1 £31.00 Total £31.00")
    assert charged_more(raised, {"Desk fan": 27.0}) == [("Desk fan", 27.0, 31.0)]


def test_kind_words_shared_with_the_task_do_not_cover_a_renewal() -> None:
    auth = offline_authorization("Begin a two-week trial of the Gold photo editing plan.")
    renewal = Commitment("Keep my plan going after the free trial", "subscription", "active",
                         "committed", "retention", ("x",), "limited")  # fmt: skip
    assert not covered(renewal, auth)
