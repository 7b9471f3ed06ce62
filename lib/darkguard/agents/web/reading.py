"""Reading answers off a page: the value of the asked type (a number, a rating, a date, a name, a
title) nearest to where the page mentions what the goal asks about, then writing it to the
scratchpad (the textbox named "Scratchpad") and stopping with it.

Also the small readers the policy uses to compare listed things: prices, ratings, dates, play
counts and durations in an element's context.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from darkguard.agents.web.goal import MONTHS, Plan
from darkguard.agents.web.grounding import overlap, tokens
from darkguard.envs.arena.actions import Action, Stop, Type
from darkguard.envs.arena.observation import PageObservation

MON = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
DATE_PATTERNS = (
    ("iso", re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")),
    ("mdy", re.compile(rf"\b({MON})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)),
    ("dmy", re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({MON}),?\s+(\d{{4}})\b", re.I)),
    ("slash", re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")),
    ("my", re.compile(rf"\b({MON})\s+(\d{{4}})\b", re.I)),
)
RATING_PATTERNS = (
    re.compile(r"(?<![\d.])(\d(?:\.\d{1,2})?)\s*(?:/|out\s+of)\s*5(?![\d.])", re.I),
    re.compile(r"\b(?:rating|rated|score)\s*:?\s*(\d(?:\.\d{1,2})?)(?![\d.])", re.I),
    re.compile(r"(?<![\d.])(\d(?:\.\d{1,2})?)\s*(?:stars?|★)", re.I),
    re.compile(r"★+\s*(\d(?:\.\d{1,2})?)(?![\d.])"),
)
PRICE = re.compile(r"(?:[$€£]\s?|\bUSD\s?|\bEUR\s?)(\d[\d,]*(?:\.\d{1,2})?)")
TIME_OF_DAY = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\s*(?:am|pm)?\b", re.I)
TIME_OF_DAY_AMPM = re.compile(r"\b\d{1,2}:\d{2}\s*(?:am|pm)\b", re.I)
DURATION = re.compile(r"(?<![\d:])(\d{1,2}):([0-5]\d)(?![\d:])")
PLAYS = re.compile(
    r"(\d[\d,]*(?:\.\d+)?)\s*([kmb])?\s*(?:plays|streams|listens|views|listeners|reads)\b", re.I
)
NUMBER = re.compile(
    r"(?<![\w.])([$€£]?\d[\d,]*(?:\.\d+)?(?:/\d+)?)\s*(%|mg/dl|mmol/l|mmhg|bpm|kg|lbs?|cm|mm|ml|"
    r"mg|g/dl|g|°f|°c|units?|years?|minutes?|mins?|hours?|days?)?(?![\w.])",
    re.I,
)
CAP = r"[A-Z][\w'’-]+"
NAME_PATTERNS = (
    re.compile(rf"\b(?:Dr|Doctor|Prof|Mr|Mrs|Ms)\.?\s+{CAP}(?:\s+{CAP})?"),
    re.compile(
        rf"\b(?:[Bb]y|[Ww]ritten by|[Aa]uthor:?|[Rr]eporter:?|[Ww]ith)\s+({CAP}(?:\s+{CAP}){{1,2}})"
    ),
    re.compile(rf"\b({CAP}\s+{CAP}(?:\s+{CAP})?)\b"),
)  # fmt: skip
ATTRIBUTE_WORDS = {
    "doctor": "dr physician provider clinician with",
    "physician": "dr doctor provider",
    "author": "by writer reporter written",
    "writer": "by author",
    "rating": "rated star review",
    "price": "cost",
    "date": "on",
    "artist": "by",
}
SCRATCHPAD = re.compile(r"^\s*scratch\s*pad\b|^\s*notes?\b", re.I)
TITLE_WEIGHT = 0.6  # an item named only in the page title is a weaker anchor than a nearby line
ITEM_DECAY = 0.85  # per line between a value and the mention of the item above it
ANSWER_THRESHOLD = 0.7  # a finding this good is answered at once


Similarity = Callable[[str, Sequence[str]], Sequence[float]]  # (query, texts) -> scores


@dataclass(frozen=True)
class Finding:
    value: str
    score: float  # how well the surroundings match the question, in [0, 1]
    line: int  # where on the page (line index)


def _month(word: str) -> int:
    return next(i + 1 for i, m in enumerate(MONTHS) if m.startswith(word.lower()[:3]))


def find_dates(text: str) -> list[tuple[int, tuple[int, int, int], str]]:
    """(position, (year, month, day), as written) of each date in `text`; day 0 for a month."""
    out: dict[int, tuple[int, tuple[int, int, int], str]] = {}
    taken: list[tuple[int, int]] = []
    for kind, pattern in DATE_PATTERNS:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            g = m.groups()
            try:
                if kind == "iso":
                    ymd = (int(g[0]), int(g[1]), int(g[2]))
                elif kind == "mdy":
                    ymd = (int(g[2]), _month(g[0]), int(g[1]))
                elif kind == "dmy":
                    ymd = (int(g[2]), _month(g[1]), int(g[0]))
                elif kind == "slash":
                    ymd = (int(g[2]), int(g[0]), int(g[1]))
                else:
                    ymd = (int(g[1]), _month(g[0]), 0)
            except StopIteration:
                continue
            if 1 <= ymd[1] <= 12 and 0 <= ymd[2] <= 31:
                taken.append((m.start(), m.end()))
                out[m.start()] = (m.start(), ymd, m.group(0))
    return [out[k] for k in sorted(out)]


def iso(ymd: tuple[int, int, int]) -> str:
    y, m, d = ymd
    return f"{y:04d}-{m:02d}-{d:02d}" if d else f"{y:04d}-{m:02d}"


def find_ratings(text: str) -> list[tuple[int, float]]:
    """(position, rating) of each rating on a 5-point scale."""
    out: dict[int, float] = {}
    for pattern in RATING_PATTERNS:
        for m in pattern.finditer(text):
            value = float(m.group(1))
            if 0 <= value <= 5 and not any(abs(p - m.start()) < 12 for p in out):
                out[m.start()] = value
    return sorted(out.items())


def price_of(text: str) -> float | None:
    """The first price in `text`."""
    m = PRICE.search(text)
    return float(m.group(1).replace(",", "")) if m else None


def plays_of(text: str) -> float | None:
    """The largest play/stream/view count in `text` (1.2M -> 1200000)."""
    best = None
    for m in PLAYS.finditer(text):
        value = float(m.group(1).replace(",", ""))
        value *= {"k": 1e3, "m": 1e6, "b": 1e9}.get((m.group(2) or "").lower(), 1)
        best = value if best is None else max(best, value)
    return best


def duration_of(text: str) -> int | None:
    """The first m:ss duration, in seconds."""
    m = DURATION.search(text)
    return int(m.group(1)) * 60 + int(m.group(2)) if m else None


def metrics(text: str) -> dict[str, float]:
    """What a listed thing's text tells to compare it: price, rating, date, plays, duration."""
    out: dict[str, float] = {}
    price = price_of(text)
    if price is not None:
        out["price"] = price
    ratings = find_ratings(text)
    if ratings:
        out["rating"] = ratings[0][1]
    dates = find_dates(text)
    if dates:
        y, m, d = dates[0][1]
        out["date"] = y * 10000 + m * 100 + d
    plays = plays_of(text)
    if plays is not None:
        out["plays"] = plays
    seconds = duration_of(TIME_OF_DAY.sub(lambda t: t.group(0) if ":" in t.group(0)[3:] else "",
                                          text))  # fmt: skip
    if seconds is not None:
        out["duration"] = seconds
    return out


def _values(line: str, kind: str, titled: bool | None = None) -> list[tuple[int, str]]:
    """(position, value) of each value of the answer type in one line."""
    if kind == "rating":
        return [(p, f"{v:g}") for p, v in find_ratings(line)]
    if kind == "date":
        return [(p, raw if raw == iso(ymd) else f"{raw} ({iso(ymd)})")
                for p, ymd, raw in find_dates(line)]  # fmt: skip
    if kind == "name":
        found: dict[int, str] = {}
        for pattern in NAME_PATTERNS if titled is None else NAME_PATTERNS[:1]:
            for m in pattern.finditer(line):
                value = (m.group(1) if m.groups() else m.group(0)).strip()
                if not any(a <= m.start() < a + len(v) + 6 for a, v in found.items()):
                    found[m.start()] = value
        return sorted(found.items())
    if kind == "number":
        masked = line
        for p, _, raw in find_dates(line):
            masked = masked[:p] + " " * len(raw) + masked[p + len(raw) :]
        masked = TIME_OF_DAY.sub(lambda t: " " * len(t.group(0)), masked)
        return [(m.start(), m.group(0).strip()) for m in NUMBER.finditer(masked)]
    if kind == "duration":
        return [(m.start(), m.group(0)) for m in DURATION.finditer(TIME_OF_DAY_AMPM.sub("", line))]
    if kind == "price":
        return [(m.start(), m.group(0).strip()) for m in PRICE.finditer(line)]
    if kind == "title":
        return [(m.start(), m.group(1)) for m in re.finditer(r"[\"“]([^\"”]{2,80})[\"”]", line)]
    return [(0, line.strip())] if line.strip() else []


def _attribute_score(attribute: str, kind: str, line: str, value_at: int) -> float:
    if not attribute:
        return 1.0
    head = line[: value_at + 1] if value_at >= 0 else line
    score = overlap(attribute, head) if value_at >= 0 else overlap(attribute, line)
    extra = set()
    for word in tokens(attribute):
        extra |= set(ATTRIBUTE_WORDS.get(word, "").split())
    if extra & set(re.findall(r"[a-z]+", line.lower())):
        score = max(score, 0.8)
    if kind == "rating" and find_ratings(line):
        score = max(score, 0.9)
    if kind == "price" and PRICE.search(line):
        score = max(score, 0.9)
    if kind == "name" and re.search(r"\b(?:Dr|Doctor)\.?\s", line) and "doctor" in attribute:
        score = 1.0
    return score


def _item_score(item: str, lines: list[str], i: int, title: str) -> float:
    """How strongly line `i` is about `item`: its own words, or a heading a few lines above
    (fading with distance), or the page title."""
    if not item:
        return 1.0
    near = max(overlap(item, lines[j]) * ITEM_DECAY ** (i - j) for j in range(max(0, i - 5), i + 1))
    return max(near, TITLE_WEIGHT * overlap(item, title))


def page_lines(text: str) -> list[str]:
    """The page's text lines, without the scratchpad's own label."""
    return [ln for ln in (s.strip() for s in text.split("\n")) if ln and not SCRATCHPAD.match(ln)]


def find_answer(
    plan: Plan, text: str, title: str = "", similarity: Similarity | None = None
) -> Finding | None:
    """The best value of `plan.answer_type` on the page, scored by how near it sits to the asked
    attribute and item; ties go by the goal's superlative (newest, oldest, next)."""
    kind = plan.answer_type or "text"
    lines = page_lines(text)
    attribute = "" if kind == "date" and plan.attribute in ("date", "day") else plan.attribute
    if kind == "title" and plan.attribute:
        attribute = ""
    if kind == "text":
        found = _labelled_text(plan, lines, title)
        if found is None and similarity is not None:
            found = _closest_sentence(plan, lines, title, similarity)
        return found
    doctor = bool(re.search(r"\b(?:doctor|physician|dr)\b", plan.attribute + " " + plan.goal, re.I))
    found: list[tuple[float, int, str, int]] = []  # score, line, value, date key
    last_date = 0
    for i, line in enumerate(lines):
        dates = find_dates(line)
        if dates:
            y, m, d = dates[-1][1]
            last_date = y * 10000 + m * 100 + d
        values = _values(line, kind, True if doctor else None)
        if not values:
            continue
        item = _item_score(plan.item, lines, i, title)
        for pos, value in values:
            if kind == "name" and overlap(value, plan.item) > 0.5:
                continue  # the thing asked about is not its own answer
            attr = _attribute_score(attribute, kind, line, pos)
            if attr < 0.5 and i + 1 < len(lines) and kind == "number" and pos == 0:
                attr = max(attr, _attribute_score(attribute, kind, lines[i - 1], -1) if i else 0)
            found.append((round(0.5 * item + 0.5 * attr, 3), i, value, last_date))
    if not found:
        return None
    top = max(f[0] for f in found)
    ties = [f for f in found if f[0] >= top - 0.05]
    if plan.superlative == "newest" and any(f[3] for f in ties):
        pick = max(ties, key=lambda f: (f[3], -f[1]))
    elif plan.superlative == "oldest" and any(f[3] for f in ties):
        pick = min(ties, key=lambda f: (f[3] or 99999999, f[1]))
    elif plan.superlative in ("next", "oldest"):
        pick = min((f for f in found if f[0] >= top - 0.1), key=lambda f: f[1])
    else:
        pick = max(ties, key=lambda f: (f[0], -f[1]))
    return Finding(pick[2], pick[0], pick[1])


def _labelled_text(plan: Plan, lines: list[str], title: str) -> Finding | None:
    """A free-text attribute: the rest of a line labelled with it ("Processor  Intel ..."), the
    line under a heading named by it ("Description"), or a line that mentions it."""
    attribute = plan.attribute.strip()
    if not attribute:
        return None
    found: list[tuple[float, int, str]] = []
    for i, line in enumerate(lines):
        if overlap(attribute, line) < 1.0:
            continue
        label = re.match(rf"\s*{re.escape(attribute)}s?\b\s*[:\-–]?\s*(.*)$", line, re.I)
        if label and label.group(1).strip():
            value, attr = label.group(1).strip(), 1.0
        elif label and i + 1 < len(lines):
            value, attr = lines[i + 1], 1.0
        else:
            value, attr = line, 0.6
        item = _item_score(plan.item, lines, i, title)
        found.append((round(0.5 * item + 0.5 * attr, 3), attr, i, value[:300]))
    if not found:
        return None
    score, _, line, value = max(found, key=lambda f: (f[0], f[1], -f[2]))
    return Finding(value, score, line)


def _closest_sentence(
    plan: Plan, lines: list[str], title: str, similarity: Similarity
) -> Finding | None:
    """On a page about the item, the sentence closest in meaning to the question."""
    if plan.item and overlap(plan.item, title) < 0.5:
        return None
    sentences = [
        s.strip()
        for line in lines
        if len(line) > 40
        for s in re.split(r"(?<=[.!?])\s+", line)
        if 20 <= len(s.strip()) <= 300
    ]
    if not sentences:
        return None
    question = re.split(r"(?<=[.?!])\s+", plan.goal)
    asked = next((q for q in question if q.rstrip().endswith("?")), plan.goal)
    scores = list(similarity(asked, sentences))
    if plan.attribute:  # the asked attribute is the sharper probe ("research vessel")
        probe = similarity(plan.attribute, sentences)
        scores = [0.3 * q + 0.7 * a for q, a in zip(scores, probe, strict=True)]
    best = max(range(len(sentences)), key=lambda i: (scores[i], -i))
    return Finding(sentences[best], round(0.5 + 0.5 * min(1.0, float(scores[best])), 3), -1)


COLUMN_SYNONYMS = {"song": "title", "track": "title", "length": "duration", "singer": "artist",
                   "record": "album", "cost": "price"}  # fmt: skip


def _segments(row: str, names: list[str]) -> list[str]:
    """A table row's text cut into cells: the names of its links, and the words between."""
    cells: list[str] = []
    rest = row.strip()
    while rest:
        hit = next((n for n in names if n and rest.startswith(n)), None)
        if hit is None:
            word, _, rest = rest.partition(" ")
            cells.append(word)
        else:
            cells.append(hit)
            rest = rest[len(hit) :]
        rest = rest.strip()
    return cells


def _header_words(line: str) -> list[str]:
    """The column names of a table header line ('# Title Artist Album Duration'), else []."""
    words = line.split()
    if not 3 <= len(words) <= 10 or re.search(r"\d", line):
        return []
    if not all(w[0].isupper() or not w[0].isalpha() for w in words):
        return []
    return [w.lower() for w in words]


def table_answer(plan: Plan, obs: PageObservation) -> Finding | None:
    """A cell of a table: the column named by the asked attribute, in the row about the item
    (rows are cut into cells by the names of the links they hold)."""
    attribute = plan.attribute.lower().strip()
    column = COLUMN_SYNONYMS.get(attribute, attribute)
    if not column or " " in column:
        return None
    where_am_i = f"{obs.title} {obs.url}"
    if plan.places and not any(overlap(p, where_am_i) >= 0.5 for p in plan.places):
        return None
    header = next((words for words in map(_header_words, page_lines(obs.text)) if column in words),
                  None)  # fmt: skip
    if header is None:
        return None
    where = header.index(column)
    item = re.sub(r"\s+by\s+.*$", "", plan.item, flags=re.I) if column == "title" else plan.item
    rows: dict[str, list[str]] = {}
    for el in obs.elements:
        if el.context and el.role == "link":
            rows.setdefault(el.context, []).append(el.name)
    for row, names in rows.items():
        if plan.item and overlap(plan.item, row) < 0.5:
            continue
        cells = _segments(row, sorted(names, key=len, reverse=True))
        if len(cells) != len(header):
            continue
        value = cells[where]
        if column == "title" or overlap(item, value) < 0.5:
            return Finding(value, 0.9, -1)
    return None


def scratchpad(obs: PageObservation):
    """The scratchpad textbox of the page, if any."""
    for el in obs.elements:
        if el.role == "textbox" and el.name.strip().lower() == "scratchpad":
            return el
    return None


def write_answer(obs: PageObservation, answer: str) -> Action:
    """Type the answer into the scratchpad once, then stop with it."""
    pad = scratchpad(obs)
    if pad is not None and not pad.covered and answer not in str(pad.state.get("value", "")):
        return Type(pad.index, answer)
    return Stop(answer)
