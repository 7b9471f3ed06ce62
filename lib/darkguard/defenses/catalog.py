"""The arena defenses by name, as `darkguard arena run --defense NAME` and the stages know them.

`defense_factory(name, options)` gives a picklable factory (a partial of a module-level
function), so episodes can run in worker processes; each worker builds its own defense.
`CODE[name]` lists the package paths whose code decides the defense's behaviour (a stage's
journal fingerprint).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from darkguard.defenses.arena import ArenaDefense

# name -> "module:Class" and the keyword arguments it is built with
CLASSES: dict[str, tuple[str, dict[str, Any]]] = {
    "none": ("darkguard.defenses.arena:NoDefense", {}),
    "veer": ("darkguard.defenses.veer.defense:Veer", {"variant": "full"}),
    # the paper's ablations (Tables 18, 19)
    "veer-wo-si": ("darkguard.defenses.veer.defense:Veer", {"variant": "wo_si"}),
    "veer-reactive": ("darkguard.defenses.veer.defense:Veer", {"variant": "reactive"}),
    "veer-wo-te": ("darkguard.defenses.veer.defense:Veer", {"variant": "wo_te"}),
    "veer-one-step": ("darkguard.defenses.veer.defense:Veer", {"variant": "one_step"}),
    # the six baselines (Veer paper App. D.4)
    "icp": ("darkguard.defenses.baselines.icp:Icp", {}),
    "guardrail": ("darkguard.defenses.baselines.guardrail:Guardrail", {}),
    "dude-s2": ("darkguard.defenses.baselines.dude_s2:DudeS2", {}),
    "spotlighting": ("darkguard.defenses.baselines.spotlighting:Spotlighting", {}),
    "vigil": ("darkguard.defenses.baselines.vigil:Vigil", {}),
    "safepred": ("darkguard.defenses.baselines.safepred:SafePred", {}),
}
DEFENSES = tuple(CLASSES)
# Veer's offline reasoning (the `llm` reasoner's modules count only when it is the reasoner)
_VEER = tuple(
    f"defenses/veer/{m}.py"
    for m in ("__init__", "assessment", "authorization", "commitments", "contracts", "defense",
              "intervention", "prices", "reasoner", "state")
)  # fmt: skip
VEER_LLM = tuple(f"defenses/veer/{m}.py" for m in ("llm", "llm_parse", "llm_prompts"))
# the baselines whose judgement follows Veer's reasoner spec (`offline` or a model spec), and
# the code of their model-backed judges (counts only when a model spec is given)
JUDGED = ("guardrail", "vigil", "safepred")
JUDGE_LLM = {
    name: (f"defenses/baselines/{name}_llm.py", "defenses/baselines/llm_judge.py", *VEER_LLM)
    for name in JUDGED
}


def model_code(name: str, reasoner: str | dict[str, Any]) -> tuple[str, ...]:
    """The model-backed code a defense runs beyond `CODE[name]` under `reasoner` (none offline)."""
    if reasoner == "offline":
        return ()
    if name.startswith("veer"):
        return VEER_LLM
    return JUDGE_LLM.get(name, ())


CODE: dict[str, tuple[str, ...]] = {
    "none": (),
    **{name: _VEER for name in CLASSES if name.startswith("veer")},
    "icp": ("defenses/baselines/icp.py",),
    "guardrail": ("defenses/baselines/guardrail.py", *_VEER),
    "dude-s2": ("defenses/baselines/dude_s2.py", "defenses/dude"),
    "spotlighting": ("defenses/baselines/spotlighting.py",),
    "vigil": ("defenses/baselines/vigil.py", *_VEER),
    "safepred": ("defenses/baselines/safepred.py", *_VEER),
}
SCREENSHOTS = frozenset({"dude-s2"})  # defenses that look at the page's pixels


@dataclass(frozen=True)
class DefenseOptions:
    """What a defense is built with beyond its name: Veer's reasoner (`offline` or a model spec),
    which also picks the judge of Guardrail, VIGIL and SafePred (Veer paper D.4: their auxiliary
    reasoning follows the method, on the same model), and DUDE-S2's evaluator files (keyword
    arguments of `DudeS2`)."""

    reasoner: str | dict[str, Any] = "offline"
    dude: dict[str, Any] = field(default_factory=dict)

    def for_defense(self, name: str) -> dict[str, Any]:
        if name.startswith("veer") and self.reasoner != "offline":
            return {"reasoner_spec": self.reasoner}
        if name in JUDGED and self.reasoner != "offline":
            return {"judge": self.reasoner}
        if name == "dude-s2":
            return dict(self.dude)
        return {}

    def describe(self, name: str) -> str:
        """The options that change the defense's decisions (a journal's fingerprint)."""
        return repr(sorted(self.for_defense(name).items()))


def _build(path: str, kwargs: dict[str, Any]) -> ArenaDefense:
    module, cls = path.split(":")
    kwargs = dict(kwargs)
    spec = kwargs.pop("reasoner_spec", None)
    if spec is not None:
        from darkguard.defenses.veer.reasoner import reasoner_from

        kwargs["reasoner"] = reasoner_from(spec)
    return getattr(importlib.import_module(module), cls)(**kwargs)


def defense_factory(name: str, options: DefenseOptions | None = None) -> Callable[[], ArenaDefense]:
    """The factory of the defense called `name`; a clear error naming the known ones."""
    try:
        path, kwargs = CLASSES[name]
    except KeyError:
        raise ValueError(f"unknown defense {name!r}; known: {', '.join(CLASSES)}") from None
    extra = (options or DefenseOptions()).for_defense(name)
    return functools.partial(_build, path, {**kwargs, **extra})
