"""(c_t, y_t) = P(a_t, S_t, A_u): the consequence of a proposed action under the current state,
and whether the task authorizes it (paper 3.1, Appendix A.2, B.3), by the `offline` reasoner.

Prediction first, from the observed state only:
- a click that turns a material toggle on, or presses a button that stands for a material
  outcome (an offer's accept, "Install", "Donate"), CREATES that commitment (trigger: click);
- a click that crosses a commitment boundary (Save, Accept, Submit, Checkout, Continue, and
  Add to basket for the options it puts in the basket with the item) carries
  every material toggle still active in its scope (the dialog it sits in, else the page) into
  the outcome (trigger: retention; the paper's "retaining a preselected state");
- a commit button that also grants something ("Save changes and allow partners") CREATES it; a
  link the text beside it marks as an advertisement leads away from the task (trigger:
  navigation);
- a step's button that adds something the page also offers the step without ("Next with
  Cancellation cover" beside "Next without extras") CREATES that extra (trigger: click);
- a submit or checkout whose summary lists something at an added price ("with Souvenir photo
  (+£4)") commits it, and so does any commit step that carries a removable extra line;
- a "Keep ..." answer that keeps on the setting the task turns off contradicts the task;
- a checkout on a site other than the one the episode started on pays a third party;
- a boundary crossed in a dialog whose options are folded away ("Manage", "Preferences", a
  collapsed section) cannot be judged until they are seen: UNCERTAIN, with an evidence request.
Then authorization, from A_u only: a commitment is covered when an authorized outcome of the
task names it (shared content words with the outcome's cited object); future-only harm is not
charged to the current action (a toggle switched on is charged only when it is switched).
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlparse

from darkguard.defenses.veer.commitments import (
    ACCEPT_ALL,
    active,
    bare_accept,
    boundary,
    intent,
    kind_of,
    material_kind,
    stated,
    words,
)
from darkguard.defenses.veer.contracts import Assessment, Authorization, Commitment, EvidenceRequest
from darkguard.defenses.veer.coverage import content_words, covered
from darkguard.defenses.veer.page_reading import (
    GRANTS,
    advertised,
    bundled_extra,
    extra_lines,
    flipped_by_another,
    folded_options,
    keeps_what_task_turns_off,
    leads_to_an_offer,
    misleads,
    priced_extras,
    scope,
)
from darkguard.defenses.veer.prices import charged_more
from darkguard.defenses.veer.state import Control, TemporalEvidence, WebState
from darkguard.envs.arena.actions import Action, Click, Select, Type


def _commitment(
    control: Control, trigger: str, before: str, after: str, title: str = ""
) -> Commitment:
    return Commitment(
        outcome=stated(control)[:160],
        context=f"{control.context[:200]} {title}".strip(),
        kind=material_kind(control),
        before=before,
        after=after,
        trigger=trigger,
        evidence=(control.ref,),
        reversibility="reversible" if trigger == "click" and control.toggle else "limited",
    )


def assess(
    action: Action,
    state: WebState,
    auth: Authorization,
    start_origin: str,
    seen_options: frozenset[str] = frozenset(),
    shown_prices: dict[str, float] | None = None,
    evidence: TemporalEvidence | None = None,
) -> Assessment:
    """The offline P(a_t, S_t, A_u). `seen_options`: refs of folded sections already opened (an
    evidence request is made once per section); `shown_prices`: what product pages showed
    earlier in the episode; `evidence`: L_t, whose transitions name material toggles switched on
    by an earlier action that was not a click on them (charged to any click that follows)."""
    if not isinstance(action, Click | Select | Type):
        return Assessment((), "AUTHORIZED", action_semantic_effect="CONTEXT_ESTABLISHMENT")
    target = next((c for c in state.controls if c.index == action.index), None)
    if target is None or isinstance(action, Type):
        effect = "INFORMATION_GATHERING" if isinstance(action, Type) else "UNKNOWN"
        return Assessment((), "AUTHORIZED", action_semantic_effect=effect)
    predicted: list[Commitment] = []
    relation, effect = "UNRELATED", "WORKFLOW_ADVANCE"
    crossing = "NONE" if target.toggle else boundary(target)
    if crossing == "NONE" and target.role == "button" and not intent(target):
        # a button whose words name no boundary still moves the page's workflow on (a form's
        # submit): what its scope holds goes with it
        crossing = "DONE"
    kind = material_kind(target, dialog=state.dialog_text() if target.in_dialog else "")
    if (
        bare_accept(target)
        and not kind_of(words(target))
        and any(material_kind(t) for t in scope(state, target))
    ):
        kind = ""  # an accept among material toggles commits what they hold (retention below)
    if target.toggle and kind:
        if not active(target):  # the click switches it on
            predicted.append(_commitment(target, "click", "latent", "active"))
            relation, effect = "CREATES", "STATE_MODIFYING"
        else:
            effect = "STATE_REDUCING"
    elif kind and intent(target) not in ("decline", "close", "more"):
        offer = _commitment(target, "click", "pending", "committed", state.title)
        if target.in_dialog:  # what the dialog offers, in its own words
            offer = replace(offer, kind=kind, context=state.dialog_text()[:300])
        predicted.append(offer)
        relation, effect = "CREATES", "COMMITMENT"
    grant = GRANTS.search(target.name or "") if not target.toggle and not kind else None
    if grant is not None:  # the step also grants something: what it grants, read by meaning
        what = grant.group(0).strip()
        predicted.append(
            Commitment(what[:160], kind_of(what) or "consent", "latent", "committed", "click",
                       (target.ref,), "limited", context=f"{words(target)} {state.title}")
        )  # fmt: skip
        relation, effect = "CREATES", "COMMITMENT"
    if advertised(target):
        predicted.append(
            Commitment(f'"{words(target)[:60]}" is marked as an advertisement', "navigation",
                       "none", "active", "navigation", (target.ref, target.href), "reversible")
        )  # fmt: skip
        relation = "CREATES"
    elif leads_to_an_offer(target):
        predicted.append(
            Commitment(f'"{words(target)[:60]}" leads to {target.href}, an advert or partner',
                       "navigation", "none", "active", "navigation", (target.ref, target.href),
                       "reversible")
        )  # fmt: skip
        relation = "CREATES"
    extra = bundled_extra(target, state)
    if extra and not any(c.trigger == "click" for c in predicted):
        predicted.append(
            Commitment(
                extra[:160],
                kind_of(extra) or "add_on",
                "latent",
                "committed",
                "click",
                (target.ref,),
                "limited",
                context=f"{words(target)} {state.title}",
            )
        )
        relation, effect = "CREATES", "COMMITMENT"
    carried: list[str] = []
    if ACCEPT_ALL.search(target.name or "") and not target.toggle:
        # "Accept all" / "Continue with recommended settings" turns every option of its scope
        # on, whatever the boxes say now: each is created by this click
        for toggle in scope(state, target):
            if material_kind(toggle) and not active(toggle):
                predicted.append(_commitment(toggle, "click", "latent", "committed"))
                relation = "CREATES"
    if crossing in ("SAVE", "ACCEPT", "SUBMIT", "CHECKOUT", "DONE", "REVERSIBLE"):
        # adding to a basket is undone by removing the item, not what the page's options put
        # into it with the item: those are carried like any other boundary's
        effect = "COMMITMENT" if crossing not in ("DONE", "REVERSIBLE") else effect
        for toggle in scope(state, target):
            if material_kind(toggle) and active(toggle):
                predicted.append(_commitment(toggle, "retention", "active", "committed"))
                carried.append(toggle.ref)
        if carried and relation == "UNRELATED":
            relation = "CARRIES_TO_MATERIAL_BOUNDARY"
    lines = extra_lines(state)
    if crossing in ("CHECKOUT", "SUBMIT", "DONE"):
        for line in lines:
            predicted.append(
                Commitment(
                    line.context[:160],
                    kind_of(line.context),
                    "active",
                    "committed",
                    "retention",
                    (line.ref,),
                    "limited",
                )
            )
            carried.append(line.ref)
    if crossing in ("CHECKOUT", "SUBMIT"):
        for extra in priced_extras(target.context):
            thing = extra.rsplit(" (", 1)[0]
            if any(thing in f"{c.name} {c.context}" for c in state.toggles()):
                continue  # an option of the page: its state decides (the toggles above)
            if any(content_words(thing) & content_words(line.context) for line in lines):
                continue  # a removable line of the order names it: removing it decides
            if not any(extra in c.outcome or c.outcome in extra for c in predicted):
                predicted.append(
                    Commitment(extra[:160], "add_on", "active", "committed", "submit",
                               (target.ref,), "limited", context=target.context[:200])
                )  # fmt: skip
                relation = "COMMITS_EXISTING" if relation == "UNRELATED" else relation
    kept = keeps_what_task_turns_off(target, state, auth)
    if kept:
        predicted.append(
            Commitment(f"keeps {kept} on", "setting", "pending", "committed", "click",
                       (target.ref,), "reversible", context=state.dialog_text()[:300])
        )  # fmt: skip
        relation, effect = "CREATES", "STATE_MODIFYING"
    if misleads(target):
        predicted.append(
            Commitment(
                f'"{words(target)[:60]}" leads to {target.href}, not where it says',
                "navigation",
                "none",
                "active",
                "navigation",
                (target.ref, target.href),
                "reversible",
            )
        )
        relation, effect = "CREATES", "WORKFLOW_ADVANCE"
    if crossing == "CHECKOUT":
        for name, price, now in charged_more(state, shown_prices or {}):
            predicted.append(
                Commitment(
                    f"{name} charged ${now:.2f}, shown at ${price:.2f}",
                    "payment",
                    "pending",
                    "committed",
                    "submit",
                    (target.ref,),
                    "irreversible",
                )
            )
            relation = "COMMITS_EXISTING"
    if crossing == "CHECKOUT" and _origin(state.url) != start_origin:
        predicted.append(
            Commitment(
                f"payment on {_origin(state.url)}, not the site the task started on",
                "payment",
                "pending",
                "committed",
                "submit",
                (target.ref, state.url),
                "irreversible",
            )
        )
        relation = "CREATES"
    if evidence is not None:
        for toggle in flipped_by_another(state, evidence):
            if toggle.index != target.index and not any(
                toggle.ref in c.evidence for c in predicted
            ):
                predicted.append(_commitment(toggle, "transition", "latent", "active"))
                carried.append(toggle.ref)
                if relation == "UNRELATED":
                    relation = "CARRIES_TO_MATERIAL_BOUNDARY"
    unauthorized = tuple(c for c in predicted if not covered(c, auth))
    requests: tuple[EvidenceRequest, ...] = ()
    if crossing in ("SAVE", "ACCEPT", "DONE") and target.in_dialog and not unauthorized:
        folded = [c for c in folded_options(state, target) if c.ref not in seen_options]
        requests = tuple(
            EvidenceRequest("semantic", "PROPOSED_ACTION", f"options behind {c.ref}", c.ref)
            for c in folded
        )
    verdict = "UNAUTHORIZED" if unauthorized else ("UNCERTAIN" if requests else "AUTHORIZED")
    return Assessment(
        predicted_commitments=tuple(predicted),
        authorization=verdict,
        commitment_boundary=crossing,
        action_semantic_effect=effect,
        proposal_risk_relation=relation if predicted else "UNRELATED",
        carries_material_state=bool(carried),
        carried_material_state=tuple(carried),
        evidence_requests=requests,
        unauthorized=unauthorized,
        reason="; ".join(f"{c.kind}: {c.outcome} ({c.trigger})" for c in unauthorized),
        uncertainty="medium" if requests else "none",
    )


def _origin(url: str) -> str:
    parsed = urlparse(url)
    return f"{parsed.scheme}://{parsed.netloc}"
