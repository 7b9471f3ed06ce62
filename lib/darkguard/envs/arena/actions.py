"""The actions of an arena episode: click, type, select, scroll, goto, back, stop(answer).

Elements are named by their `index` in the current observation; that is all an agent or a defense
can point at (no selectors, no ids).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Click:
    index: int


@dataclass(frozen=True)
class Type:
    index: int
    text: str
    enter: bool = False  # press Enter after typing (submits a search box)


@dataclass(frozen=True)
class Select:
    index: int
    option: str  # the visible text of the option


@dataclass(frozen=True)
class Scroll:
    dy: int = 600  # pixels; negative scrolls up


@dataclass(frozen=True)
class Goto:
    url: str  # absolute, or a path on the current origin


@dataclass(frozen=True)
class Back:
    pass


@dataclass(frozen=True)
class Stop:
    answer: str = ""  # the final answer (also read from the scratchpad)


Action = Click | Type | Select | Scroll | Goto | Back | Stop


def describe(action: Action) -> dict:
    """The action as a JSON-able record."""
    return {"action": type(action).__name__.lower(), **action.__dict__}
