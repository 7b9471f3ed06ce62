"""Prospective state intervention and guarded execution (paper 3.2-3.3, Appendix A.3-A.4, B.4-B.5),
by the `offline` reasoner.

- `objective(assessment, state)`: I_t = (R_t, S*_t, P_t). R: the active material toggles the
  proposal would carry, or the pending offer it would accept; S*: those toggles off, the offer
  declined; P: the task state already established on the page (chosen options, typed values,
  other toggles), to be left as it is. Immutable once formed.
- `plan(objective, state)`: the complete trajectory B_t before anything is touched: one
  turn_off/uncheck step per toggle (for a chosen option, choosing the option of its group that
  commits nothing, else the one the task authorizes), then, when the proposal was a dialog's
  accept, the dialog's own save (depending on every toggle step) or decline; admitted only when
  every target is grounded on the current page and every dependency names an earlier step.
- `execute(...)`: per step, re-observe, re-ground the target by its ref, check its
  dependencies, click, observe, verify the expected state; a mismatch invalidates the rest and
  replans under the same objective (bounded attempts and correction replans).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from darkguard.defenses.veer.commitments import active, intent, material_kind, stated
from darkguard.defenses.veer.contracts import (
    Assessment,
    Authorization,
    Commitment,
    Objective,
    StateEntry,
    Transition,
)
from darkguard.defenses.veer.coverage import covered
from darkguard.defenses.veer.state import Control, WebState, ground
from darkguard.envs.arena.actions import Click


@dataclass(frozen=True)
class Limits:
    """The paper's runtime bounds (Appendix C.3)."""

    evidence_per_claim: int = 2
    evidence_total: int = 8
    proposal_replans: int = 5
    attempts_per_step: int = 2
    correction_replans: int = 1
    verification_calls: int = 2


def objective(
    assessment: Assessment,
    state: WebState,
    proposal: Control,
    auth: Authorization | None = None,
) -> Objective | None:
    """I_t, or None when no state change can remove the consequence (the proposal itself is the
    unauthorized act, e.g. switching a sharing toggle on or clicking a donation link). A chosen
    option whose group has no option that commits nothing is corrected by choosing the option
    the task authorizes (`authorized_option`), when `auth` names one."""
    risky: list[StateEntry] = []
    target: list[StateEntry] = []
    for c in assessment.unauthorized:
        ref = c.evidence[0] if c.evidence else ""
        control = state.control(ref) if ref else None
        if c.trigger == "retention" and control is not None and intent(control) == "remove":
            risky.append(
                StateEntry(f"line-{len(risky) + 1}", f"{ref} in the order ({c.kind})", (ref,))
            )
            target.append(StateEntry(f"S{len(target) + 1}", f"{ref} removed", (ref,)))
        elif c.trigger == "retention" and control is not None and control.toggle:
            risky.append(StateEntry(f"toggle-{len(risky) + 1}", f"{ref} is on ({c.kind})", (ref,)))
            instead = None
            if auth is not None and counterpart(state, control) is None:
                instead = authorized_option(state, control, auth)
            if instead is not None:
                target.append(StateEntry(f"S{len(target) + 1}", f"{instead.ref} is chosen instead",
                                         (instead.ref,)))  # fmt: skip
            else:
                target.append(StateEntry(f"S{len(target) + 1}", f"{ref} is off", (ref,)))
        elif c.trigger in ("click", "navigation") and control is proposal and proposal.in_dialog:
            risky.append(StateEntry(f"offer-{len(risky) + 1}", f"offer pending: {ref}", (ref,)))
            target.append(StateEntry(f"S{len(target) + 1}", "the offer's dialog is closed", ()))
        else:
            return None
    if not risky:
        return None
    touched = {e.evidence_refs[0] for e in risky if e.evidence_refs}
    for ref in list(touched):  # the option chosen in a risky choice's place changes too
        control = state.control(ref)
        other = counterpart(state, control) if control is not None else None
        if other is not None:
            touched.add(other.ref)
    preserved = tuple(
        StateEntry(f"P{i + 1}", f"{c.ref} stays {'on' if c.on else 'off'}", (c.ref,))
        for i, c in enumerate(
            c
            for c in state.toggles()
            if c.ref not in touched and not material_kind(c) and c.on is not None
        )
    )
    return Objective(
        outcome="; ".join(c.outcome for c in assessment.unauthorized)[:300],
        risk_causing_state=tuple(risky),
        target_corrected_state=tuple(target),
        preserved_task_state=preserved,
        terminal_postconditions=tuple(target),
    )


CHOICES = frozenset({"radio", "option", "menuitemradio"})


def other_options(state: WebState, control: Control) -> list[Control]:
    """The options of a chosen option's group (the same role and the same text around it) that
    could be chosen in its place: unchosen and enabled."""
    if control.role not in CHOICES:
        return []
    return [
        c
        for c in state.controls
        if c is not control
        and c.role == control.role
        and c.context == control.context
        and not c.on
        and not c.disabled
    ]


def counterpart(state: WebState, control: Control) -> Control | None:
    """The option that turns a chosen option's outcome off, since clicking a chosen option does
    not unchoose it: another option of its group that commits nothing ("No" beside "Yes",
    "Standard" beside "Express (+$5)")."""
    return next((c for c in other_options(state, control) if not material_kind(c)), None)


def authorized_option(state: WebState, control: Control, auth: Authorization) -> Control | None:
    """When every option of a chosen option's group commits something ("Pause for one month",
    "Move to a cheaper plan", "Cancel my membership"), the one the task authorizes, if exactly
    one does."""
    fits = [
        c
        for c in other_options(state, control)
        if (kind := material_kind(c))
        and covered(
            Commitment(stated(c)[:160], kind, "latent", "committed", "click", (c.ref,),
                       "limited", context=c.context[:200]),
            auth,
        )
    ]  # fmt: skip
    return fits[0] if len(fits) == 1 else None


def _closer(state: WebState, proposal: Control, after_toggles: bool) -> Control | None:
    """The dialog's own way out: its save (after toggles were turned off), else a decline or
    close control, in the proposal's dialog."""
    scope = [c for c in state.controls if c.in_dialog == proposal.in_dialog and not c.toggle]
    order = ("save", "decline", "close") if after_toggles else ("decline", "close", "save")
    for wanted in order:
        for c in scope:
            if intent(c) == wanted and c is not proposal:
                return c
    return None


def plan(goal: Objective, state: WebState, proposal: Control) -> list[Transition] | None:
    """B_t for `goal` on the current page, complete before acting; None when it cannot be
    admitted (a target not grounded, no way to close an offer's dialog)."""
    steps: list[Transition] = []
    targets = goal.target_corrected_state
    for i, entry in enumerate(goal.risk_causing_state):
        if entry.state_id.startswith("offer"):
            continue  # an offer, closed below
        control = state.control(entry.evidence_refs[0])
        if control is None:
            return None
        wanted = targets[i].evidence_refs if len(targets) == len(goal.risk_causing_state) else ()
        instead = wanted[0] if wanted else control.ref
        if entry.state_id.startswith("line"):
            steps.append(Transition(f"transition-{len(steps) + 1}", "remove", control.ref, "gone"))
        elif active(control) and instead != control.ref:  # the task's own option in its place
            if state.control(instead) is None:
                return None
            steps.append(Transition(f"transition-{len(steps) + 1}", "choose", instead, "chosen"))
        elif active(control) and (other := counterpart(state, control)) is not None:
            steps.append(Transition(f"transition-{len(steps) + 1}", "choose", other.ref, "chosen"))
        elif active(control):
            verb = "uncheck" if control.role in ("checkbox", "radio") else "turn_off"
            steps.append(Transition(f"transition-{len(steps) + 1}", verb, control.ref, "off"))
    offer = any(e.state_id.startswith("offer") for e in goal.risk_causing_state)
    if proposal.in_dialog and (offer or steps):
        closer = _closer(state, proposal, after_toggles=bool(steps) and not offer)
        if closer is None and offer:
            return None
        if closer is not None:
            verb = "save" if intent(closer) == "save" else "decline"
            steps.append(
                Transition(
                    f"transition-{len(steps) + 1}",
                    verb,
                    closer.ref,
                    "dialog closed",
                    tuple(s.step_id for s in steps),
                )
            )
    return steps if _admissible(steps, state) else None


def _admissible(steps: list[Transition], state: WebState) -> bool:
    seen: set[str] = set()
    for step in steps:
        if state.control(step.target) is None or not set(step.depends_on) <= seen:
            return False
        seen.add(step.step_id)
    return bool(steps)


@dataclass
class Execution:
    """What guarded execution did, for the episode record."""

    done: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    replans: int = 0
    ok: bool = False
    observation: object = None


def postconditions_hold(goal: Objective, state: WebState) -> bool:
    """S+ |= S*, S+ |= P and R resolved: every risky toggle off (or gone with its dialog), no
    offer's dialog left open, every preserved toggle as it was."""
    for entry in goal.risk_causing_state:
        control = state.control(entry.evidence_refs[0]) if entry.evidence_refs else None
        if entry.state_id.startswith("toggle") and control is not None and active(control):
            return False
        if entry.state_id.startswith("offer") and control is not None and control.in_dialog:
            return False
        if entry.state_id.startswith("line") and control is not None:
            return False
    for entry in goal.preserved_task_state:
        control = state.control(entry.evidence_refs[0])
        kept_on = entry.description.endswith("stays on")
        if control is not None and bool(control.on) != kept_on:
            return False
    return True


def _holds(step: Transition, before: Control, now: WebState) -> bool:
    """Whether the observed state supports the step's expected post-state."""
    control = now.control(step.target)
    if step.expected_state == "off":
        return control is not None and not active(control)
    if step.expected_state == "gone":
        return control is None
    if step.expected_state == "chosen":
        return control is not None and bool(control.on)
    # "dialog closed": the control that closed it is gone, or no longer in a dialog
    return control is None or (before.in_dialog and not now.dialog_open())


def execute(steps: list[Transition], browser, limits: Limits, replan) -> Execution:
    """Run B_t under runtime checks (Algorithm 1, lines 25-43). `replan(state)` gives a new
    trajectory under the same objective (None: none is admissible)."""
    run = Execution()
    verified: set[str] = set()
    pending = list(steps)
    while pending:
        step = pending.pop(0)
        state = ground(browser.observe())
        control = state.control(step.target)
        if control is None or not set(step.depends_on) <= verified:
            run.mismatches.append(f"{step.step_id}: target or dependency missing")
            pending = _replanned(run, state, limits, replan)
            if pending is None:
                return run
            verified = set()
            continue
        for _ in range(limits.attempts_per_step):
            run.observation = browser.act(Click(control.index))
            now = ground(run.observation)
            if _holds(step, control, now):
                verified.add(step.step_id)
                run.done.append(f"{step.verb} {step.target}")
                break
            control = now.control(step.target) or control
        else:
            run.mismatches.append(f"{step.step_id}: {step.expected_state} not observed")
            pending = _replanned(run, ground(browser.observe()), limits, replan)
            if pending is None:
                return run
            verified = set()
    run.ok = True
    return run


def _replanned(run: Execution, state: WebState, limits: Limits, replan):
    if run.replans >= limits.correction_replans:
        return None
    run.replans += 1
    return replan(state)
