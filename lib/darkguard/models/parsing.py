"""Parsers of model outputs that never raise.

Evaluator answers follow the public reference format `<judge>L</judge> <conf>c</conf>`, so RUC
users' checkpoints stay compatible. Agent answers carry a click in one of the forms real models
use; coordinates are converted to pixels according to the model's coordinate convention.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

CONF_EPS = 1e-4
_JUDGE = re.compile(r"<\s*judge\s*>\s*([^<]*?)\s*<\s*/\s*judge\s*>", re.IGNORECASE | re.DOTALL)
_CONF = re.compile(r"<\s*conf\s*>\s*([^<]*?)\s*<\s*/\s*conf\s*>", re.IGNORECASE | re.DOTALL)
_INT = re.compile(r"^[+-]?\d+$")
_NUM = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)"


@dataclass(frozen=True)
class Judgement:
    label: int  # -1, 0 or 1
    confidence: float  # clipped into (0, 1)


@dataclass(frozen=True)
class OutOfDomain:
    """A well-formed answer whose label lies outside {-1, 0, 1} (reward -1, paper B.4)."""

    value: int
    confidence: float


@dataclass(frozen=True)
class ParseFailure:
    """No usable judgement or action (reward -10 for the evaluator, paper B.4)."""

    reason: str


EvaluatorOutput = Judgement | OutOfDomain | ParseFailure


def clip_confidence(value: float) -> float:
    return min(1.0 - CONF_EPS, max(CONF_EPS, value))


def parse_judgement(text: object) -> EvaluatorOutput:
    """Parse `<judge>L</judge> <conf>c</conf>`; the last tag of each kind counts.

    Whitespace, letter case and reasoning text around the tags are tolerated.
    """
    if not isinstance(text, str):
        return ParseFailure(f"not text: {type(text).__name__}")
    judges, confs = _JUDGE.findall(text), _CONF.findall(text)
    if not judges:
        return ParseFailure("no <judge> tag")
    if not confs:
        return ParseFailure("no <conf> tag")
    raw_label, raw_conf = judges[-1].strip(), confs[-1].strip()
    if not _INT.match(raw_label):
        return ParseFailure(f"label is not an integer: {raw_label[:40]!r}")
    try:
        conf = float(raw_conf)
    except ValueError:
        return ParseFailure(f"confidence is not a number: {raw_conf[:40]!r}")
    if not math.isfinite(conf):
        return ParseFailure(f"confidence is not finite: {raw_conf[:40]!r}")
    label = int(raw_label)
    if label not in (-1, 0, 1):
        return OutOfDomain(label, clip_confidence(conf))
    return Judgement(label, clip_confidence(conf))


def format_judgement(label: int, confidence: float) -> str:
    """The canonical answer text (used to build warm-up targets)."""
    return f"<judge>{label}</judge> <conf>{confidence:.2f}</conf>"


Convention = Literal["pixels", "normalized", "relative1000"]
CONVENTIONS = ("pixels", "normalized", "relative1000")


@dataclass(frozen=True)
class Click:
    x: float
    y: float


@dataclass(frozen=True)
class FinalAnswer:
    text: str


AgentOutput = Click | FinalAnswer | ParseFailure

_FINAL = re.compile(
    r"<\s*final_answer\s*>(.*?)(?:<\s*/\s*final_answer\s*>|$)", re.IGNORECASE | re.DOTALL
)
_CLICK_PATTERNS = [
    # click(x=10, y=20) / click(x: 10, y: 20)
    re.compile(rf"click\s*\(\s*x\s*[=:]\s*({_NUM})\s*,\s*y\s*[=:]\s*({_NUM})\s*\)", re.I),
    # click(start_box='(10,20)') (UI-TARS) / click(point='<point>10 20</point>')
    re.compile(
        rf"click\s*\(\s*\w+\s*=\s*['\"]?\s*[(\[<]?(?:point>)?\s*({_NUM})[\s,]+({_NUM})", re.I
    ),
    # click(10, 20) / click([10, 20]) / click((10, 20))
    re.compile(rf"click\s*\(\s*[\[(]?\s*({_NUM})\s*,\s*({_NUM})\s*[\])]?\s*\)", re.I),
]


def to_pixels(x: float, y: float, width: int, height: int, convention: Convention) -> Click:
    """Convert model coordinates to pixels of a width x height screenshot."""
    if convention == "pixels":
        return Click(x, y)
    if convention == "normalized":
        return Click(x * width, y * height)
    if convention == "relative1000":
        return Click(x / 1000.0 * width, y / 1000.0 * height)
    raise ValueError(f"unknown coordinate convention {convention!r} (expected {CONVENTIONS})")


def from_pixels(x: float, y: float, width: int, height: int, convention: Convention) -> tuple:
    """Pixel coordinates in a model's convention (the inverse of `to_pixels`), rounded."""
    if convention == "pixels":
        return round(x), round(y)
    if convention == "normalized":
        return round(x / width, 4), round(y / height, 4)
    if convention == "relative1000":
        return round(1000 * x / width), round(1000 * y / height)
    raise ValueError(f"unknown coordinate convention {convention!r} (expected {CONVENTIONS})")


def format_click(x: float, y: float, width: int, height: int, convention: Convention) -> str:
    """The agent action for a pixel click, in the model's coordinate convention."""
    cx, cy = from_pixels(x, y, width, height, convention)
    return f"<action>click({cx}, {cy})</action>"


def parse_action(text: object, width: int, height: int, convention: Convention) -> AgentOutput:
    """Parse an agent answer into a pixel click, a final answer, or a parse failure.

    The last click in the text counts (reasoning may mention earlier candidates).
    """
    if not isinstance(text, str):
        return ParseFailure(f"not text: {type(text).__name__}")
    final = _FINAL.search(text)
    clicks = []
    for pattern in _CLICK_PATTERNS:
        clicks += [(m.start(), m.group(1), m.group(2)) for m in pattern.finditer(text)]
    if final and (not clicks or final.start() > max(c[0] for c in clicks)):
        return FinalAnswer(final.group(1).strip())
    if not clicks:
        return ParseFailure("no click(x, y) action")
    _, raw_x, raw_y = max(clicks, key=lambda c: c[0])
    x, y = float(raw_x), float(raw_y)
    if not (math.isfinite(x) and math.isfinite(y)):
        return ParseFailure("non-finite coordinates")
    click = to_pixels(x, y, width, height, convention)
    if not (0 <= click.x <= width and 0 <= click.y <= height):
        return ParseFailure(
            f"click ({click.x:.1f}, {click.y:.1f}) outside the {width}x{height} screenshot"
        )
    return click


def predicted_label(output: EvaluatorOutput) -> int | None:
    """The judged label L̂ of a parsed judgement (None: parse failure or out of domain)."""
    return output.label if isinstance(output, Judgement) else None
