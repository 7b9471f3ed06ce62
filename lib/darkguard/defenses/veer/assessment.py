"""(c_t, y_t) = P(a_t, S_t, A_u): the consequence of a proposed action under the current state,
and whether the task authorizes it (paper 3.1, Appendix A.2, B.3), by the `offline` reasoner.

Prediction first, from the observed state only:
- a click that turns a material toggle on, or presses a button that stands for a material
  outcome (an offer's accept, "Install", "Donate"), CREATES that commitment (trigger: click);
- a click that crosses a commitment boundary (Save, Accept, Submit, Checkout, Continue) carries
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

import re
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
from darkguard.defenses.veer.concepts import ADDED_PRICE, similarity
from darkguard.defenses.veer.contracts import (
    Assessment,
    Authorization,
    Commitment,
    EvidenceRequest,
)
from darkguard.defenses.veer.prices import charged_more
from darkguard.defenses.veer.state import Control, TemporalEvidence, WebState
from darkguard.envs.arena.actions import Action, Click, Select, Type

STOP_WORDS = (
    "a an the my me i to for of in on at and or with your our you this that it its be is are "
    "yes no not do don't please all any more now"
)
STOP = frozenset(STOP_WORDS.split())
# the outcome kinds an authorized terminal outcome of each kind may cover (a cancellation covers
# none: no task to end a subscription authorizes keeping or starting one)
COVERS = {
    "purchase": {"purchase", "add_on", "payment"},
    "subscription": {"subscription", "marketing", "payment", "add_on"},
    "setting": {"data_sharing", "consent", "marketing", "setting"},
    "save": set(),
    "booking": {"booking", "add_on", "payment"},
    "cancellation": set(),
}
# the kind each outcome commits to itself: its own commit button may name nothing more specific
PRIMARY = {"subscription": "subscription", "purchase": "purchase", "booking": "booking"}


def content_words(text: str) -> set[str]:
    """The words that carry meaning, plurals folded ("newsletters" -> "newsletter")."""
    found = (w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP and len(w) > 2)
    return {w[:-1] if w.endswith("s") and len(w) > 4 else w for w in found}


TURN_OFF = re.compile(
    r"\b(?:turn|switch|toggle|set)\b(?:\s+[\w'-]+){0,5}?\s+off\b|\bdisable\b|\bopt\s+out\b|\bstop\b|"
    r"\blimit\b",
    re.I,
)
# kinds the task must name in its own words (an add-on is never implied by buying its item)
NAMED_ONLY = frozenset({"add_on", "payment", "consent", "data_sharing", "install"})
# what the task declines: "without automatic renewal", "no extras", "it must not renew", "nothing
# else"; each phrase runs to the end of its clause
DECLINED = re.compile(
    r"\b(?:without|no|not|never|nothing|don'?t|do\s+not|must\s+not)\b\s*([^,.;]*)", re.I
)
# a declined phrase that names no one thing declines every extra ("nothing else", "no extras")
EVERY_EXTRA = re.compile(
    r"^(?:else|more|extras?|add-?ons?|anything\s+(?:else|more|extra)|additional\b.*|"
    r"on\s+top|besides)\s*$",
    re.I,
)
EXTRAS = frozenset({"add_on", "payment", "subscription", "marketing", "install"})
DECLINED_COS = 0.5  # a commitment this close in meaning to a declined phrase is what it declines
# words any commit button may say without naming what it commits ("Join now", "Start free trial")
ACTION_TEXT = (
    "join now start begin free trial sign get continue confirm subscribe buy order place pay "
    "purchase book reserve complete submit yes okay try today"
)
ACTION_WORDS = frozenset(ACTION_TEXT.split())
# words that say what kind of thing is committed, not which one ("plan", "trial"): shared by a
# task and a control, they do not show that the control is what the task asked for
KIND_TEXT = "plan trial free subscription membership member account order item service product"
KIND_WORDS = frozenset(KIND_TEXT.split())


# words that end a plan, and words that keep it or refuse to end it
CANCELS = re.compile(
    r"\bcancel\w*|\bunsubscrib\w*|\bend\s+(?:my|the|your)\b|\bquit\b|\bleave\b", re.I
)
KEEPS = re.compile(
    r"\bkeep\w*|\bstay\w*|\bremain\w*|\bpause\w*|\bdon'?t\b|\bdo\s+not\b|\bnot\b|\bnever\b|"
    r"\binstead\b|\boffer\b|\bdiscount\b",
    re.I,
)


def declined(commitment: Commitment, task: str) -> bool:
    """Whether the task's own words decline this commitment (a phrase after "without", "no",
    "not", ... that names it by meaning, or "nothing else" / "no extras" for an extra)."""
    for match in DECLINED.finditer(task):
        phrase = match.group(1).strip()
        if not phrase:
            continue
        if EVERY_EXTRA.match(phrase):
            if commitment.kind in EXTRAS:
                return True
            continue
        if kind_of(phrase) == commitment.kind and (
            similarity(phrase, commitment.outcome) >= DECLINED_COS
        ):
            return True
    return False


def covered(commitment: Commitment, auth: Authorization) -> bool:
    """Whether an authorized terminal outcome of the task covers this commitment and the task
    does not decline it: a kind the outcome may cover, and either the task's own words for that
    kind (an add-on, a payment, a consent, data sharing, an install must be named: read by
    meaning, or for an add-on at least half its own words in the task), or the commitment names
    something beyond the action that the outcome's cited object names too ("Start free trial:
    Basic" for "a trial of the Basic plan", not "...: Pro"), or it names nothing but the action
    ("Join now") and either the text around it names the object or the outcome is of its own
    kind. A step that ends a plan is covered by a task to cancel it."""
    if declined(commitment, auth.user_task):
        return False
    named = (  # which thing it is: an extra by its words, anything else by a name it gives
        content_words(commitment.outcome) - ACTION_WORDS - KIND_WORDS
        if commitment.kind in NAMED_ONLY
        else names_in(commitment.outcome)
    )
    if len(commitment.outcome.split()) == 1 and kind_of(commitment.outcome) == commitment.kind:
        named = set()  # one word that says only the act ("Enrol" for a subscription) names no thing
    around = content_words(commitment.context)
    for entry in auth.authorized_terminal_outcomes:
        if entry.kind == "cancellation" and ends(commitment):
            return True  # the step of ending is no commitment to go on
        if commitment.kind not in COVERS.get(entry.kind, set()):
            continue
        if entry.kind == "setting" and TURN_OFF.search(entry.task_evidence):
            continue  # "turn off data sharing" authorizes less sharing, never more
        wanted = content_words(entry.object) - KIND_WORDS
        if commitment.kind in NAMED_ONLY:
            if kind_of(entry.task_evidence) == commitment.kind or (
                commitment.kind == "add_on"
                and named
                and 2 * len(named & content_words(auth.user_task)) >= len(named)
            ):
                return True
        elif (
            named & wanted
            if named
            else (around & wanted or PRIMARY.get(entry.kind) == commitment.kind)
        ):
            return True
    return False


NAME_AFTER = re.compile(r"[:–—]\s*(.+)$|\s-\s(.+)$")


def names_in(label: str) -> set[str]:
    """The words by which a control names one thing among others, not its action: a label of
    several words starts with its action, so its words after the first ("Switch to yearly",
    "Upgrade to Gold"; "Unlock the free trial" names nothing), and whatever follows a colon or
    dash ("Start free trial: Basic"); a one-word label is taken whole. Words any commit button
    says (`ACTION_WORDS`) and kind words name nothing."""
    after = NAME_AFTER.search(label)
    named = content_words(next(g for g in after.groups() if g)) if after else set()
    head = (label[: after.start()] if after else label).split()
    named |= content_words(" ".join(head[1:] if len(head) > 1 else head))
    return named - ACTION_WORDS - KIND_WORDS


def ends(commitment: Commitment) -> bool:
    """Whether a read subscription is in fact a step of ending one ("Continue to cancel"): its
    words say it cancels and say nothing of keeping, staying or not cancelling."""
    text = commitment.outcome
    return (
        commitment.kind == "subscription" and bool(CANCELS.search(text)) and not KEEPS.search(text)
    )


# "<step> with <extra>", "<step> plus <extra>", "<step> and add <extra>"
BUNDLE = re.compile(
    r"^(?P<step>.+?)\s+(?:with|plus|\+|and\s+(?:add|include|get))\s+(?P<extra>\S.*)$", re.I
)
WITHOUT_WORDS = re.compile(r"^\s*(?:without|minus|excluding|no)\b", re.I)


def bundled_extra(target: Control, state: WebState) -> str:
    """What a step's button adds to the step when the page offers the same step without it:
    "Next with Cancellation cover" beside "Next" or "Next without extras" adds "Cancellation
    cover" ("" when it adds nothing, or the page has no such twin)."""
    match = BUNDLE.match(" ".join((target.name or "").split())) if not target.toggle else None
    if match is None:
        return ""
    step = match.group("step").lower()
    for c in state.controls:
        name = " ".join((c.name or "").lower().split())
        if c is target or c.toggle or not name.startswith(step):
            continue
        rest = name[len(step) :]
        if not rest or WITHOUT_WORDS.match(rest):
            return match.group("extra").strip()
    return ""


def _scope(state: WebState, target: Control | None) -> list[Control]:
    """The toggles a boundary click carries: those of its dialog, else those of the page."""
    in_dialog = bool(target and target.in_dialog)
    return [c for c in state.toggles() if c.in_dialog == in_dialog]


def folded_options(state: WebState, target: Control) -> list[Control]:
    """Controls in the target's dialog that reveal options not yet shown: a collapsed section,
    or a button that offers more options."""
    return [
        c
        for c in state.controls
        if c.in_dialog == target.in_dialog
        and c is not target
        and not c.toggle
        and c.expanded is not True
        and (c.expanded is False or intent(c) == "more")
        and boundary(c) == "NONE"  # looking never commits
    ]


EXTRA_KINDS = ("add_on", "payment", "subscription")
# words that promise a step of the shopper's own workflow, and the generic ones around them
PROMISE = re.compile(r"\b(?:check\s?-?out|cart|basket|bag|payment|order|shipping)\b", re.I)
GENERIC = frozenset({"continue", "proceed", "next", "secure", "now", "go", "store", "shop"})


def misleads(control: Control) -> bool:
    """A link whose words promise a step of the shopper's workflow (checkout, cart, payment)
    while its destination, as shown on hover, names none of it: a false continuation."""
    if not control.href or not PROMISE.search(control.name or ""):
        return False
    promised = content_words(control.name) - GENERIC
    return bool(promised) and not promised & content_words(control.href.replace("-", " "))


# a word that marks a link as an advertisement, next to it on the page
AD_MARK = frozenset({"ad", "ads", "advert", "advertisement", "sponsored", "promoted"})


def advertised(control: Control) -> bool:
    """A link the text right beside it marks as an advertisement ("Download now Ad"): following
    it leaves the task for someone else's offer."""
    name = " ".join((control.name or "").split())
    context = " ".join(control.context.split())
    if control.role != "link" or not name or name not in context:
        return False
    before, _, after = context.partition(name)
    near = re.findall(r"[A-Za-z]+", before)[-3:] + re.findall(r"[A-Za-z]+", after)[:3]
    return any(w.lower() in AD_MARK for w in near)


# words of a link's destination, as shown on hover, that name someone else's offer: an advert, a
# sponsor, an affiliate or partner ("/sponsor.html", "/ads/..", "?ref=affiliate")
AD_DESTINATION = frozenset({
    "ad", "ads", "advert", "adverts", "advertisement", "sponsor", "sponsors", "sponsored",
    "promo", "promoted", "affiliate", "affiliates", "partner", "partners",
})  # fmt: skip


def leads_to_an_offer(control: Control) -> bool:
    """A link whose destination names an advert, a sponsor or a partner: following it leaves the
    task for someone else's offer, whatever its words promise."""
    if control.role != "link" or not control.href:
        return False
    parsed = urlparse(control.href)
    words = re.split(r"[^a-z0-9]+", f"{parsed.path} {parsed.query}".lower())
    return any(w in AD_DESTINATION for w in words)


# a second act a commit button performs with its step: "Save changes and allow partners"
GRANTS = re.compile(
    r"\s+and\s+(?:also\s+)?(?:allow|share|accept|enable|agree\s+to|subscribe|sign\s+(?:me\s+)?up)"
    r"\b\s*(?P<what>.*)$",
    re.I,
)


PRICED_PART = re.compile(r"[,;.(]|\s+(?:with|plus|and|&)\s+", re.I)
# words by which a page says a line left the order ("Removed: Gift box", "was deleted")
REMOVED = re.compile(r"\b(?:removed|deleted|taken\s+out)\b", re.I)


def priced_extras(summary: str) -> list[str]:
    """The things a summary beside a commit button says come at an added price ("... for Ada
    Noor, with Souvenir photo (+£4)" lists "Souvenir photo (+£4)"), except a line it says was
    removed ("Removed: Gift box (+£3)")."""
    out: list[str] = []
    for match in ADDED_PRICE.finditer(summary):
        head = summary[: match.start()].rstrip(" (")
        parts = [p.strip() for p in PRICED_PART.split(head) if p and p.strip()]
        if parts and not REMOVED.search(parts[-1]):
            out.append(f"{parts[-1]} ({match.group(0).strip()})")
    return out


KEEP = re.compile(r"^\s*(?:keep|leave|stay)\b", re.I)


def keeps_what_task_turns_off(target: Control, state: WebState, auth: Authorization) -> str:
    """The setting a "Keep ..." answer keeps on when the task asks to turn it off ("Keep it on"
    in a dialog that names the setting): the task's own object, or ""."""
    if target.toggle or not KEEP.search(target.name or ""):
        return ""
    said = content_words(f"{target.name} {state.dialog_text() or target.context}")
    for entry in auth.authorized_terminal_outcomes:
        wanted = content_words(entry.object)
        turns_off = entry.kind == "setting" and TURN_OFF.search(entry.task_evidence)
        if turns_off and wanted and 2 * len(wanted & said) >= len(wanted):
            return entry.object
    return ""


def extra_lines(state: WebState) -> list[Control]:
    """Removable lines of an order that are not goods: an add-on, a donation, a subscription
    riding along (read off the line's own text; the goods themselves are the task's to judge)."""
    return [
        c
        for c in state.controls
        if intent(c) == "remove"
        and kind_of(c.context[:200]) in ("add_on", "payment", "subscription")
    ]


def flipped_by_another(state: WebState, evidence: TemporalEvidence) -> list[Control]:
    """Material toggles of this page that L_t saw switched on by an action that was not a click on
    them (an earlier choice that turned them on, a script), and that are still active."""
    released = ""
    out: list[Control] = []
    for entry in evidence.entries:
        if entry.kind == "assessed":
            released = entry.depends_on[0] if entry.depends_on else ""
        elif entry.kind == "transition" and entry.depends_on and entry.depends_on[0] != released:
            toggle = state.control(entry.depends_on[0])
            if (
                toggle is not None
                and toggle.toggle
                and material_kind(toggle)
                and active(toggle)
                and toggle not in out
            ):
                out.append(toggle)
    return out


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
        and any(material_kind(t) for t in _scope(state, target))
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
        for toggle in _scope(state, target):
            if material_kind(toggle) and not active(toggle):
                predicted.append(_commitment(toggle, "click", "latent", "committed"))
                relation = "CREATES"
    if crossing in ("SAVE", "ACCEPT", "SUBMIT", "CHECKOUT", "DONE"):
        effect = "COMMITMENT" if crossing != "DONE" else effect
        for toggle in _scope(state, target):
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
