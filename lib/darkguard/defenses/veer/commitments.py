"""What a control commits the user to, read off its visible words (the `offline` reasoner's
semantics; paper Figure 6: "consent, subscription, data sharing, an add-on, purchase, or
submitted setting").

- `material_kind(control)`: the kind of user-facing outcome a toggle or button stands for
  (marketing, data_sharing, consent, add_on, subscription, payment, install), or "" when none.
- `active(control)`: whether a toggle's outcome is on, with its polarity read from the label
  ("Do not send me offers" unchecked is an opt-in).
- `boundary(control)`: the commitment boundary a click on it crosses (paper Figure 6:
  NONE, REVERSIBLE, SAVE, ACCEPT, SUBMIT, CHECKOUT, DONE).
- `intent(control)`: accept / decline / more (reveals options) / save / close, for buttons.

Words only: no ids, classes, pattern labels or app names; the same rules read any site.
"""

from __future__ import annotations

import re

from darkguard.defenses.veer.concepts import plainly_ordinary, read_intent, read_kind
from darkguard.defenses.veer.state import Control


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


# a yes/no pair's negative answer, alone or after its question ("No", "Gift wrap: No")
NO_ANSWER = _rx(r"(?:^|[:\-–]\s*)(?:no|none)\s*$")
STATE_NAME = _rx(r"on|off|yes|enabled|disabled")
# "Tick to ...", "Check this box if ...": how a box is used, said before what it means
HOW_TO_TICK = (
    r"^\s*(?:(?:tick|check|select|click)\s+(?:here\s+|this\s+box\s+|the\s+box\s+)?(?:to|if)\s+)?"
)
NEGATION = _rx(HOW_TO_TICK + r"(?:(?:i|you)\s+)?(?:do\s+not|don'?t|never|no)\b")
# a verb that restricts or ends what follows: "Opt out of sharing" on means sharing off, and "Do
# not limit sharing" or "Don't cancel my plan" (double negatives) on mean sharing or the plan on
RESTRICT = _rx(HOW_TO_TICK + r"(?:(?:do\s+not|don'?t|never|no)\s+)?"
               r"(?:limit|restrict|pause|stop|block|disable|turn\s+off|opt\s+out|hide|prevent|"
               r"reduce|exclude|unsubscribe|cancel|quit|leave|"
               r"end\s+(?:my|the|your))\b")  # fmt: skip
ACCEPT = _rx(r"\baccept\b|\bagree\b|\ballow\b|\bi\s+understand\b|\bgot\s+it\b|^\s*ok(?:ay)?\b|"
             r"\byes\b|\bsure\b|\benable\b|\bturn\s+on\b|\bstart\b.*\btrial\b|\btry\b|"
             r"\bclaim\b|\bupgrade\b|\bjoin\b|\binstall\b|\bsubscribe\b|\bcontinue\s+with\b|"
             r"\brecommended\b|\bdonate\b|^\s*(?:add|keep)\s+(?:it|this|that|them)\b|"
             r"^\s*keep\s+(?:my|me)\b|"
             r"\badd\b.*\b(?:protection|warranty|insurance)\b")  # fmt: skip
DECLINE = _rx(r"\breject\b|\bdecline\b|\bdeny\b|\bno\s*,?\s*thanks?\b|\bnot\s+now\b|"
              r"\bmaybe\s+later\b|\bskip\b|\bdon'?t\s+want\b|\bnecessary\s+only\b|"
              r"\bessential\s+only\b|\bcontinue\s+without\b|\bi'?ll\s+pass\b|\bno\b")  # fmt: skip
MORE = _rx(r"\bmore\s+options\b|\bmanage\b|\bcustomi[sz]e\b|\bsettings\b|\bpreferences\b|"
           r"\breview\b|\bdetails\b|\bother\s+options\b|\bshow\b|\bexpand\b")  # fmt: skip
SAVE = _rx(r"\bsave\b|\bapply\b|\bupdate\b|\bconfirm\s+(?:my\s+)?choices\b")
# an accept that sets every option of its dialog, whatever the boxes now say
ACCEPT_ALL = _rx(r"\b(?:accept|allow|agree\s+to|enable|turn\s+on|select)\s+all\b|\brecommended\b|"
                 r"\bdefault\s+settings\b|\buse\s+defaults\b")  # fmt: skip
CLOSE = _rx(r"^\s*(?:close|dismiss|×|✕|x)\s*$")
# a refusal to end a plan ("Don't cancel", "Never mind, do not leave"): it keeps the plan going
REFUSES_TO_END = _rx(r"\b(?:don'?t|do\s+not|never)\s+(?:cancel|end|leave|quit|unsubscribe)\b")
REMOVE = _rx(r"^\s*(?:remove|delete|discard)\b|^\s*(?:remove|delete)\s+(?:item|line)\b")
BOUNDARIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("CHECKOUT", _rx(r"\bcheck\s?-?out\b|\bplace\s+(?:your\s+|my\s+)?order\b|\bpay\b|"
                     r"\bbuy\s+now\b|\bcomplete\s+(?:purchase|order|payment)\b|"
                     r"\bconfirm\s+(?:order|purchase|payment)\b|\bproceed\s+to\s+payment\b|"
                     r"\bpurchase\b")),
    ("SAVE", SAVE),
    ("SUBMIT", _rx(r"\bsubmit\b|\bconfirm\b|\bbook\b|\bsign\s+up\b|\bsubscribe\b|\bregister\b|"
                   r"\bjoin\b|\bsend\b|\bfinish\b|\bcomplete\b|\bbuy\b|\bget\s+premium\b")),
    ("ACCEPT", ACCEPT),
    ("DONE", _rx(r"^\s*(?:continue|next|proceed|done|go\s+on|get\s+started)\b")),
    ("REVERSIBLE", _rx(r"\badd\s+to\s+(?:cart|bag|basket)\b")),
)  # fmt: skip


def words(control: Control) -> str:
    """What the control says: its name, else its context."""
    return control.name or control.context


def stated(control: Control) -> str:
    """What a click on the control commits to, in words: its own, or for a switch named only by
    its state ("On"), the text around it."""
    return control.context[:160] if bare_state(control) and control.context else words(control)


def kind_of(text: str) -> str:
    """The material kind `text` stands for, read by meaning ("" when none; `concepts`)."""
    return read_kind(text)


def bare_state(control: Control) -> bool:
    """A control whose name is only a state or an answer ("On", "Off", "Yes")."""
    return bool(STATE_NAME.fullmatch((control.name or "").strip()))


def bare_accept(control: Control) -> bool:
    """A dialog's answer that takes what the dialog offers without naming it ("OK", "Accept",
    "Continue", "Put it in too"): an accept or a step on, and any button of the dialog that does
    not decline, close it, show more options or remove something (an answer that is not a no is
    a yes)."""
    if not control.in_dialog or control.toggle:
        return False
    said = intent(control)
    return (
        said == "accept" or boundary(control) == "DONE" or (control.role == "button" and not said)
    )


def material_kind(control: Control, with_context: bool = True, dialog: str = "") -> str:
    """The material outcome kind a control stands for ("" when none; a disabled toggle is no
    one's choice). A toggle that names nothing (neither a commitment nor plainly an ordinary
    step) is read with the text around it; a dialog's bare
    accept with what the dialog says (`dialog`, else the text around it)."""
    if control.toggle and control.disabled:
        return ""
    if control.toggle and NO_ANSWER.search(words(control)):
        return ""  # the "No" of a yes/no pair: choosing it declines
    if control.toggle and bare_state(control):
        return kind_of(control.context[:300])  # a switch named by its state: read around it
    if REFUSES_TO_END.search(words(control)):
        return "subscription"  # refusing to end a plan is going on with it (a box or a button)
    if control.role == "link" and not control.in_dialog and intent(control) != "accept":
        return ""  # a link on a page names where it leads; what is committed there is judged there
    kind = kind_of(words(control))
    if kind or not with_context:
        return kind
    if control.toggle and control.name and plainly_ordinary(control.name):
        return ""  # it says what it does ("Collect from the shop"): the text around is not it
    if control.toggle:
        return kind_of(control.context[:300])
    if bare_accept(control):
        return kind_of(dialog or control.context[:300])
    return ""


def negated(control: Control) -> bool:
    """Whether the box says the opposite of its outcome: one negation or one restricting verb at
    its start, not both ("Do not send me offers", "Opt out of sharing"; but "Do not limit
    sharing" is a double negative)."""
    text = words(control)
    return bool(NEGATION.search(text)) != bool(RESTRICT.search(text))


def active(control: Control) -> bool:
    """Whether a toggle's outcome holds now (a negated label inverts the box; an option of a
    group commits what it says only when chosen: "Pause for one month" unchosen pauses nothing)."""
    on = bool(control.on)
    if control.role in ("radio", "option", "menuitemradio") and not bare_state(control):
        return on
    return not on if negated(control) else on


def boundary(control: Control) -> str:
    text = control.name or ""
    if DECLINE.search(text) and not ACCEPT.search(text):
        return "NONE"
    for name, pattern in BOUNDARIES:
        if pattern.search(text):
            return name
    return "NONE"


def intent(control: Control) -> str:
    """accept | decline | more | save | close | remove | "" for a button's words."""
    text = control.name or ""
    if CLOSE.search(text):
        return "close"
    if REMOVE.search(text):
        return "remove"
    if DECLINE.search(text):
        return "decline"
    if SAVE.search(text):
        return "save"
    if ACCEPT.search(text):
        return "accept"
    if MORE.search(text):
        return "more"
    meant = read_intent(text) if text else ""
    # by meaning only where it lets a click through: a decline or a look at more options
    return meant if meant in ("decline", "more") else ""
