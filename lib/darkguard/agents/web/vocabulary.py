"""The agent's vocabulary, shared by the policy (`agent`) and its task-kind handlers: the element
roles it treats alike, the words it looks for on buttons, links and pages (case-insensitive
patterns: "add to cart", "continue", "no thanks", "saved", ...), and the numbers of its habits.
"""

from __future__ import annotations

import re

from darkguard.envs.arena.observation import Element

ACTION_ROLES = frozenset({"button", "link", "generic", "menuitem", "tab", "img", "summary"})
TOGGLE_ROLES = frozenset({"checkbox", "switch"})
CHOICE_ROLES = frozenset({"radio", "option", "generic", "button", "link", "tab", "menuitem"})
TEXT_ROLES = frozenset({"textbox", "searchbox", "spinbutton"})


def _rx(pattern: str) -> re.Pattern[str]:
    """A case-insensitive pattern."""
    return re.compile(pattern, re.I)


ADD_TO_CART = _rx(
    r"\badd\s+(?:it\s+|item\s+|this\s+)?to\s+(?:my\s+|your\s+)?(?:cart|bag|basket|trolley)\b|"
    r"^\s*\+?\s*add\s*$|^\s*buy\s+(?:it\s+)?now\b"
)
CART_LINK = _rx(r"\b(?:cart|basket|shopping\s+bag|my\s+bag)\b|^\s*bag\b|🛒")
CART_ACTION = _rx(r"\bupdate\b|\bempty\b|\bclear\b|\bapply\b|\bsave\s+for\s+later\b")
CHECKOUT = _rx(r"\bcheck\s?-?out\b|\bproceed\s+to\s+(?:checkout|payment)\b")
PLACE_ORDER = _rx(
    r"\bplace\s+(?:my\s+|your\s+|the\s+)?order\b|\bconfirm\s+(?:and\s+pay|order|purchase|"
    r"payment)\b|\bcomplete\s+(?:order|purchase|payment|checkout)\b|\bpay\s+now\b|"
    r"\bsubmit\s+order\b|^\s*pay\b|\b(?:continue|proceed)\s+to\s+(?:secure\s+)?(?:payment|pay)\b"
)
REMOVE = _rx(r"\bremove\b|\bdelete\b|^\s*[×✕x]\s*$|\bdiscard\b")
CONTINUE = _rx(r"^\s*(?:continue|next|proceed|go\s+on|get\s+started|ok|okay|got\s+it|done)\b")
DECLINE = _rx(
    r"\bno,?\s+thanks?\b|\bno\s+thank\s+you\b|\bdecline\b|\breject\b|\bnot\s+now\b|"
    r"\bmaybe\s+later\b|\bskip\b|\bclose\b|\bdismiss\b|^\s*[×✕x]\s*$|\bi\s+don[’']?t\s+want\b|"
    r"\bcontinue\s+without\b|\b(?:strictly\s+)?necessary\s+only\b|\bonly\s+(?:strictly\s+)?"
    r"necessary\b|\bessential\s+only\b|\brefuse\b|^\s*no\b|\bdeny\b|\bnot\s+interested\b|"
    r"\bopt\s+out\b|\bkeep\s+(?:my\s+)?(?:current|free|basic)\b"
)
MORE = _rx(
    r"\bmore\s+options\b|\bmanage\b|\bcustomi[sz]e\b|\bpreferences\b|\bsettings\b|"
    r"\bother\s+options\b|\bshow\s+more\b|\bmore\s+choices\b|^\s*options\b|\breview\b"
)
AFFIRM = _rx(
    r"\baccept\b|\bagree\b|\ballow\b|^\s*ok\b|^\s*yes\b|\bgot\s+it\b|\bcontinue\b|\binstall\b|"
    r"\bstart\b|\bclaim\b|\bsubscribe\b|\bjoin\b|\bupgrade\b"
)
SAVE = _rx(r"\bsave\b|\bapply\b|\bupdate\b|\bconfirm\b|\bsubmit\b|^\s*done\b")
SUBMIT = _rx(
    r"\bbook\b|\bconfirm\b|\breserve\b|\bsubmit\b|\bschedule\b|\brequest\b|\bsend\b|"
    r"\bcomplete\b|^\s*continue\b|^\s*next\b"
)
PLAN_BUTTON = _rx(
    r"\b(?:get|choose|select|buy|start|subscribe|join|upgrade|try|sign\s+(?:me\s+)?up|go|"
    r"purchase|pick|register)\b"
)
COLLECT_BUTTON = _rx(
    r"\blike\b|\bsave\b|\bfollow\b|\bbookmark\b|\bfavou?rite\b|\badd\s+to\s+(?:my\s+|a\s+)?"
    r"(?:playlist|library|favou?rites|list|wish\s*list)\b|[♥❤♡]"
)
FOLD = _rx(r"\bpreferences\b|\badvanced\b|\bdetails\b|\bmore\b|\bshow\b|\bexpand\b|[▸▾+]$")
FIELD_LABEL = {
    "email": _rx(r"e-?mail"),
    "phone": _rx(r"phone|mobile|tel"),
    "name": _rx(r"\bname\b"),
}
SIGNUP_WORDS = _rx(r"subscri|\bjoin\b|sign\s*up|register|membership")
SEARCH = _rx(r"\bsearch\b|\bfind\b|\blook\s*up\b")
DANGER = _rx(
    r"\bsign\s*out\b|\blog\s*out\b|\bdelete\s+(?:my\s+)?account\b|\bunsubscribe\b|\breset\b|"
    r"\bclear\s+(?:all|cart|history)\b"
)
MARKETING = _rx(r"\bnewsletter\b|\boffers?\b|\bmarketing\b|\bpromotion|\bpartners?\b")
SUCCESS = _rx(
    r"thank\s+you\s+for\s+(?:your\s+)?(?:order|purchase|subscri\w+|booking|shopping)|"
    r"order\s+(?:#|number|no\.?|id)\s*:?\s*[\w-]*\d|order\s+(?:has\s+been\s+|was\s+|is\s+)?"
    r"(?:placed|confirmed|received|complete)|\bbooking\s+(?:is\s+)?confirmed\b|\bbooked\b|"
    r"(?:appointment|visit|booking)\s+(?:has\s+been\s+|is\s+|was\s+)?(?:booked|scheduled|"
    r"confirmed|requested|cancel+ed)|(?:has|have)\s+been\s+cancel+ed|\bcancel+ed\s+"
    r"successfully|(?:settings|preferences|changes)\s+(?:have\s+been\s+|were\s+|are\s+)?saved|"
    r"saved\s+successfully|\b(?:was|were|been|is\s+now)\s+cancel+ed\b|\bsubscription\s+(?:is\s+)?(?:now\s+)?active\b|"
    r"you(?:'re|\s+are)\s+(?:now\s+)?(?:subscribed|a\s+member|on\s+the)|welcome\s+to\s+\w+|"
    r"purchase\s+(?:is\s+)?complete"
)
PLAN_WORDS = _rx(r"\b(?:plan|membership|subscription|tier|newsletter)s?\b")
METRIC_OF = {
    "cheapest": ("price", min),
    "priciest": ("price", max),
    "best_rated": ("rating", max),
    "worst_rated": ("rating", min),
    "newest": ("date", max),
    "oldest": ("date", min),
    "popular": ("plays", max),
    "longest": ("duration", max),
    "shortest": ("duration", min),
}
STRONG, WEAK = 0.8, 0.42  # navigation scores: follow at once / follow when nothing better
BACKDROP_AREA = 0.4 * 1280 * 800  # an element this large is a backdrop, not a button
MAX_TRIES = 2  # clicks of one element on one page


def element_key(url: str, el: Element) -> tuple[str, str, str, str]:
    """What a click is counted under: the page (less its fragment), the element's role, name
    and the start of its context (`MAX_TRIES` counts clicks per key)."""
    return (url.split("#")[0], el.role, el.name, el.context[:60])
