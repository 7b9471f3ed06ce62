"""Whether the task authorizes a commitment (paper 3.1, A(u) against c_t), by the `offline`
reasoner: a commitment is covered when an authorized outcome of the task names it (content words
shared with the outcome's cited object; an add-on, a payment, a consent, data sharing or an install
only when the task names it in its own words), and never when the task's own words decline it."""

from __future__ import annotations

import re

from darkguard.defenses.veer.commitments import kind_of
from darkguard.defenses.veer.concepts import similarity
from darkguard.defenses.veer.contracts import Authorization, Commitment

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
