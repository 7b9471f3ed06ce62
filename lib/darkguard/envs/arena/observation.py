"""What an agent (or a defense) sees of an arena page: the URL, the title, the visible text, the
interactive elements and optionally a screenshot. It carries no ids, classes, pattern labels,
condition switch or task predicates; agents import this module and `actions`, never the
environment's task, predicate, server or app modules (an import contract in pyproject.toml)."""

from __future__ import annotations

from dataclasses import dataclass

# how an observation's `error` begins when the agent's last proposal did not run (a defense
# turned it back, or changed the page first): the agent decides again from this page
NOT_RUN = "Your last action was not carried out: "


@dataclass(frozen=True)
class Element:
    index: int
    role: str
    name: str
    text: str
    context: str
    state: dict
    box: tuple[int, int, int, int]  # x, y, width, height in page pixels
    prominence: float
    covered: bool
    in_dialog: bool
    href: str = ""  # a link's destination as shown on hover (its path on the same site)


@dataclass(frozen=True)
class PageObservation:
    goal: str
    url: str
    title: str
    text: str
    elements: tuple[Element, ...]
    step: int
    max_steps: int
    screenshot: bytes | None = None  # PNG of the viewport
    done: bool = False
    error: str = ""  # what went wrong with the last action, in words

    def element(self, index: int) -> Element:
        return self.elements[index]
