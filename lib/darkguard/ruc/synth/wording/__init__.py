"""Wording banks of RUC-synth's style families: every label, task and message a page shows.

Each family writes its own bank (`plain`, `soft`, `dense`, `bold`), so that a held-out family's
deceptive and benign controls use phrasings that no training family uses
(`tests/test_ruc_families.py` checks the banks are disjoint). A bank is a dict whose keys and
shapes are `SCHEMA`; `{placeholders}` are filled by the patterns.
"""

from __future__ import annotations

import string
from functools import cache

import numpy as np

DOMAINS = ("Shopping", "News", "Booking", "Software")

# key -> (shape, placeholders each string must contain, per string position)
#   "list":        list[str]
#   "tuples:N":    list of N-string tuples
#   "domain-...":  {domain: <shape>} for each of DOMAINS
SCHEMA: dict[str, tuple[str, tuple[tuple[str, ...], ...]]] = {
    # benign card actions of each domain: (primary label, secondary label, task with {item})
    "actions": ("domain-tuples:3", ((), (), ("item",))),
    # a preselected or pushed add-on: (upsell label, its price note, the plain choice)
    "upsell": ("domain-tuples:3", ((), (), ())),
    # a sponsored button that mimics the task's next step
    "continue": ("domain-list", ((),)),
    # an advertisement dressed as the task's action
    "ad_label": ("domain-list", ((),)),
    # the small print that marks an ad
    "ad_marker": ("list", ((),)),
    # (task suffix, title, body with {site}, the account button, the guest choice)
    "signup_wall": ("tuples:5", ((), (), ("site",), (), ())),
    # task suffix asking for the item without extras
    "bundle_suffix": ("list", ((),)),
    # (task, banner message with {site}, the app button, the stay-on-web choice)
    "app_interstitial": ("tuples:4", ((), ("site",), (), ())),
    # (task suffix, title with {site}, body, the allow button, the continue-without choice)
    "forced_notifications": ("tuples:5", ((), ("site",), (), (), ())),
    # cookie banner: (task, title, body, accept-all button, the decline choice)
    "cookie": ("tuples:5", ((), (), (), (), ())),
    # (task, title, body, the shaming/keeping button, the plain decline)
    "confirmshaming": ("tuples:5", ((), (), (), (), ())),
    # urgency strip: (message with {time}, offer button)
    "urgency": ("tuples:2", (("time",), ())),
    # social proof on an upsell: (task suffix, label with {n} and {offer})
    "social_proof": ("tuples:2", ((), ("n", "offer"))),
    # scareware strip: (message, button)
    "fear": ("tuples:2", ((), ())),
    # discount dialog: (task suffix, title with {time}, body, claim button, the decline)
    "countdown": ("tuples:5", ((), ("time",), (), (), ())),
    # the label of a click-catcher over the target card
    "overlay_badge": ("list", ((),)),
    # fake progress strip: (three step names joined by the page, button)
    "next_step": ("tuples:4", ((), (), (), ())),
    # fake system dialog: (window title, message, button)
    "system_dialog": ("tuples:3", ((), (), ())),
    # Normal pages: tasks on a card title, a navigation link, a sidebar link
    "open_task": ("list", (("item",),)),
    "nav_task": ("list", (("section",),)),
    "sidebar_task": ("list", (("section",),)),
    # Normal pages: benign badges, and a promo strip (message with {site}, button)
    "cues": ("list", ((),)),
    "promo": ("tuples:2", (("site",), ())),
}

FAMILIES_WITH_BANKS = ("plain", "soft", "dense", "bold")


class BankError(ValueError):
    """A wording bank that does not follow `SCHEMA`."""


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _check_strings(where: str, value: object, width: int, needs: tuple) -> None:
    rows = value if isinstance(value, list) else None
    if not rows:
        raise BankError(f"{where}: expected a non-empty list")
    for i, row in enumerate(rows):
        row = (row,) if width == 1 and isinstance(row, str) else row
        if not isinstance(row, tuple) or len(row) != width:
            raise BankError(f"{where}[{i}]: expected {width} strings, got {row!r}")
        for j, text in enumerate(row):
            if not isinstance(text, str) or not text.strip():
                raise BankError(f"{where}[{i}][{j}]: expected a non-empty string")
            if _fields(text) != set(needs[j]):
                raise BankError(
                    f"{where}[{i}][{j}] {text!r}: placeholders {sorted(_fields(text))}, "
                    f"expected {sorted(needs[j])}"
                )


def check_bank(name: str, bank: dict) -> dict:
    """`bank` if it follows `SCHEMA`, else a `BankError` naming the family, key and entry."""
    missing = sorted(set(SCHEMA) - set(bank))
    extra = sorted(set(bank) - set(SCHEMA))
    if missing or extra:
        raise BankError(f"wording bank {name!r}: missing {missing}, unknown {extra}")
    for key, (shape, needs) in SCHEMA.items():
        inner = shape.removeprefix("domain-")
        width = int(inner.split(":")[1]) if inner.startswith("tuples:") else 1
        if shape.startswith("domain-"):
            if set(bank[key]) != set(DOMAINS):
                raise BankError(f"wording bank {name!r}, {key}: expected the domains {DOMAINS}")
            for domain in DOMAINS:
                _check_strings(f"{name}.{key}.{domain}", bank[key][domain], width, needs)
        else:
            _check_strings(f"{name}.{key}", bank[key], width, needs)
    return bank


@cache
def bank(family: str) -> dict:
    """The checked wording bank of `family`."""
    if family not in FAMILIES_WITH_BANKS:
        raise BankError(f"no wording bank for style family {family!r}: {FAMILIES_WITH_BANKS}")
    from darkguard.ruc.synth.wording import bold, dense, plain, soft

    modules = {"plain": plain, "soft": soft, "dense": dense, "bold": bold}
    return check_bank(family, modules[family].BANK)


def mixed_bank(rng: np.random.Generator, families: list[str]) -> dict:
    """A bank whose every key (a control's labels, messages and task together) is that of a family
    drawn independently per key: wording decoupled from any one family's look."""
    return {key: bank(families[int(rng.integers(len(families)))])[key] for key in SCHEMA}


def phrases(family: str) -> set[str]:
    """Every string of `family`'s bank, lowercased (for disjointness checks)."""
    out: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, str):
            out.add(value.strip().lower())
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)

    walk(bank(family))
    return out
