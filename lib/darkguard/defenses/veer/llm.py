"""The `llm` reasoner: Veer's four decisions asked of a chat model, one prompt each, strict JSON
back (paper Appendix B, Figures 5-7; Appendix C.1-C.3).

The prompts are ours, written after the paper's contracts (its prompt texts are not public): each
names the contract's fields and asks for one JSON object only. The model sees the user's task,
the authorization, the grounded state as text (URL, title, what an open dialog says, every
control with its exact ref, role, name, state and surrounding text, a page excerpt), the
temporal evidence still valid and the proposed action; never an id, selector or label.

Every reply is parsed into the contract dataclasses and checked field by field: enumerations
(`check_choice`), refs that must be exact refs of the current state, authorization citations
that must be verbatim spans of the task (`grounded` drops the others), a verdict that agrees
with the commitments it names, objective entries the programmatic postcondition check can read,
and a trajectory whose targets, post-states and dependencies are admissible. A reply that breaks
its contract is asked again once with the error appended (at most `Limits.verification_calls`
calls per decision); after that the decision is UNCERTAIN (assessment), no objective, no plan,
or an empty authorization: a broken answer is never authorization. A backend that cannot be
reached raises (an unreachable model is not a verdict).

The reasoner holds the backend's spec and builds the backend in the process that first uses it,
so a `Veer` factory carrying it pickles to worker processes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from darkguard.defenses.veer.contracts import (
    Assessment,
    Authorization,
    ContractError,
    Objective,
    Transition,
    to_json,
)
from darkguard.defenses.veer.intervention import Limits
from darkguard.defenses.veer.llm_parse import (
    parse_assessment,
    parse_authorization,
    parse_json,
    parse_objective,
    parse_plan,
)
from darkguard.defenses.veer.llm_prompts import (
    ASSESS,
    AUTHORIZE,
    OBJECTIVE,
    PLAN,
    SYSTEM,
    quote,
    render_action,
    render_auth,
    render_evidence,
    render_state,
)
from darkguard.defenses.veer.state import Control, TemporalEvidence, WebState
from darkguard.envs.arena.actions import Action, Click, Scroll, Select, Type
from darkguard.models.spec import ModelSpec

T = TypeVar("T")


# -- the reasoner -----------------------------------------------------------------------------
class LLMReasoner:
    """Veer's decisions by a chat model (`backend`: a ModelSpec or a spec mapping; a live backend
    object is also taken, for use in this process only)."""

    name = "llm"

    def __init__(self, backend: Any, limits: Limits | None = None) -> None:
        if isinstance(backend, Mapping):
            backend = ModelSpec.from_dict("veer_reasoner", dict(backend))
        self.spec: ModelSpec | None = backend if isinstance(backend, ModelSpec) else None
        self._backend = None if self.spec else backend
        self.limits = limits or Limits()

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        if self.spec is not None:
            state["_backend"] = None  # rebuilt in the process that uses it
        return state

    def backend(self):
        """The chat backend, built on first use."""
        if self._backend is None:
            from darkguard.models.backends import load_backend

            self._backend = load_backend(self.spec)
        return self._backend

    def _ask(
        self, instructions: str, user: str, parse: Callable[[dict], T], system: str = SYSTEM
    ) -> T:
        """The parsed answer; ContractError after `verification_calls` broken replies."""
        conversation = [
            {"role": "system", "content": f"{system}\n\n{instructions}"},
            {"role": "user", "content": user},
        ]
        problem = "no call was allowed"
        for _ in range(max(1, self.limits.verification_calls)):
            (reply,) = self.backend().generate([conversation])
            try:
                return parse(parse_json(reply))
            except ContractError as err:
                problem = str(err)
            again = (
                f"That reply breaks the contract: {problem}. Reply again with the corrected JSON."
            )
            conversation = [
                *conversation[:2],
                {"role": "assistant", "content": reply},
                {"role": "user", "content": again},
            ]
        raise ContractError(problem)

    def ask(self, system: str, instructions: str, user: str, parse: Callable[[dict], T]) -> T:
        """One strict-JSON decision under another method's contract (the baselines' model-backed
        judges), asked and checked as Veer's are: a broken reply is asked again with its error,
        and ContractError is raised after `verification_calls` broken replies."""
        return self._ask(instructions, user, parse, system)

    def authorize(self, goal: str) -> Authorization:
        """A(u); an empty task, or a reply that stays broken, authorizes nothing."""
        nothing = Authorization(goal, False)
        if not goal.strip():
            return nothing
        try:
            return self._ask(
                AUTHORIZE, f"USER TASK:\n{goal}", lambda d: parse_authorization(d, goal)
            )
        except ContractError:
            return nothing

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
        """P(a_t, S_t, A_u) by the model; a scroll only looks, and an action on no element of
        the page acts on nothing (both released without a call)."""
        on_page = any(c.index == getattr(action, "index", -1) for c in state.controls)
        if isinstance(action, Scroll):
            return Assessment((), "AUTHORIZED", action_semantic_effect="CONTEXT_ESTABLISHMENT")
        if isinstance(action, Click | Select | Type) and not on_page:
            return Assessment((), "AUTHORIZED", action_semantic_effect="UNKNOWN")
        user = (
            f"USER TASK:\n{auth.user_task}\n\nAUTHORIZATION:\n{render_auth(auth)}\n\n"
            f"CURRENT WEB STATE:\n{render_state(state)}\n\n"
            f"TEMPORAL EVIDENCE:\n"
            f"{render_evidence(evidence, start_origin, seen_options, shown_prices)}\n\n"
            f"PROPOSED ACTION:\n{render_action(action, state)}"
        )
        try:
            return self._ask(ASSESS, user, lambda d: parse_assessment(d, state, action))
        except ContractError as err:
            return Assessment(
                (), "UNCERTAIN", reason=f"no valid assessment: {err}", uncertainty="high"
            )

    def objective(
        self, assessment: Assessment, state: WebState, proposal: Control, auth: Authorization
    ) -> Objective | None:
        """I_t by the model; None when it says no state change helps or stays broken."""
        user = (
            f"USER TASK:\n{auth.user_task}\n\nAUTHORIZATION:\n{render_auth(auth)}\n\n"
            f"CURRENT WEB STATE:\n{render_state(state)}\n\n"
            f"PROPOSED ACTION:\nthe action on {quote(proposal.ref)}\n\n"
            f"ASSESSMENT:\n{json.dumps(to_json(assessment), ensure_ascii=False)}"
        )
        try:
            return self._ask(OBJECTIVE, user, lambda d: parse_objective(d, state))
        except ContractError:
            return None

    def plan(self, goal: Objective, state: WebState, proposal: Control) -> list[Transition] | None:
        """B_t by the model; None when no admissible trajectory comes back."""
        user = (
            f"OBJECTIVE:\n{json.dumps(to_json(goal), ensure_ascii=False)}\n\n"
            f"CURRENT WEB STATE:\n{render_state(state)}\n\n"
            f"PROPOSED ACTION (blocked):\nthe action on {quote(proposal.ref)}"
        )
        try:
            return self._ask(PLAN, user, lambda d: parse_plan(d, goal, state, proposal))
        except ContractError:
            return None
