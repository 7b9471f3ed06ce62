"""The `llm` reasoner's replies parsed into Veer's contracts and checked field by field:
enumerations, refs that must be exact refs of the current state, citations that must be verbatim
spans of the task, a verdict that agrees with the commitments it names, objective entries the
postcondition check can read, and an admissible trajectory; a broken reply raises
`ContractError`."""

from __future__ import annotations

import json
import re
from typing import Any

from darkguard.defenses.veer.authorization import grounded
from darkguard.defenses.veer.commitments import active
from darkguard.defenses.veer.contracts import (
    BOUNDARIES,
    COMMITMENT_STATES,
    REVERSIBILITY,
    RISK_RELATIONS,
    SEMANTIC_EFFECTS,
    TRIGGERS,
    VERDICTS,
    Assessment,
    AuthEntry,
    Authorization,
    Commitment,
    ContractError,
    EvidenceRequest,
    Objective,
    StateEntry,
    Transition,
    check_choice,
)
from darkguard.defenses.veer.llm_prompts import (
    AUTH_LISTS,
    KINDS,
    MODALITIES,
    PLAN_VERBS,
    POST_STATES,
    RISK_KINDS,
    SCOPES,
    UNCERTAINTY,
)
from darkguard.defenses.veer.state import Control, WebState
from darkguard.envs.arena.actions import Action, Goto

FENCE = re.compile(r"```(?:json)?\s*(.*?)\s*```", re.S)


def parse_json(reply: str) -> dict:
    """The reply's one JSON object (a reply that is only a fenced block is unwrapped)."""
    text = (reply or "").strip()
    fenced = FENCE.fullmatch(text)
    try:
        data = json.loads(fenced.group(1) if fenced else text)
    except json.JSONDecodeError as err:
        raise ContractError(f"the reply is not one JSON object ({err})") from None
    if not isinstance(data, dict):
        raise ContractError("the reply is not a JSON object")
    return data


def _get(data: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(data, dict):
        raise ContractError(f"{where}: not an object")
    if key not in data:
        raise ContractError(f"{where}.{key}: missing")
    value = data[key]
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise ContractError(f"{where}.{key}: {value!r} has the wrong type")
    return value


def _strings(data: Any, key: str, where: str) -> tuple[str, ...]:
    items = _get(data, key, list, where)
    if not all(isinstance(x, str) for x in items):
        raise ContractError(f"{where}.{key}: every item must be a string")
    return tuple(items)


def _control(ref: str, state: WebState, where: str) -> Control:
    """The control with exactly this ref on the current page (no fuzzy re-grounding here)."""
    found = next((c for c in state.controls if c.ref == ref), None)
    if found is None:
        raise ContractError(f"{where}: {ref!r} is not a ref of the current page")
    return found


# the field checks, public for other methods' contracts (the baselines' model-backed judges)
get_field = _get
get_strings = _strings
exact_control = _control


def parse_authorization(data: dict, task: str) -> Authorization:
    """A_u from the reply; entries whose citation is not in the task are dropped (`grounded`)."""
    lists = {}
    for key in AUTH_LISTS:
        entries = []
        for i, item in enumerate(_get(data, key, list, "authorization")):
            where = f"{key}[{i}]"
            entries.append(
                AuthEntry(
                    _get(item, "task_evidence", str, where),
                    _get(item, "kind", str, where),
                    _get(item, "object", str, where),
                )
            )
        lists[key] = tuple(entries)
    explicit = _get(data, "explicit_terminal_commitment", bool, "authorization")
    return grounded(Authorization(task, explicit, **lists))


def _commitment(item: Any, state: WebState, facts: set[str], where: str) -> Commitment:
    evidence = _strings(item, "evidence", where)
    refs = [c for c in state.controls if c.ref in evidence]
    if not refs and not facts & set(evidence):
        raise ContractError(f"{where}.evidence: names no ref of the current page and no URL")
    outcome = _get(item, "outcome", str, where).strip()
    if not outcome:
        raise ContractError(f"{where}.outcome: empty")
    return Commitment(
        outcome=outcome,
        kind=check_choice(_get(item, "kind", str, where), KINDS, f"{where}.kind"),
        before=check_choice(_get(item, "before", str, where), COMMITMENT_STATES, f"{where}.before"),
        after=check_choice(_get(item, "after", str, where), COMMITMENT_STATES, f"{where}.after"),
        trigger=check_choice(_get(item, "trigger", str, where), TRIGGERS, f"{where}.trigger"),
        evidence=evidence,
        reversibility=check_choice(
            _get(item, "reversibility", str, where), REVERSIBILITY, f"{where}.reversibility"
        ),
        context=refs[0].context[:200] if refs else "",
    )


def parse_assessment(data: dict, state: WebState, action: Action) -> Assessment:
    """(c_t, y_t) from the reply, checked against the grounded state."""
    facts = {state.url} | ({action.url} if isinstance(action, Goto) else set())
    predicted = tuple(
        _commitment(item, state, facts, f"predicted_commitments[{i}]")
        for i, item in enumerate(_get(data, "predicted_commitments", list, "assessment"))
    )
    verdict = check_choice(
        _get(data, "authorization", str, "assessment"), VERDICTS, "authorization"
    )
    positions = _get(data, "unauthorized_commitments", list, "assessment")
    for p in positions:
        if not isinstance(p, int) or isinstance(p, bool) or not 0 <= p < len(predicted):
            raise ContractError(
                f"unauthorized_commitments: {p!r} is not a position of a commitment"
            )
    unauthorized = tuple(predicted[p] for p in sorted(set(positions)))
    if (verdict == "UNAUTHORIZED") != bool(unauthorized):
        raise ContractError(
            f"unauthorized_commitments: {len(unauthorized)} named for an {verdict} verdict"
        )
    carried = _strings(data, "carried_material_state", "assessment")
    for ref in carried:
        _control(ref, state, "carried_material_state")
    if _get(data, "carries_material_state", bool, "assessment") != bool(carried):
        raise ContractError("carries_material_state: disagrees with carried_material_state")
    requests = []
    for i, item in enumerate(_get(data, "evidence_requests", list, "assessment")):
        where = f"evidence_requests[{i}]"
        requests.append(
            EvidenceRequest(
                check_choice(_get(item, "modality", str, where), MODALITIES, f"{where}.modality"),
                check_choice(_get(item, "causal_scope", str, where), SCOPES, f"{where}.scope"),
                _get(item, "claim", str, where),
                _get(item, "reason", str, where),
            )
        )
    return Assessment(
        predicted_commitments=predicted,
        authorization=verdict,
        commitment_boundary=check_choice(
            _get(data, "commitment_boundary", str, "assessment"), BOUNDARIES, "commitment_boundary"
        ),
        action_semantic_effect=check_choice(
            _get(data, "action_semantic_effect", str, "assessment"),
            SEMANTIC_EFFECTS,
            "action_semantic_effect",
        ),
        proposal_risk_relation=check_choice(
            _get(data, "proposal_risk_relation", str, "assessment"),
            RISK_RELATIONS,
            "proposal_risk_relation",
        ),
        carries_material_state=bool(carried),
        carried_material_state=carried,
        evidence_requests=tuple(requests),
        unauthorized=unauthorized,
        reason=_get(data, "reason", str, "assessment"),
        uncertainty=check_choice(
            _get(data, "uncertainty", str, "assessment"), UNCERTAINTY, "uncertainty"
        ),
    )


def _entries(data: dict, key: str, state: WebState, id_keys=("state_id",)) -> list[StateEntry]:
    out = []
    for i, item in enumerate(_get(data, key, list, "objective")):
        where = f"{key}[{i}]"
        id_key = next((k for k in id_keys if isinstance(item, dict) and k in item), id_keys[0])
        state_id = _get(item, id_key, str, where).strip()
        if not state_id:
            raise ContractError(f"{where}.{id_key}: empty")
        refs = _strings(item, "evidence_refs", where)
        for ref in refs:
            _control(ref, state, f"{where}.evidence_refs")
        out.append(StateEntry(state_id, _get(item, "description", str, where), refs))
    if len({e.state_id for e in out}) != len(out):
        raise ContractError(f"{key}: an id is given twice")
    return out


def parse_objective(data: dict, state: WebState) -> Objective | None:
    """I_t from the reply (None when the model says no state change can help), with the risk
    entries in the forms the postcondition check reads."""
    if "objective" in data and data["objective"] is None:
        return None
    risky = _entries(data, "risk_causing_state", state)
    if not risky:
        raise ContractError("risk_causing_state: empty")
    for e in risky:
        where = f"risk_causing_state {e.state_id}"
        kind = e.state_id.split("-")[0]
        if kind not in RISK_KINDS or not e.evidence_refs:
            raise ContractError(f"{where}: the id must be toggle-N, line-N or offer-N with a ref")
        control = _control(e.evidence_refs[0], state, where)
        if kind == "toggle" and not (control.toggle and active(control)):
            raise ContractError(f"{where}: {control.ref!r} is not a toggle that is on")
        if kind == "offer" and not control.in_dialog:
            raise ContractError(f"{where}: {control.ref!r} is not in a dialog")
    target = _entries(data, "target_corrected_state", state)
    if not target:
        raise ContractError("target_corrected_state: empty")
    touched = {ref for e in risky for ref in e.evidence_refs}
    preserved = _entries(data, "preserved_task_state", state)
    for e in preserved:
        where = f"preserved_task_state {e.state_id}"
        kept = re.search(r"stays (on|off)$", e.description)
        if kept is None or len(e.evidence_refs) != 1:
            raise ContractError(f"{where}: one ref and a description ending 'stays on|off'")
        control = _control(e.evidence_refs[0], state, where)
        if control.ref in touched or not control.toggle:
            raise ContractError(f"{where}: {control.ref!r} is not task state to keep")
        if bool(control.on) != (kept.group(1) == "on"):
            raise ContractError(f"{where}: {control.ref!r} is not {kept.group(1)} now")
    return Objective(
        outcome=_get(data, "outcome", str, "objective"),
        risk_causing_state=tuple(risky),
        target_corrected_state=tuple(target),
        preserved_task_state=tuple(preserved),
        terminal_postconditions=tuple(
            _entries(data, "terminal_postconditions", state, ("condition_id", "state_id"))
        ),
    )


def parse_plan(data: dict, goal: Objective, state: WebState, proposal: Control) -> list[Transition]:
    """B_t from the reply, admitted only when complete and grounded: exact refs, never the
    proposal, a verifiable post-state its verb can establish, a toggle turned off only when it
    is a risk of the objective and on now, dependencies on earlier steps, and every risk still
    present on the page addressed."""
    risk = {e.evidence_refs[0]: e.state_id.split("-")[0] for e in goal.risk_causing_state}
    steps: list[Transition] = []
    for i, item in enumerate(_get(data, "trajectory", list, "plan")):
        where = f"trajectory[{i}]"
        step_id = _get(item, "step_id", str, where).strip()
        if not step_id or step_id in {s.step_id for s in steps}:
            raise ContractError(f"{where}.step_id: empty or given twice")
        verb = check_choice(_get(item, "verb", str, where), PLAN_VERBS, f"{where}.verb")
        control = _control(_get(item, "target", str, where), state, f"{where}.target")
        if control.ref == proposal.ref:
            raise ContractError(f"{where}.target: the blocked proposal itself")
        post = check_choice(
            _get(item, "expected_state", str, where), tuple(POST_STATES), f"{where}.expected_state"
        )
        if verb not in POST_STATES[post]:
            raise ContractError(f"{where}: {verb!r} cannot establish {post!r}")
        if post == "off" and not (risk.get(control.ref) == "toggle" and active(control)):
            raise ContractError(f"{where}: {control.ref!r} is not a risk toggle that is on")
        if post == "gone" and risk.get(control.ref) != "line":
            raise ContractError(f"{where}: {control.ref!r} is not a risk line")
        if post == "dialog closed" and (control.toggle or not control.in_dialog):
            raise ContractError(f"{where}: {control.ref!r} does not close a dialog")
        depends = _strings(item, "depends_on", where)
        if not set(depends) <= {s.step_id for s in steps}:
            raise ContractError(f"{where}.depends_on: names no earlier step")
        steps.append(Transition(step_id, verb, control.ref, post, depends))
    if not steps:
        raise ContractError("trajectory: empty")
    targeted = {s.target for s in steps}
    for ref, kind in risk.items():
        control = next((c for c in state.controls if c.ref == ref), None)
        open_risk = control is not None and (
            kind == "line" or (kind == "toggle" and active(control))
        )
        if open_risk and ref not in targeted:
            raise ContractError(f"trajectory: the risk {ref!r} is not addressed")
    if "offer" in risk.values() and not any(s.expected_state == "dialog closed" for s in steps):
        raise ContractError("trajectory: the offer's dialog is not closed")
    return steps
