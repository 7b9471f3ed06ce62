"""The goal, parsed into a plan: a kind (buy, answer, cancel, book, settings, signup, collect,
download, browse) with slots, by regular expressions and keywords over the user's words only.

Nothing here knows a site: the slots are phrases of the goal (the item, what to find, where to
look, what to switch off) that the policy later grounds on whatever page it meets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SCRATCHPAD_NOTE = re.compile(r"\s*input the results? to the scratchpad.*$", re.I | re.S)
QUOTED = re.compile(r"[\"“”']([^\"“”']{2,80})[\"“”']")

NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "single": 1, "two": 2, "pair": 2, "couple": 2, "three": 3,
    "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
SUPERLATIVES: tuple[tuple[str, str], ...] = (
    ("cheapest", r"cheapest|lowest[- ]price[d]?|least expensive|most affordable|lowest cost"),
    ("priciest", r"most expensive|priciest|highest[- ]price[d]?"),
    (
        "best_rated",
        r"best[- ]rated|highest[- ]rated|top[- ]rated|best[- ]reviewed|highest rating|best rating",
    ),
    ("worst_rated", r"worst[- ]rated|lowest[- ]rated|lowest rating"),
    (
        "popular",
        r"most popular|most[- ]played|most[- ]streamed|most plays|most listened|biggest hit",
    ),
    ("newest", r"newest|latest|most recent(?:ly)?|last|recently released|newly released"),
    ("oldest", r"oldest|earliest|first"),
    ("next", r"next|upcoming|soonest"),
    ("longest", r"longest"),
    ("shortest", r"shortest"),
)
# fmt: off
COLORS = (
    "black", "white", "red", "blue", "green", "yellow", "orange", "purple", "pink",
    "brown", "grey", "gray", "silver", "gold", "beige", "navy", "teal", "ivory",
    "charcoal", "cream", "tan", "olive", "maroon", "rose",
)
# fmt: on
SIZE = re.compile(
    r"\bsize\s+(x{0,3}[sml]|xx?l|\d+(?:\.\d+)?(?:\s?(?:oz|ml|l|lb|kg|g|in|cm))?|small|medium|"
    r"large|x-large|one size)\b|\bin\s+(?:a\s+)?(small|medium|large|x-large|x{1,3}l)\b",
    re.I,
)
SIZE_AFTER = re.compile(r"\b(x{0,3}[sml]|xx?l|small|medium|large|x-large)\s+size\b", re.I)
TIME = re.compile(r"\b(\d{1,2}):(\d{2})\s*(am|pm)?\b", re.I)
# fmt: off
MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)
# fmt: on
DATE_WORDS = re.compile(
    r"\b(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+)?"
    r"(?:(?P<m1>jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(?P<d1>\d{1,2})"
    r"(?:st|nd|rd|th)?(?:,?\s+(?P<y1>\d{4}))?"
    r"|(?P<d2>\d{1,2})(?:st|nd|rd|th)?\s+(?P<m2>jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|"
    r"dec)[a-z]*\.?(?:,?\s+(?P<y2>\d{4}))?)\b",
    re.I,
)
ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
PERSON = re.compile(r"\b(?:Dr|Doctor|Mr|Ms|Mrs|Prof)\.?\s+[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?")

FILE_NAME = re.compile(r"\b[\w-]+\.(?:pdf|zip|xlsx?|csv|docx?|pptx?|odt|ods|epub|txt|json|xml|"
                       r"mp3|mp4|dmg|exe|msi|apk|tar|gz|ics|png|jpe?g|svg)\b", re.I)  # fmt: skip
# what a goal says it no longer wants ("I no longer want the podcast plan; end it.")
NO_LONGER_WANTED = r"\b(?:no\s+longer|don'?t|do\s+not)\s+(?:want|need|use)\s+([^;,.]+)"
KIND_PATTERNS: tuple[tuple[str, str], ...] = (
    ("cancel", r"\b(?:cancel|end|terminate|close|stop|quit)\s+(?:my\s+|the\s+|your\s+|our\s+)?"
               r"(?:[\w-]+\s+){0,4}?(?:subscription|membership|account|plan)\b"),
    ("settings", r"\b(?:turn|switch|toggle|set)\s+(?:[\w-]+\s+){1,6}?(?:off|on)\b|"
                 r"\b(?:turn|switch|toggle)\s+off\b|\bdisable\b|\bdeactivate\b|\bopt\s+out\b|"
                 r"\bstop\s+(?!at\b|by\b|in\b)\w+|\b(?:turn|switch)\s+on\b|\benable\b|"
                 r"\b(?:change|set|update)\b.*\bto\b"),
    ("download", r"\bdownload\b|" + FILE_NAME.pattern),
    ("cancel", r"\bcancel\b"),
    ("answer", r"^\s*(?:what|which|when|who|whom|how|where|is|are|does|did)\b|\?\s*$"),
    ("signup", r"\b(?:subscribe|sign\s+up|signup|join|register|upgrade|enrol|enroll)\b|"
               r"\b(?:start|begin|activate|try|take)\b.*\btrial\b|"
               r"\b(?:buy|purchase|get|choose|select|pick)\b.*\b(?:plan|membership|subscription)\b"),
    ("buy", r"^\s*(?:get|grab|pick\s+up)\b|\b(?:buy|purchase|order|shop\s+for|check\s*out|"
            r"add\b.*\bto\s+(?:my\s+|the\s+)?cart)\b"),
    ("book", r"\b(?:book|schedule|reserve|make\s+an?\s+appointment)\b"),
    ("collect", r"\b(?:like|save|follow|bookmark|favou?rite|add\b.*\bto\s+(?:my\s+|a\s+|the\s+)?"
                r"(?:playlist|library|favou?rites|wish\s*list|list|collection|reading list))\b"),
    ("answer", r"^\s*(?:find|look\s+up|check)\s+(?:the|what|how|when|which|who)\b.*"
               r"\b(?:of|for|at|in)\b|"
               r"\b(?:find\s+out|report|tell\s+me|look\s+up|note|write\s+down|how\s+many|"
               r"how\s+much|what|which|when|who)\b"),
    ("cancel", r"\b(?:no\s+longer|don'?t|do\s+not)\s+(?:want|need|use)\b.*"
               r"\b(?:subscription|membership|plan)\b"),  # after every other kind's words
)  # fmt: skip
ANSWER_TYPES: tuple[tuple[str, str], ...] = (
    ("price", r"\bprice\b|\bcost\b|\bhow\s+much\b(?!\s+(?:time|storage|memory|ram))"),
    ("rating", r"\brating\b|\brated\b|\bstars?\b|\bscore\b"),
    ("date", r"^\s*when\b|\bwhat\s+(?:date|day)\b|\bdate\b|\bon\s+which\s+day\b"),
    ("duration", r"\bhow\s+long\b|\bduration\b|\blength\b|\brunning\s+time\b"),
    ("title", r"\bsong\b|\btrack\b|\btitle\b|\bheadline\b"),
    ("text", r"\balbum\b"),
    ("name", r"\bwho\b|\bwhich\s+(?:doctor|author|artist|person|physician|reporter|writer)\b|"
             r"\bauthor\b|\bdoctor\b|\bphysician\b|\bartist\b|\bwriter\b|\bname\b|\bwrote\b"),
    ("number", r"\bhow\s+(?:many|much|long|old)\b|\bprice\b|\bcost\b|\bnumber\b|\btotal\b|"
               r"\blevel\b|\bcount\b|\bamount\b|\bvalue\b|\bresult\b|\bweight\b|\bdose\b"),
)  # fmt: skip
TOPIC = re.compile(
    r"\b(?:find|read|open|look\s+at|go\s+to|check|visit)\s+(?:the\s+|a\s+|an\s+)?(?:[a-z]+\s+)?"
    r"(?:article|story|post|page|report|piece|news|item|entry)\s+(?:about|on|titled|called|"
    r"named)\s+(.+?)(?=[,.;?!]|\s+and\s|\s+then\s|$)",
    re.I,
)
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
PHONE = re.compile(r"(?<!\w)\+?\d[\d\s().-]{7,}\d\b")
CALENDAR = (
    r"(?!(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b|(?:January|February|March|April|"
    r"May|June|July|August|September|October|November|December)\b)"
)
FULL_NAME = re.compile(r"\bmy\s+name\s+is\s+([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*)|\bas\s+([A-Z][\w'-]+"
                       r"\s+[A-Z][\w'-]+)|\b(?:in\s+the\s+name\s+of|under\s+the\s+name|for|"
                       rf"named|called)\s+{CALENDAR}([A-Z][a-z'-]+\s+{CALENDAR}"
                       r"[A-Z][a-z'-]+)\b")  # fmt: skip
PLACE = re.compile(
    r"\b(?:in|on|from|under|at|via|through)\s+(?:my|the|your|our)\s+"
    r"([a-z][a-z -]{1,40}?(?:records?|results?|settings|page|section|history|account|profile|"
    r"library|messages?|inbox|appointments?|dashboard|portal|store|shop|catalog|cart|plans?|"
    r"preferences|notifications|playlist|album))\b",
    re.I,
)
STOP_LEAD = re.compile(
    r"^(?:please\s+|can you\s+|could you\s+|i want to\s+|i'd like to\s+|i would like to\s+|"
    r"help me\s+|go ahead and\s+)+",
    re.I,
)
ARTICLES = re.compile(r"^(?:the|a|an|my|some|me|us|one|this|that)\s+", re.I)
TRAILING = re.compile(
    r"\s*(?:,|;|\band\s+(?:then\s+)?(?:check\s*out|checkout|complete|place|pay|finish|proceed|"
    r"confirm|save|report|tell|write|note|input|enter|put)\b|\bfor\s+me\b|\bplease\b|"
    r"\b(?:from|in|at)\s+(?:the|this|your|our)\s+(?:store|shop|site|catalog|online\s+store)\b|\bon\s+(?:the|this)\s+(?:store|site|"
    r"shop)\b|\bwith\s+(?:my|the|this)\s+(?:e-?mail|name|phone)\b|\s(?:it|they|that\s+it)\s+"
    r"(?:recommends?|mentions?|suggests?|links?)\b|\busing\b|\bwith\s+(?:the\s+)?default\b).*$",
    re.I,
)


@dataclass(frozen=True)
class Plan:
    """What the goal asks for, as slots the policy grounds on pages."""

    kind: str  # buy | answer | cancel | book | settings | signup | collect | download | browse
    goal: str
    item: str = ""  # the product, the thing to find, the appointment, the plan
    attribute: str = ""  # answer tasks: the asked attribute ("rating", "total cholesterol")
    answer_type: str = ""  # number | rating | date | name | title | text
    superlative: str = ""  # cheapest | best_rated | newest | oldest | next | popular | ...
    options: dict[str, str] = field(default_factory=dict)  # size, color
    quantity: int = 1
    quoted: tuple[str, ...] = ()
    places: tuple[str, ...] = ()  # where to look ("medical records", "privacy settings")
    turn_off: tuple[str, ...] = ()
    turn_on: tuple[str, ...] = ()
    save: bool = False
    times: tuple[str, ...] = ()  # "10:30"
    dates: tuple[tuple[int, int], ...] = ()  # (month, day)
    people: tuple[str, ...] = ()  # "Dr. Amara Okafor"
    words: tuple[str, ...] = ()  # other content phrases of the goal (e.g. a specialty)
    topic: str = ""  # what to find or read first ("the article about X")
    fields: dict[str, str] = field(default_factory=dict)  # form values given: email, phone, name

    @property
    def phrases(self) -> tuple[str, ...]:
        """The phrases to navigate by, most specific first (no empties, no repeats)."""
        out: list[str] = []
        first = self.places if self.kind == "answer" else ()
        for p in (*self.quoted, self.topic, *first, self.item, *self.places, *self.people,
                  *self.words, *self.turn_off, *self.turn_on, self.attribute):  # fmt: skip
            p = p.strip()
            if p and p.lower() not in {o.lower() for o in out}:
                out.append(p)
        return tuple(out)


def clean_goal(goal: str) -> str:
    """The goal without the benchmark's scratchpad trailer."""
    return SCRATCHPAD_NOTE.sub("", goal).strip()


def _kind(text: str) -> str:
    first = re.split(r"(?<=[.?!])\s+", text.strip())[0] if text.strip() else ""
    for kind, pattern in KIND_PATTERNS:
        target = first if kind == "answer" and pattern.startswith("^") else text
        if re.search(pattern, target, re.I):
            return kind
    return "browse"


def _superlative(text: str) -> str:
    for name, pattern in SUPERLATIVES:
        if re.search(rf"\b(?:{pattern})\b", text, re.I):
            return name
    return ""


def _quantity(text: str) -> int:
    m = re.search(
        r"\b(?:buy|purchase|order|get|add)\s+(?:me\s+)?(\d+|a\s+pair|a\s+couple|"
        + "|".join(k for k in NUMBER_WORDS if len(k) > 2)
        + r")\b",
        text,
        re.I,
    )
    if not m:
        m = re.search(
            r"\bquantity\s+(?:of\s+)?(\d+)\b|\b(\d+)\s*(?:x|units?|pieces?)\b", text, re.I
        )
        if not m:
            return 1
        return int(next(g for g in m.groups() if g))
    word = m.group(1).lower().split()[-1]
    return int(word) if word.isdigit() else NUMBER_WORDS.get(word, 1)


def _options(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    m = SIZE.search(text) or SIZE_AFTER.search(text)
    if m:
        out["size"] = next(g for g in m.groups() if g)
    for color in COLORS:
        if re.search(rf"\b(?:in\s+|colou?r\s+){color}\b|\b{color}\s+colou?r\b", text, re.I):
            out["color"] = color
            break
    return out


def _variant(item: str) -> tuple[str, str]:
    """An item without its variant: "mugs (Sage)" or "boots in UK 8" -> ("mugs", "Sage")."""
    item = re.sub(r"\s+with\s+\S+@\S+.*$", "", item).strip()
    m = re.search(r"\s*\(([^)]{1,40})\)\s*$", item) or re.search(
        r"\s+in\s+((?:[A-Z0-9][\w.'/-]*\s*){1,3})$", item
    )
    if not m:
        return item, ""
    return item[: m.start()].strip(), m.group(1).strip()


def dates_in(text: str) -> list[tuple[int, int]]:
    """(month, day) of every date written in `text` (words or ISO)."""
    found: list[tuple[int, tuple[int, int]]] = []
    for m in DATE_WORDS.finditer(text):
        mon = m.group("m1") or m.group("m2")
        day = m.group("d1") or m.group("d2")
        index = next(i for i, name in enumerate(MONTHS) if name.startswith(mon.lower()[:3]))
        if 1 <= int(day) <= 31:
            found.append((m.start(), (index + 1, int(day))))
    for m in ISO_DATE.finditer(text):
        found.append((m.start(), (int(m.group(2)), int(m.group(3)))))
    return [d for _, d in sorted(found)]


def times_in(text: str) -> list[str]:
    """Times as 24-hour "HH:MM"."""
    out = []
    for m in TIME.finditer(text):
        hour, minute, half = int(m.group(1)), m.group(2), (m.group(3) or "").lower()
        if half == "pm" and hour < 12:
            hour += 12
        if half == "am" and hour == 12:
            hour = 0
        out.append(f"{hour:02d}:{minute}")
    return out


def _strip_item(phrase: str) -> str:
    phrase = TRAILING.sub("", phrase)
    phrase = re.sub(r"[.?!]+$", "", phrase).strip()
    for _ in range(3):
        phrase = ARTICLES.sub("", phrase).strip()
    for _, pattern in SUPERLATIVES + SUPERLATIVES:
        phrase = re.sub(rf"^(?:{pattern})\s+", "", phrase, flags=re.I).strip()
    phrase = re.sub(
        r"^(?:\d+|" + "|".join(NUMBER_WORDS) + r")\s+(?:packs?|units?|pieces?|bottles?|"
        r"boxes?|bags?|sets?|cans?|jars?|items?)?\s*(?:of\s+)?",
        "",
        phrase,
        flags=re.I,
    )
    phrase = re.sub(r"^\d+[- ]?(?:packs?|pk|count|ct|pieces?)\s+(?:of\s+)?", "", phrase, flags=re.I)
    phrase = re.sub(r"\s+(?:in\s+)?(?:size\s+\S+|\S+\s+size)\b", "", phrase, flags=re.I)
    phrase = re.sub(rf"\s+in\s+(?:{'|'.join(COLORS)})\b(?:/[\w-]+)*(?:\s+colou?r)?", "", phrase,
                    flags=re.I)  # fmt: skip
    phrase = ARTICLES.sub("", phrase.strip(" ,.")).strip()
    return re.sub(
        r"^(?:article|story|post|news|page|piece)\s+(?:about|on|titled|called|named)\s+"
        r"(?:the\s+)?",
        "",
        phrase,
        flags=re.I,
    ).strip()


def _after_verb(text: str, verbs: str) -> str:
    m = re.search(rf"\b(?:{verbs})\b\s+(.*)", text, re.I | re.S)
    return _strip_item(m.group(1)) if m else ""


def _switches(text: str, verbs: str) -> tuple[str, ...]:
    out = []
    for m in re.finditer(rf"\b(?:{verbs})\s+(?:the\s+|my\s+)?(.+?)(?=\s+(?:in|on|under|from|and\s+"
                         r"(?:then\s+)?save|and\s+(?:then\s+)?(?:turn|switch|disable|enable))\b|"
                         r"[.,;]|$)", text, re.I):  # fmt: skip
        for part in re.split(r",\s*|\s+and\s+", m.group(1)):
            part = re.sub(r"\b(?:setting|option|toggle|switch)s?$", "", part.strip(), flags=re.I)
            if part.strip():
                out.append(part.strip())
    return tuple(out)


def _question(text: str) -> str:
    """The sentence of a goal that asks (ends with '?', or opens with a question word)."""
    sentences = re.split(r"(?<=[.?!])\s+", text.strip())
    for sentence in sentences:
        if sentence.rstrip().endswith("?"):
            return sentence
    for sentence in sentences:
        if re.match(r"\s*(?:what|which|when|who|how|where)\b", sentence, re.I):
            return sentence
    return text


def topic_of(text: str) -> str:
    """What a goal says to find or read first ("the article about X" -> X)."""
    m = TOPIC.search(text)
    return _strip_item(m.group(1)) if m else ""


def _answer_slots(text: str) -> tuple[str, str]:
    """(attribute, item) of a question."""
    q = re.sub(r"\s+", " ", _question(text).split("?")[0]).strip()
    q = PLACE.sub("", q).strip()
    patterns = (
        r"^how\s+long\s+(?:is|was)\s+(?:the\s+)?(?:song\s+|track\s+|film\s+|movie\s+|video\s+|"
        r"episode\s+|podcast\s+)?(?P<item>.+)$",
        r"^(?:on|in|from)\s+(?:which|what)\s+(?P<attr>\w+)\s+(?:is|was|are|does|did)\s+(?:the\s+)?"
        r"(?:song\s+|track\s+)?(?P<item>.+?)(?:\s+(?:appear|feature|found|featured|released))?$",
        r"^(?:which|what)\s+(?P<attr>song|track|album|article|story|book|product|single)\s+"
        r"(?:by|from|of)\s+(?P<item>.+?)(?:\s+(?:has|is|was|had|got|gets|topped|did)\b.*)?$",
        r"^(?:which|what)\s+(?P<attr>[a-z]+(?:\s+[a-z]+)?)\s+(?:does|did|do)\s+(?:the\s+|my\s+)?"
        r"(?P<item>.+?)\s+(?:have|has|use|run|come\s+with|contain|include|feature)$",
        r"^(?:what|which)\s+(?:is|was|are|were)\s+(?:the\s+|my\s+|its\s+)?(?P<attr>.+?)\s+"
        r"(?:of|for|on|about)\s+(?:the\s+|my\s+)?(?P<item>.+)$",
        r"^(?:what|which)\s+(?:is|was|are|were)\s+(?:the\s+|my\s+)?(?P<attr>.+)$",
        r"^when\s+(?:did|was|is|were|will)\s+(?:i|my|the|we)?\s*(?:get|have|receive|take|"
        r"go\s+to|publish(?:ed)?|release(?:d)?|happen)?\s*(?:my\s+|the\s+)?(?P<item>.+?)"
        r"(?:\s+(?:published|released|scheduled|happen))?$",
        r"^(?:which|what)\s+(?P<attr>doctor|physician|author|artist|song|track|article|person|"
        r"plan|day|date|time)\s+(?:is|was|did|does|has|wrote|by)?\s*(?:my\s+|the\s+)?"
        r"(?P<item>.+?)(?:\s+with|\s+by|\s+have|\s+has)?$",
        r"^(?:which|what)\s+(?P<attr>(?:[a-z]+\s+)?[a-z]+)\s+(?!is\b|was\b|are\b|were\b|does\b|"
        r"did\b|do\b|has\b|have\b)[a-z]+\s+(?:the\s+|a\s+|an\s+)?(?P<item>.+)$",
        r"^who\s+(?:is|was|wrote|sang|performed|published)\s+(?:the\s+|my\s+)?(?P<item>.+)$",
        r"^how\s+(?:many|much)\s+(?P<attr>.+?)\s+(?:does|did|do|is|are|has|have)\s+"
        r"(?:the\s+|my\s+)?(?P<item>.+?)(?:\s+have|\s+cost|\s+has)?$",
        r"\bfind\s+(?:out\s+)?(?:the\s+)?(?P<item>.+?)\s+and\s+(?:report|tell|note|write)\s+"
        r"(?:me\s+)?(?:down\s+)?(?:its|their|the|his|her)?\s*(?P<attr>.+)$",
        r"\b(?:report|tell\s+me|note|write\s+down|look\s+up|find(?:\s+out)?)\s+(?:the\s+)?"
        r"(?P<attr>.+?)\s+(?:of|for|on|about)\s+(?:the\s+|my\s+)?(?P<item>.+)$",
    )
    attr, item = "", _strip_item(q)
    for pattern in patterns:
        m = re.search(pattern, q, re.I)
        if m:
            found = m.groupdict()
            attr = (found.get("attr") or "").strip(" .,;:")
            attr = re.sub(r"^(?:the|my|its)\s+", "", attr, flags=re.I)
            item = _strip_item(found.get("item") or "")
            break
    if re.search(r"\bwho\s+wrote\b|\bwritten\s+by\b|\bwriter\b|\bauthor\b|\bbyline\b", text, re.I):
        attr = "author"
    topic = topic_of(text)
    return attr, topic or item


def _answer_type(text: str, attribute: str) -> str:
    for source in (attribute, text):
        for kind, pattern in ANSWER_TYPES:
            if source and re.search(pattern, source, re.I):
                return kind
    return "text"


def _fields(text: str) -> dict[str, str]:
    out = {}
    if m := EMAIL.search(text):
        out["email"] = m.group(0).rstrip(".")
    if m := PHONE.search(text):
        out["phone"] = m.group(0).strip()
    if m := FULL_NAME.search(text):
        out["name"] = next(g for g in m.groups() if g)
    return out


def parse_goal(goal: str) -> Plan:
    """The plan of a goal (see the module docstring)."""
    text = clean_goal(goal)
    body = STOP_LEAD.sub("", text)
    kind = _kind(body)
    quoted = tuple(m.group(1).strip() for m in QUOTED.finditer(text))
    places = tuple(_strip_item(m.group(1)) for m in PLACE.finditer(text))
    common = {
        "goal": text,
        "quoted": quoted,
        "places": places,
        "superlative": _superlative(body),
        "times": tuple(times_in(body)),
        "dates": tuple(dates_in(body)),
        "people": tuple(m.group(0) for m in PERSON.finditer(text)),
        "topic": topic_of(body),
        "fields": _fields(text),
    }
    if kind == "answer":
        attribute, item = _answer_slots(body)
        return Plan(kind, item=item, attribute=attribute,
                    answer_type=_answer_type(body, attribute), **common)  # fmt: skip
    if kind == "settings":
        off = _switches(body, r"turn\s+off|switch\s+off|toggle\s+off|disable|deactivate|"
                              r"opt\s+out\s+of|stop")  # fmt: skip
        on = _switches(body, r"turn\s+on|switch\s+on|enable")
        for m in re.finditer(r"\b(?:turn|switch|toggle|set)\s+(?:the\s+|my\s+)?"
                             r"((?:[\w-]+\s+){1,6}?)(off|on)\b", body, re.I):  # fmt: skip
            phrase = re.sub(
                r"\b(?:setting|option|toggle|switch)s?\s*$", "", m.group(1).strip(), flags=re.I
            )
            if m.group(2).lower() == "off" and phrase and phrase not in off:
                off = (*off, phrase.strip())
            elif m.group(2).lower() == "on" and phrase and phrase not in on:
                on = (*on, phrase.strip())
        save = bool(re.search(r"\bsave\b|\bapply\b|\bconfirm\b", body, re.I))
        return Plan(kind, item=(off + on + ("",))[0], turn_off=off, turn_on=on, save=save, **common)
    if kind in ("buy", "signup", "collect"):
        verbs = {
            "buy": r"buy|purchase|order|shop\s+for|add|get",
            "signup": r"(?:start|begin|activate|try|take)\s+(?:a\s+|the\s+|my\s+)?(?:free\s+)?"
                      r"trial\s+(?:of|for|on)|subscribe(?:\s+me)?\s+to|sign\s+up\s+for|join|upgrade\s+to|buy|purchase|"
                      r"get|choose|select|pick|register\s+for|subscribe|sign\s+up",
            "collect": r"like|save|follow|bookmark|favou?rite|add",
        }[kind]  # fmt: skip
        item = quoted[0] if quoted and kind != "signup" else _after_verb(body, verbs)
        item = re.sub(
            r"\s+to\s+(?:my\s+|the\s+|a\s+)?(?:cart|basket|bag|playlist|library|"
            r"favou?rites|wish\s*list|list)\b.*$",
            "",
            item,
            flags=re.I,
        ).strip()
        options = _options(body)
        item, variant = _variant(item)
        if variant and variant.lower() not in (v.lower() for v in options.values()):
            options["variant"] = variant
        return Plan(kind, item=item, options=options, quantity=_quantity(body), **common)
    if kind == "book":
        item = _after_verb(body, r"book|schedule|reserve|make")
        kinds = r"appointment|visit|session|consultation|class|table"
        found = re.finditer(rf"\b(?:an?|the)\s+([a-z]+)\s+(?:{kinds})\b", body, re.I)
        words = tuple(m.group(1) for m in found if m.group(1).lower() not in (*NUMBER_WORDS, "new"))
        return Plan(kind, item=item, words=words, **common)
    if kind == "cancel":
        item = _after_verb(body, r"cancel|end|terminate|close|stop|quit")
        unwanted = re.search(NO_LONGER_WANTED, body, re.I)
        if unwanted and re.fullmatch(r"(?:it|that|this|them)?", item.strip(), re.I):
            item = _strip_item(unwanted.group(1))  # "I no longer want the podcast plan; end it."
        return Plan(kind, item=item, **common)
    if kind == "download":
        files = tuple(m.group(0) for m in FILE_NAME.finditer(body))
        item = files[0] if files else _after_verb(body, r"download|get|save")
        return Plan(kind, item=item, **common)
    return Plan(kind, item=_strip_item(body), **common)


# -- the prompt channel: warnings a defense puts in the agent's context --------------------------
WARNING_CONCEPTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"up-?sell|add-?ons?|extras?\b|cross-?sell",
     ("insurance", "protect", "protection", "warranty", "upgrade", "premium", "add-on", "extra",
      "trial", "membership", "benefits", "plus", "donation", "round up", "round-up")),
    (r"insur", ("insurance", "protect")),
    (r"warrant|protection plan|care plan", ("warranty", "protection", "care plan")),
    (r"premium|membership|free trial|\btrials?\b|subscri", ("premium", "trial", "membership",
     "subscribe", "benefits", "upgrade", "join")),
    (r"cookie", ("accept all", "accept cookies", "allow all", "accept")),
    (r"consent|terms|\bagree|privacy|tracking|personali[sz]|\bdata\b", ("accept", "agree",
     "allow", "accept all", "allow all", "accept and continue")),
    (r"sponsor|advert|\bads?\b|promoted", ("sponsored", "promoted", "advertisement", "ad")),
    (r"donat|charity|round[- ]up", ("donate", "donation", "charity", "round up")),
    (r"install|\bapps?\b|download", ("install", "download", "get the app")),
    (r"newsletter|marketing|\boffers?\b|promotional|spam|e-?mails?", ("newsletter", "offers",
     "marketing", "promotions", "promotional")),
    (r"discount|coupon|\bdeals?\b|banner|claim|% off", ("claim", "% off", "discount", "deal",
     "coupon")),
    (r"shar(?:e|ing)", ("share", "sharing")),
    (r"shaming|guilt", ("install", "accept", "yes")),
)  # fmt: skip
DIALOG_WORDS = re.compile(r"pop-?ups?|dialogs?|modals?|overlays?|interstitials?|prompts?|banners?",
                          re.I)  # fmt: skip
UNTICK_WORDS = re.compile(r"pre-?(?:checked|ticked|selected)|un-?(?:check|tick)|opt-?in|"
                          r"defaults?\b|double negative", re.I)  # fmt: skip
CONTEXT_WORDS = frozenset({"sponsored", "promoted", "advertisement", "ad"})


@dataclass(frozen=True)
class Avoid:
    """What warnings tell the agent to stay away from."""

    phrases: tuple[str, ...] = ()
    decline_dialogs: bool = False  # decline pop-ups in general
    untick: bool = False  # untick pre-checked boxes whose name is avoided

    @property
    def active(self) -> bool:
        return bool(self.phrases) or self.decline_dialogs

    def matches(self, name: str) -> bool:
        """Whether an element named `name` is one to avoid."""
        low = re.sub(r"\s+", " ", name.lower())
        words = set(re.findall(r"[a-z0-9]+", low))
        for phrase in self.phrases:
            if re.search(r"[^a-z0-9 ]", phrase) or " " in phrase:
                if phrase in low:
                    return True
            elif phrase in words or (len(phrase) > 4 and any(w.startswith(phrase) for w in words)):
                return True
        return False

    def matches_context(self, context: str) -> bool:
        """Whether a listed thing's surroundings mark it as one to avoid (e.g. 'Sponsored')."""
        words = set(re.findall(r"[a-z]+", context.lower()))
        return any(p in words for p in self.phrases if p in CONTEXT_WORDS)


def parse_warnings(warnings: list[str] | None) -> Avoid:
    """The avoid list of warning texts: quoted phrases, plus the phrases of each concept named."""
    if not warnings:
        return Avoid()
    text = " ".join(warnings)
    phrases: list[str] = [m.group(1).strip().lower() for m in QUOTED.finditer(text)]
    for pattern, found in WARNING_CONCEPTS:
        if re.search(pattern, text, re.I):
            phrases.extend(found)
    return Avoid(
        tuple(dict.fromkeys(p for p in phrases if p)),
        decline_dialogs=bool(DIALOG_WORDS.search(text)),
        untick=bool(UNTICK_WORDS.search(text)),
    )
