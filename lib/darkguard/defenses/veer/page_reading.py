"""What a page shows about a proposed action's consequence, read for the `offline` assessment:
a step's button that bundles an extra, the toggles a boundary carries, folded options, links that
mislead or lead to an advert, priced extras in a summary, a "Keep ..." that keeps what the task
turns off, removable extra lines, and toggles L_t saw switched on by another action."""

from __future__ import annotations

import re
from urllib.parse import urlparse

from darkguard.defenses.veer.commitments import active, boundary, intent, kind_of, material_kind
from darkguard.defenses.veer.concepts import ADDED_PRICE
from darkguard.defenses.veer.contracts import Authorization
from darkguard.defenses.veer.coverage import TURN_OFF, content_words
from darkguard.defenses.veer.state import Control, TemporalEvidence, WebState

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


def scope(state: WebState, target: Control | None) -> list[Control]:
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
