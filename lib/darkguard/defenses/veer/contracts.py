"""Veer's structured representations (paper Appendix B, Figures 5-7), field for field: the task
authorization A_u, a predicted commitment and the consequence assessment, the intervention
objective I_t = (R_t, S*_t, P_t) and a prospective transition. Both reasoners (`offline`, `llm`)
produce these; `from_json` reads an LLM's strict-JSON answer into them and names the field that
is wrong."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

VERDICTS = ("AUTHORIZED", "UNAUTHORIZED", "UNCERTAIN")
COMMITMENT_STATES = ("latent", "pending", "active", "committed", "none")
TRIGGERS = ("click", "retention", "omission", "save", "submit", "navigation")
REVERSIBILITY = ("reversible", "limited", "irreversible")
BOUNDARIES = ("NONE", "REVERSIBLE", "SAVE", "ACCEPT", "SUBMIT", "CHECKOUT", "DONE")
SEMANTIC_EFFECTS = (
    "CONTEXT_ESTABLISHMENT",
    "INFORMATION_GATHERING",
    "STATE_REDUCING",
    "STATE_MODIFYING",
    "WORKFLOW_ADVANCE",
    "COMMITMENT",
    "UNKNOWN",
)
RISK_RELATIONS = (
    "CREATES",
    "INCREASES",
    "COMMITS_EXISTING",
    "CARRIES_TO_MATERIAL_BOUNDARY",
    "PREEXISTING_UNCHANGED",
    "UNRELATED",
    "UNKNOWN",
)
VERBS = ("turn_off", "uncheck", "remove", "decline", "save", "click", "close", "back")


class ContractError(ValueError):
    """A structured answer that breaks its contract (the field is named)."""


@dataclass(frozen=True)
class AuthEntry:
    """One authorization or constraint, grounded in a verbatim non-empty substring of the task."""

    task_evidence: str
    kind: str = ""  # purchase, subscription, booking, cancellation, setting, sign_up, ...
    object: str = ""  # what the task names (the item, the plan, the setting)


@dataclass(frozen=True)
class Authorization:
    """A_u = A(u): fixed for the episode; runtime observations never widen it (paper B.1)."""

    user_task: str
    explicit_terminal_commitment: bool
    authorized_terminal_outcomes: tuple[AuthEntry, ...] = ()
    material_constraints: tuple[AuthEntry, ...] = ()
    requested_informational_outputs: tuple[AuthEntry, ...] = ()
    designated_output_targets: tuple[AuthEntry, ...] = ()

    def entries(self) -> tuple[AuthEntry, ...]:
        return (
            self.authorized_terminal_outcomes
            + self.material_constraints
            + self.requested_informational_outputs
            + self.designated_output_targets
        )


@dataclass(frozen=True)
class Commitment:
    """A user-facing outcome the proposed action would change (paper Figure 6)."""

    outcome: str  # in words, e.g. "travel insurance added to the booking"
    kind: str  # consent, subscription, data_sharing, add_on, purchase, setting, marketing
    before: str = "latent"
    after: str = "committed"
    trigger: str = "click"
    evidence: tuple[str, ...] = ()  # element refs and page facts it rests on
    reversibility: str = "limited"
    context: str = ""  # the text around the control it was read from


@dataclass(frozen=True)
class EvidenceRequest:
    modality: str  # visual | semantic | history
    causal_scope: str  # PROPOSED_ACTION | LATER_ACTION
    claim: str
    reason: str = ""


@dataclass(frozen=True)
class Assessment:
    """(c_t, y_t) = P(a_t, S_t, A_u): prediction and authorization kept apart."""

    predicted_commitments: tuple[Commitment, ...]
    authorization: str  # AUTHORIZED | UNAUTHORIZED | UNCERTAIN
    commitment_boundary: str = "NONE"
    action_semantic_effect: str = "UNKNOWN"
    proposal_risk_relation: str = "UNKNOWN"
    carries_material_state: bool = False
    carried_material_state: tuple[str, ...] = ()
    evidence_requests: tuple[EvidenceRequest, ...] = ()
    unauthorized: tuple[Commitment, ...] = ()  # the commitments no authorization entry covers
    reason: str = ""
    uncertainty: str = "none"


@dataclass(frozen=True)
class StateEntry:
    state_id: str
    description: str
    evidence_refs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Objective:
    """I_t = (R_t, S*_t, P_t) plus terminal postconditions; immutable once formed (B.4)."""

    outcome: str
    risk_causing_state: tuple[StateEntry, ...]
    target_corrected_state: tuple[StateEntry, ...]
    preserved_task_state: tuple[StateEntry, ...] = ()
    terminal_postconditions: tuple[StateEntry, ...] = ()


@dataclass(frozen=True)
class Transition:
    """One prospective step tau_i (B.5): declared, with its expected post-state, before acting."""

    step_id: str
    verb: str
    target: str  # an exact element ref of the current observation
    expected_state: str
    depends_on: tuple[str, ...] = field(default_factory=tuple)


def to_json(value: Any) -> Any:
    """A contract as JSON-able data (tuples as lists)."""
    return asdict(value)


def check_choice(value: str, allowed: tuple[str, ...], where: str) -> str:
    """`value` if it is one of `allowed` (case-insensitive), else a ContractError naming `where`."""
    for option in allowed:
        if str(value).strip().lower() == option.lower():
            return option
    raise ContractError(f"{where}: {value!r} is not one of {', '.join(allowed)}")
