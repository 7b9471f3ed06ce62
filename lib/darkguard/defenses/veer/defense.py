"""Veer at the action boundary (paper Algorithm 1); its decisions come from a reasoner
(`reasoner`: the deterministic `offline` one by default, or the `llm` one).

For each proposed action: S_t from the observation and the valid temporal evidence, A_u fixed
from the task, then the assessment. AUTHORIZED releases the action. UNCERTAIN opens the folded
options it names (bounded evidence gathering: clicks that reveal, never commit) and hands the
revealed page back to the agent, whose next proposal is assessed on what is now visible.
UNAUTHORIZED forms the objective, plans the whole trajectory, executes it under runtime checks,
and returns control once the postconditions hold; when no state change can remove the
consequence (the proposal itself is the unauthorized act) the proposal is turned back with its
reason, and after `proposal_replans` of those the episode ends safely.

Variants (the paper's ablations): `full`; `wo_si` (turn the proposal back, change nothing);
`reactive` (one corrective step at a time, no full rollout); `wo_te` (no temporal evidence);
`one_step` (one corrective action, no verification).
"""

from __future__ import annotations

from urllib.parse import urlparse

from darkguard.defenses import RELEASE, Browser, Passive, Verdict
from darkguard.defenses.veer.commitments import intent
from darkguard.defenses.veer.contracts import Assessment, to_json
from darkguard.defenses.veer.intervention import Limits, execute, postconditions_hold
from darkguard.defenses.veer.page_reading import folded_options
from darkguard.defenses.veer.prices import shown_price
from darkguard.defenses.veer.reasoner import OfflineReasoner, Reasoner
from darkguard.defenses.veer.state import Control, TemporalEvidence, WebState, ground
from darkguard.envs.arena.actions import Action, Click
from darkguard.envs.arena.observation import PageObservation

VARIANTS = ("full", "wo_si", "reactive", "wo_te", "one_step")


class Veer(Passive):
    """The Veer runtime defense; `reasoner` answers its four decisions (default: `offline`,
    deterministic code, no model)."""

    def __init__(
        self, variant: str = "full", limits: Limits | None = None, reasoner: Reasoner | None = None
    ) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"Veer variant {variant!r} not in {VARIANTS}")
        self.variant, self.limits = variant, limits or Limits()
        self.reasoner = reasoner or OfflineReasoner()
        self.name = "veer" if variant == "full" else f"veer-{variant.replace('_', '-')}"
        self.reset("", "")

    def reset(self, goal: str, episode_key: str) -> None:
        self.auth = self.reasoner.authorize(goal)
        self.evidence = TemporalEvidence()
        self.start_origin = ""
        self.previous: WebState | None = None
        self.opened: set[str] = set()
        self.evidence_used = 0
        self.turned_back = 0
        self.prices: dict[str, float] = {}  # item -> the price its product page showed

    def review(self, obs: PageObservation, action: Action, browser: Browser) -> Verdict:
        state = ground(obs)
        if not self.start_origin:
            parsed = urlparse(obs.url)
            self.start_origin = f"{parsed.scheme}://{parsed.netloc}"
        if self.variant != "wo_te":  # w/o TE: no transitions, no findings carried between pages
            self.evidence.observe(self.previous, state)
            shown = shown_price(state)
            if shown is not None:
                self.prices[shown[0]] = shown[1]
                self.evidence.add("finding", f"{shown[0]} shown at ${shown[1]:.2f}", state)
        self.previous = state
        assessment = self.reasoner.assess(
            action,
            state,
            self.auth,
            self.start_origin,
            frozenset(self.opened),
            self.prices,
            None if self.variant == "wo_te" else self.evidence,
        )
        proposal = next(
            (c for c in state.controls if c.index == getattr(action, "index", -1)), None
        )
        if assessment.authorization == "AUTHORIZED":
            # which control the released action touched: a toggle that changes after it was
            # switched by this action, not by another (page_reading.flipped_by_another)
            touched = (proposal.ref,) if proposal is not None else ()
            self.evidence.add("assessed", f"released {type(action).__name__}", state, touched)
            return RELEASE
        if proposal is not None and proposal.in_dialog:
            # a dialog's folded options are seen before its accept is judged or corrected
            unseen = [c for c in folded_options(state, proposal) if c.ref not in self.opened]
            if unseen:
                return self._gather(unseen, assessment, browser)
        if assessment.authorization == "UNCERTAIN" or proposal is None:
            return Verdict("terminate", "the consequence could not be established")
        return self._intervene(assessment, state, proposal, browser)

    # -- bounded evidence gathering: open what is folded, never commit --------------------------
    def _gather(self, unseen: list, assessment: Assessment, browser: Browser) -> Verdict:
        opened = []
        for control in unseen[: self.limits.evidence_per_claim]:
            if self.evidence_used >= self.limits.evidence_total:
                break
            self.opened.add(control.ref)
            self.evidence_used += 1
            now = ground(browser.observe()).control(control.ref)
            if now is not None:
                browser.act(Click(now.index))
                opened.append(control.ref)
        if not opened:  # nothing could be looked at: uncertainty is not authorization
            return Verdict("terminate", "the consequence could not be established")
        after = browser.observe()
        self.previous = ground(after)
        trace = ({"assessment": to_json(assessment), "opened": opened},)
        return Verdict("intervened", observation=after, trace=trace)

    # -- UNAUTHORIZED: objective, prospective trajectory, guarded execution ----------------------
    def _turn_back(self, assessment: Assessment, proposal_name: str) -> Verdict:
        self.turned_back += 1
        if self.turned_back > self.limits.proposal_replans:
            return Verdict("terminate", "unauthorized proposals kept coming: stopped safely")
        reason = assessment.reason or "a consequence the task did not authorize"
        return Verdict("replan", f'Do not click "{proposal_name}": {reason}.')

    def _intervene(
        self, assessment: Assessment, state: WebState, proposal: Control, browser: Browser
    ) -> Verdict:
        name = proposal.name or proposal.context[:60]
        goal = None
        if self.variant != "wo_si":
            goal = self.reasoner.objective(assessment, state, proposal, self.auth)
        if goal is None:
            return self._turn_back(assessment, name)
        steps = self.reasoner.plan(goal, state, proposal)
        if steps is None:
            more = [
                c
                for c in state.controls
                if c.in_dialog == proposal.in_dialog
                and intent(c) == "more"
                and c.ref not in self.opened
            ]
            if more and proposal.in_dialog:  # the way out is folded away: look first
                return self._gather(more, assessment, browser)
            return self._turn_back(assessment, name)
        trace = {"assessment": to_json(assessment), "objective": to_json(goal)}
        trace["trajectory"] = [to_json(s) for s in steps]
        if self.variant in ("reactive", "one_step"):
            steps = steps[:1]
        if self.variant == "one_step":  # one corrective action, no verification
            control = state.control(steps[0].target)
            after = browser.act(Click(control.index))
            trace["executed"] = [f"{steps[0].verb} {steps[0].target}"]
            return Verdict("intervened", observation=after, trace=(trace,))
        run = execute(
            steps,
            browser,
            self.limits,
            replan=lambda now: self.reasoner.plan(goal, now, now.control(proposal.ref) or proposal),
        )
        trace.update(executed=run.done, mismatches=run.mismatches, replans=run.replans)
        after = browser.observe()
        # Reactive returns after its one step without checking the postconditions, but only when
        # the step was carried out: a failed execution ends the episode as in full Veer
        if run.ok and (self.variant == "reactive" or postconditions_hold(goal, ground(after))):
            self.previous = ground(after)
            return Verdict("intervened", observation=after, trace=(trace,))
        return Verdict("terminate", "the safe state could not be established", trace=(trace,))
