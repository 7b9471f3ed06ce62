"""Defenses built by name (`darkguard.registry`), one or a stack (`dude-s2+veer`).

`defense_factory(name, options)` gives a picklable factory (a partial of a module-level function),
so episodes can run in worker processes; each worker builds its own defense. `defense_code(name)`
lists the files whose code decides the defense's behaviour (its factory modules' import closure:
a journal's fingerprint).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from darkguard import registry
from darkguard.defenses import Defense, Stack
from darkguard.stage_deps import PACKAGE, closure


@dataclass(frozen=True)
class DefenseOptions:
    """What a defense is built with beyond its name: Veer's reasoner (`offline` or a model spec),
    which also picks the judge of Guardrail, VIGIL and SafePred (Veer paper D.4: their auxiliary
    reasoning follows the method, on the same model), and DUDE-S2's evaluator files (keyword
    arguments of `dude.built.dude_s2`)."""

    reasoner: str | dict[str, Any] = "offline"
    dude: dict[str, Any] = field(default_factory=dict)

    def for_entry(self, entry: registry.Entry) -> dict[str, Any]:
        if entry.reasoner_kwarg and self.reasoner != "offline":
            return {entry.reasoner_kwarg: self.reasoner}
        if entry.options == "dude":
            return dict(self.dude)
        return {}

    def describe(self, name: str) -> str:
        """The options that change the defenses' decisions (a journal's fingerprint)."""
        chosen = [sorted(self.for_entry(e).items()) for e in registry.parts(name)]
        return repr(chosen[0] if len(chosen) == 1 else chosen)


def _build_one(path: str, kwargs: dict[str, Any]) -> Defense:
    module, name = path.split(":")
    kwargs = dict(kwargs)
    spec = kwargs.pop("reasoner_spec", None)
    if spec is not None:
        from darkguard.defenses.veer.reasoner import reasoner_from

        kwargs["reasoner"] = reasoner_from(spec)
    return getattr(importlib.import_module(module), name)(**kwargs)


def _build(parts: list[tuple[str, dict[str, Any]]]) -> Defense:
    defenses = [_build_one(path, kwargs) for path, kwargs in parts]
    return defenses[0] if len(defenses) == 1 else Stack(defenses)


def defense_factory(name: str, options: DefenseOptions | None = None) -> Callable[[], Defense]:
    """The factory of the defense (or stack) called `name`; a clear error naming the known ones."""
    options = options or DefenseOptions()
    parts = [(e.factory, {**e.kwargs, **options.for_entry(e)}) for e in registry.parts(name)]
    return functools.partial(_build, parts)


def defense_code(name: str) -> tuple[str, ...]:
    """The files (relative to the package, `lib/darkguard`) whose code decides the defenses of
    `name`: what their factory modules import, at any depth."""
    found = closure(registry.modules(name))
    return tuple(sorted(str(f.relative_to(PACKAGE)) for f in found))
