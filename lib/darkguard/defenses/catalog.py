"""The arena defenses by name, as `darkguard arena run --defense NAME` and the stages know them.

Factories are picklable (classes and partials), so episodes can run in worker processes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from darkguard.defenses.arena import ArenaDefense, NoDefense
from darkguard.defenses.veer.defense import Veer

DEFENSES: dict[str, Callable[[], ArenaDefense]] = {
    "none": NoDefense,
    "veer": Veer,
    # the paper's ablations (Table 18, 19)
    "veer-wo-si": functools.partial(Veer, "wo_si"),
    "veer-reactive": functools.partial(Veer, "reactive"),
    "veer-wo-te": functools.partial(Veer, "wo_te"),
    "veer-one-step": functools.partial(Veer, "one_step"),
}


def defense_factory(name: str) -> Callable[[], ArenaDefense]:
    """The factory of the defense called `name`; a clear error naming the known ones."""
    try:
        return DEFENSES[name]
    except KeyError:
        raise ValueError(f"unknown defense {name!r}; known: {', '.join(DEFENSES)}") from None
