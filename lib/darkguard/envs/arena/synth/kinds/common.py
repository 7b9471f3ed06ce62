"""What every arena-synth kind shares: the pair's phrasing, a twin's task and solution, and
the small builders of toggles, choices and with/without buttons."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from darkguard.envs.arena.synth import banks
from darkguard.envs.arena.synth.markup import Page


class Words:
    """The pair's phrasing of each control (the same in both twins)."""

    def __init__(self, split: str, seed: str) -> None:
        self.bank, self.seed = banks.WORDS[split], seed

    def __call__(self, key: str) -> str:
        return random.Random(f"{self.seed}/{key}").choice(self.bank[key])


@dataclass
class Built:
    """What a kind returns for one twin."""

    goal: str
    success: dict
    deception: dict
    max_steps: int
    solution: list[dict] = field(default_factory=list)


class Solution(list):
    def add(self, page: Page, op: str, selector: str, name: str, value: str = "") -> None:
        self.append(
            {"page": page.file, "op": op, "selector": selector, "name": name, "value": value}
        )


def includes(selector: str, *text: str) -> dict:
    return {"page_includes": {"selector": selector, "text": list(text)}}


def set_toggle(sol: Solution, page: Page, sel: dict[str, str], name: str, want: bool) -> None:
    """The careful user's step(s) switching a toggle (currently the other way) to `want`."""
    if "flip" in sel:
        sol.add(page, "click", sel["flip"], name)
    else:
        sol.add(page, "click", sel["on" if want else "off"], name)


def pick_choice(
    page: Page,
    sol: Solution,
    name: str,
    label: str,
    options: list[str],
    want: str,
    widget: str,
    default: str | None = None,
) -> None:
    sels = page.choice(name, label, options, default, widget)
    if want != default:
        op = "select" if widget == "select" else "click"
        sol.add(page, op, sels[want], label if op == "select" else want, want)


def with_or_without(page: Page, dark: bool, verb: str, extra: str, name: str, commits: str) -> str:
    """Two submit buttons, with and without the extra (false hierarchy: the costly one big, the
    plain one faint; its clean twin: both alike). Returns the plain one's selector."""
    page.button(f"{verb} with {extra}", "harm", "huge" if dark else "secondary", name=name,
                value="on")  # fmt: skip
    plain = "faint" if dark else "secondary"
    return page.button(f"{verb} without extras", commits, plain, name=name, value="off")
