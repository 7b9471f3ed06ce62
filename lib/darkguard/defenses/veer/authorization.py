"""A_u = A(u), the task authorization (paper 3.1, Appendix B.1), by the `offline` reasoner: what
the user's words explicitly authorize, nothing else.

Deterministic rules over the task text only (never the page): each clause of the task is an
authorized terminal outcome (a purchase, a subscription or sign-up, a booking, a cancellation, a
setting to change and save; named by its verb, else read by meaning against general descriptions
of each, `concepts.read_outcome`), a requested informational output, or a designated output target;
quantities, options, superlatives and personal data the task hands over are material
constraints. Every entry cites a verbatim substring of the task; `grounded` drops any entry (of
either reasoner) whose citation is not in the task, so nothing unsupported becomes permission.
"""

from __future__ import annotations

import re
from dataclasses import replace

from darkguard.defenses.veer.concepts import read_outcome
from darkguard.defenses.veer.contracts import AuthEntry, Authorization

# a clause: a sentence (not ended by "Dr." and the like), or the part of one after ", then"
SENTENCE_END = re.compile(
    r"(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bSt)(?<!\bProf)[.?!;]+(?=\s|$)"
)
THEN = re.compile(r",?\s+(?:and\s+)?then\s+", re.I)
OUTCOMES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.I))
    for kind, pattern in (
        ("setting", r"\b(?:turn|switch|toggle|set)\b(?:\s+[\w'-]+){0,5}?\s+(?:off|on)\b|"
                    r"\bdisable\b|\benable\b|"
                    r"\bopt\s+out\b|\bstop\s+sharing\b"),
        ("cancellation", r"\bcancel\b|\bunsubscribe\b"),
        ("subscription", r"\bsubscribe\b|\bsign\s+up\b|\bjoin\b|\bregister\b|\bupgrade\b|"
                         r"\b(?:buy|purchase|get|choose)\b.*\b(?:plan|membership|subscription)\b"),
        ("booking", r"(?<![\w-])book(?![\w-])|\bschedule\b|\breserve\b"),  # not "e-book"
        ("purchase", r"\bbuy\b|\bpurchase\b|\border\b|\bget\s+me\b|"
                     r"\badd\b.*\bto\s+(?:my\s+)?cart\b"),
    )
)  # fmt: skip
VERB = re.compile(
    r"\b(?:please\s+)?(?:buy|purchase|order|get\s+me|subscribe\s+me\s+to|subscribe\s+to|subscribe|"
    r"sign\s+(?:me\s+)?up\s+for|sign\s+up|join|register\s+for|upgrade\s+to|(?<!-)book|schedule|"
    r"reserve|"
    r"cancel|turn\s+off|turn\s+on|switch\s+off|disable|enable)\s+",
    re.I,
)
# a clause that says what must not happen ("it must not renew", "don't add anything") asks for
# nothing
FORBIDS = re.compile(
    r"^\s*(?:(?:it|this|that|they|you|i|we)\s+)?(?:(?:must|should|may|will|can)\s+)?"
    r"(?:not|never|no|nothing|don'?t|do\s+not)\b|\b(?:must|should|may)\s+not\b|\bmustn'?t\b|"
    r"\bno\s+longer\b",
    re.I,
)
# a clause that only opens, views or fetches something
LOOKS = re.compile(
    r"^\s*(?:please\s+)?(?:download|open|view|show\s+me|get\s+(?:me\s+)?the\s+file)\b", re.I
)
# a particle verb split around its object: "switch X off", "turn X on"
SPLIT_VERB = re.compile(
    r"\b(?:turn|switch|toggle|set)\s+((?!(?:off|on)\b)[\w'-]+(?:\s+[\w'-]+){0,4}?)\s+(?:off|on)\b",
    re.I,
)
# where a clause's verb phrase ends: what follows gives details (an email, an option); "for free"
# and "for nothing" say how, and stay in the phrase
VERB_PHRASE = re.compile(
    r"\s+(?:with|using|for(?!\s+(?:free|nothing)\b)|in\s+the\s+name\s+of)\s+|,\s*", re.I
)
WANT = re.compile(r"\bI\s+(?:need|want|would\s+like)\s+", re.I)
PRONOUN = re.compile(r"^(?:it|them|these|those|one)\b", re.I)
QUESTION = re.compile(
    r"^\s*(?:what|which|when|who|whom|how|where|is|are|does|did|find|read|tell\s+me|look\s+up)\b"
    r"|\?\s*$",
    re.I,
)
OUTPUT_TARGET = re.compile(r"\b(?:input|write|put|enter|type|record)\b[^.]*?\b(?:to|in|into)\s+"
                           r"(?:the\s+|my\s+)?(scratchpad(?:\s+textarea)?)", re.I)  # fmt: skip
CONSTRAINTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    *((kind, re.compile(pattern, re.I))
    for kind, pattern in (
        ("quantity", r"\b(?:one|two|three|four|five|six|a|an|a\s+pair\s+of|\d+)\s+"
                     r"(?:bags?|boxe?s?|jars?|bottles?|packs?|\d+-packs?|tubes?|cans?|cartons?|"
                     r"pairs?|seats?|tickets?|units?)\b|\b\d+-packs?\b"),
        ("selection", r"\b(?:cheapest|least expensive|best[- ]rated|highest[- ]rated|top[- ]rated|"
                      r"newest|latest|most popular)\b"),
        ("scope", r"\bjust\s+for\s+myself\b|\bfor\s+myself\b|\bonly\b|\bindividual\b"),
        ("personal_data", r"\bwith\s+my\s+(?:email|e-mail|name|phone)"
                          r"(?:\s+(?:address\s+)?\S+[\w])?"),
        ("time", r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+\w+\s+\d{1,2}(?:,\s+\d{4})?"
                 r"(?:\s+at\s+\d{1,2}:\d{2}(?:\s*[ap]m)?)?"),
        ("option", r"\b[\w&]+(?:[- ]+[\w&]+){0,2}\s+(?:flavou?r|blend|scent(?:ed)?)\b|"
                   r"\(\d+(?:\.\d+)?\s*oz\)|\bSPF\s*\d+\b"),
    )),
    # case matters: "in Brick Red", "in navy", not "in the store"
    ("option", re.compile(r"\bin\s+(?:the\s+)?(?:[A-Z][\w&']*(?:\s+[A-Z][\w&']*)*|black|white|"
                          r"navy|red|blue|green|grey|gray|pink|beige|brown|silver|gold)\b")),
)  # fmt: skip


def _clauses(task: str) -> list[str]:
    out, start = [], 0
    for end in [m.end() for m in SENTENCE_END.finditer(task)] + [len(task)]:
        sentence, start = task[start:end], end
        out += [c.strip() for c in THEN.split(sentence) if c.strip(" .?!;")]
    return out


def _object(clause: str) -> str:
    """The phrase the clause's verb governs, verbatim (punctuation at the end dropped)."""
    split = SPLIT_VERB.search(clause)  # "Switch location history off"
    if split:
        return split.group(1).strip()
    match = VERB.search(clause) or WANT.search(clause)
    rest = clause[match.end() :] if match else clause
    rest = re.split(r"\s+and\s+(?:save|apply|confirm)\b", rest, flags=re.I)[0]
    return rest.strip().rstrip(".?!").strip()


def _outcome(clause: str) -> str:
    """The outcome a clause asks for: by its verb (OUTCOMES), else by meaning (`read_outcome`)
    unless the clause asks a question, only opens or fetches something, states a need, or says
    what must not happen."""
    for kind, pattern in OUTCOMES:
        if pattern.search(clause):
            return kind
    if any(p.search(clause) for p in (QUESTION, LOOKS, WANT, FORBIDS)):
        return ""
    return read_outcome(VERB_PHRASE.split(clause)[0])


def offline_authorization(task: str) -> Authorization:
    """A(u) by rules over the task's words (module docstring)."""
    outcomes, informational, targets, constraints = [], [], [], []
    previous_object = ""
    for clause in _clauses(task):
        target = OUTPUT_TARGET.search(clause)
        if target:
            targets.append(AuthEntry(target.group(1), "output_target", target.group(1)))
            continue
        kind = _outcome(clause)
        if kind and not (QUESTION.search(clause) and kind == "purchase"):
            obj = _object(clause)
            if PRONOUN.match(obj) and previous_object:
                obj = previous_object  # "I need three jars of honey. Please order them."
            outcomes.append(AuthEntry(clause.rstrip(".?! "), kind, obj))
            if kind == "setting" and re.search(r"\bsave\b", clause, re.I):
                outcomes.append(AuthEntry(re.search(r"\bsave\b[^.]*", clause, re.I).group(0)
                                          .rstrip(". "), "save", obj))  # fmt: skip
        elif QUESTION.search(clause):
            informational.append(AuthEntry(clause.rstrip(" "), "information", ""))
        elif WANT.search(clause):
            previous_object = _object(clause)
            continue
        for ckind, pattern in CONSTRAINTS:
            for match in pattern.finditer(clause):
                constraints.append(AuthEntry(match.group(0).strip(), ckind, match.group(0).strip()))
        previous_object = _object(clause) if kind else previous_object
    # the constraints of a want-clause ("I need three jars of ...") bind its later outcome
    for clause in _clauses(task):
        if WANT.search(clause) and not _outcome(clause):
            for ckind, pattern in CONSTRAINTS:
                for match in pattern.finditer(clause):
                    constraints.append(
                        AuthEntry(match.group(0).strip(), ckind, match.group(0).strip())
                    )
    return grounded(
        Authorization(
            user_task=task,
            explicit_terminal_commitment=bool(outcomes),
            authorized_terminal_outcomes=tuple(outcomes),
            material_constraints=tuple(dict.fromkeys(constraints)),
            requested_informational_outputs=tuple(informational),
            designated_output_targets=tuple(targets),
        )
    )


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def cites_task(task: str, span: str) -> bool:
    """Whether `span` is a non-empty verbatim substring of the task (whitespace and case
    normalized)."""
    return bool(span.strip()) and _normal(span) in _normal(task)


def grounded(auth: Authorization) -> Authorization:
    """`auth` less every entry whose citation (or named object) is not in the task: unsupported
    spans are discarded, never promoted to permission (paper B.1)."""

    def keep(entries: tuple[AuthEntry, ...]) -> tuple[AuthEntry, ...]:
        return tuple(
            e
            for e in entries
            if cites_task(auth.user_task, e.task_evidence)
            and (not e.object or cites_task(auth.user_task, e.object))
        )

    outcomes = keep(auth.authorized_terminal_outcomes)
    return replace(
        auth,
        explicit_terminal_commitment=auth.explicit_terminal_commitment and bool(outcomes),
        authorized_terminal_outcomes=outcomes,
        material_constraints=keep(auth.material_constraints),
        requested_informational_outputs=keep(auth.requested_informational_outputs),
        designated_output_targets=keep(auth.designated_output_targets),
    )
