"""Veer's four model-backed decisions behind one interface (paper Algorithm 1, Appendix B-C.1):
the task authorization A(u), the consequence assessment P(a_t, S_t, A_u), the intervention
objective I_t and the prospective trajectory B_t.

Two reasoners answer them with the same contracts (`contracts`): `OfflineReasoner`, the
deterministic rules of `authorization`, `assessment` and `intervention`, and `LLMReasoner`
(`llm`), a chat model asked for strict JSON. State grounding, evidence gathering, guarded
execution and the postcondition check are code in both (paper B.2, B.5).
`reasoner_from(spec)` makes one from a params value: "offline" or a model spec.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from darkguard.defenses.veer import assessment, authorization, intervention
from darkguard.defenses.veer.contracts import Assessment, Authorization, Objective, Transition
from darkguard.defenses.veer.llm import LLMReasoner
from darkguard.defenses.veer.state import Control, TemporalEvidence, WebState
from darkguard.envs.arena.actions import Action
from darkguard.models.spec import ModelSpec


class Reasoner(Protocol):
    """The decisions Algorithm 1 asks of a reasoner (lines 2, 3, 17 and 19)."""

    name: str

    def authorize(self, goal: str) -> Authorization:
        """A_u for the user's task (fixed for the episode)."""
        ...

    def assess(
        self,
        action: Action,
        state: WebState,
        auth: Authorization,
        start_origin: str,
        seen_options: frozenset[str] = frozenset(),
        shown_prices: dict[str, float] | None = None,
        evidence: TemporalEvidence | None = None,
    ) -> Assessment:
        """(c_t, y_t) for the proposed action under the current state and A_u."""
        ...

    def objective(
        self, assessment: Assessment, state: WebState, proposal: Control, auth: Authorization
    ) -> Objective | None:
        """I_t, or None when no state change can remove the consequence."""
        ...

    def plan(self, goal: Objective, state: WebState, proposal: Control) -> list[Transition] | None:
        """B_t on the current page, complete before acting; None when none is admissible."""
        ...


class OfflineReasoner:
    """The `offline` reasoner: the deterministic rule modules, called unchanged."""

    name = "offline"

    def authorize(self, goal: str) -> Authorization:
        return authorization.offline_authorization(goal)

    def assess(
        self,
        action: Action,
        state: WebState,
        auth: Authorization,
        start_origin: str,
        seen_options: frozenset[str] = frozenset(),
        shown_prices: dict[str, float] | None = None,
        evidence: TemporalEvidence | None = None,
    ) -> Assessment:
        """The rules read prices shown earlier from `shown_prices` and toggles switched on by
        another action from `evidence` (L_t; None in the `w/o temporal evidence` ablation)."""
        return assessment.assess(
            action, state, auth, start_origin, seen_options, shown_prices, evidence
        )

    def objective(
        self, assessment: Assessment, state: WebState, proposal: Control, auth: Authorization
    ) -> Objective | None:
        return intervention.objective(assessment, state, proposal, auth)

    def plan(self, goal: Objective, state: WebState, proposal: Control) -> list[Transition] | None:
        return intervention.plan(goal, state, proposal)


def reasoner_from(spec: Any) -> Reasoner:
    """The reasoner a params value names: "offline", or a model spec (a mapping such as
    `{backend: openai, path, base_url, api_key_env, ...}`, or a `ModelSpec`) for the `llm` one."""
    if spec == "offline":
        return OfflineReasoner()
    if isinstance(spec, ModelSpec | Mapping):
        return LLMReasoner(spec)
    raise ValueError(
        f"Veer reasoner {spec!r}: give 'offline' or a model spec mapping "
        "({backend: openai, path: ..., base_url: ..., api_key_env: ...})"
    )
