"""The defenses by name: the one list that `--defense`, params.yaml's validation, the reports'
labels and the fingerprints of journals read.

Each entry names how the defense is built (`factory`, "module:callable", imported where it runs so
that every worker process builds its own), the keyword arguments it is built with, the title the
papers' tables give it, and what else it needs. A variant is a defense with other arguments
(`variant_of`: Veer's ablations, Veer paper Tables 18-19). A stack of defenses is their names
joined by `+` (`dude-s2+veer`: DUDE-S2 reviews each action first, then Veer; `defenses.Stack`).
Adding a defense: its module, and one line here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

STACK = "+"


@dataclass(frozen=True)
class Entry:
    name: str  # as --defense, params.yaml and journals say it
    title: str  # as the papers' tables say it
    factory: str  # "module:callable" that builds it
    kwargs: dict[str, Any] = field(default_factory=dict)
    variant_of: str | None = None  # a variant: the defense it varies (other kwargs)
    screenshots: bool = False  # looks at the page's pixels (episodes run with screenshots)
    # the keyword that takes the reasoner's model spec when one is given (Veer paper D.4: the
    # baselines' auxiliary reasoning follows the method, on the same model); None: none
    reasoner_kwarg: str | None = None
    options: str | None = None  # `dude`: built with DUDE-S2's files (veer_eval.dude_experience)


_VEER = "darkguard.defenses.veer.defense:Veer"

ENTRIES: tuple[Entry, ...] = (
    Entry("none", "No-Defense", "darkguard.defenses:NoDefense"),
    # the six baselines (Veer paper App. D.4)
    Entry("icp", "ICP", "darkguard.defenses.baselines.icp:Icp"),
    Entry("guardrail", "Guardrail", "darkguard.defenses.baselines.guardrail:Guardrail",
          reasoner_kwarg="judge"),
    Entry("dude-s2", "DUDE-S2", "darkguard.defenses.dude.built:dude_s2", screenshots=True,
          options="dude"),
    Entry("spotlighting", "Spotlighting",
          "darkguard.defenses.baselines.spotlighting:Spotlighting"),
    Entry("vigil", "VIGIL", "darkguard.defenses.baselines.vigil:Vigil", reasoner_kwarg="judge"),
    Entry("safepred", "SafePred", "darkguard.defenses.baselines.safepred:SafePred",
          reasoner_kwarg="judge"),
    Entry("veer", "Veer", _VEER, {"variant": "full"}, reasoner_kwarg="reasoner_spec"),
    # Veer's ablations (Tables 18, 19): Veer with another `variant`
    Entry("veer-wo-si", "w/o State Intervention", _VEER, {"variant": "wo_si"}, "veer",
          reasoner_kwarg="reasoner_spec"),
    Entry("veer-reactive", "Reactive Intervention", _VEER, {"variant": "reactive"}, "veer",
          reasoner_kwarg="reasoner_spec"),
    Entry("veer-wo-te", "w/o Temporal Evidence", _VEER, {"variant": "wo_te"}, "veer",
          reasoner_kwarg="reasoner_spec"),
    Entry("veer-one-step", "One-Step Intervention", _VEER, {"variant": "one_step"}, "veer",
          reasoner_kwarg="reasoner_spec"),
)  # fmt: skip
DEFENSES: dict[str, Entry] = {e.name: e for e in ENTRIES}
METHODS = tuple(e.name for e in ENTRIES if e.variant_of is None)  # veer_eval.methods
VARIANTS = ("veer", *(e.name for e in ENTRIES if e.variant_of == "veer"))  # veer_ablations
FULL_VEER_TITLE = "Full Veer"  # Veer itself among its ablations (Tables 18-19)


def parts(name: str) -> list[Entry]:
    """The entries of a defense name or a stack (`a+b`); a clear error naming the known ones."""
    entries = []
    for part in name.split(STACK):
        if part not in DEFENSES:
            known = ", ".join(DEFENSES)
            raise ValueError(f"unknown defense {part!r}; known: {known} (stack them with '+')")
        entries.append(DEFENSES[part])
    if len(entries) > 1 and any(e.name == "none" for e in entries):
        raise ValueError(f"{name!r}: 'none' cannot be stacked")
    return entries


def check_names(names: list[str]) -> list[str]:
    """params.yaml's defense names (stacks allowed), or an error naming the unknown one."""
    for name in names:
        parts(name)
    return names


def title(name: str) -> str:
    """How tables name a defense or a stack (`DUDE-S2 + Veer`)."""
    return " + ".join(e.title for e in parts(name))


def screenshots(name: str) -> bool:
    """Whether any defense of `name` looks at the page's pixels."""
    return any(e.screenshots for e in parts(name))


def modules(name: str) -> tuple[str, ...]:
    """The modules that build the defenses of `name` (a journal's code fingerprint follows their
    imports)."""
    return tuple(e.factory.split(":")[0] for e in parts(name))
