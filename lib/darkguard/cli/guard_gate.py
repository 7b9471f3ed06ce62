"""The gate `darkguard evaluate` puts in front of the agent, and a line saying which.

By default it is the guard's own, as the `guard_eval` stage runs it: the profile's first
`guard_eval.evaluators` model with the Stage-1 adapter when Stage 1 tuned that model, the Stage-2
experience in its guidance block (`guard_eval.experience`), and, with `guard_eval.gate:
confidence`, the P(L = 1) threshold the stage tuned on the valid split (as published in
`reports/metrics/guard.json`, so that it matches the guard's tables). `--evaluator` names another
model, used bare (the paper's gate, no adapter, no experience) unless `--adapter`,
`--experience` or `--threshold` add to it; each of those takes `none` to leave its part out.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

from darkguard import paths
from darkguard.config import Config
from darkguard.io import InputError
from darkguard.models.spec import ModelSpec

NONE = "none"
GUARD_METRICS = Path("reports") / "metrics" / "guard.json"


@dataclass(frozen=True)
class ChosenGate:
    """The evaluator spec (adapter applied), its experience and threshold, and where each came
    from."""

    spec: ModelSpec
    experience: str | None
    threshold: float | None
    says: str  # one line for the user


def published_threshold(name: str, metrics: Path | None = None) -> float:
    """The threshold `guard_eval` tuned on the valid split for evaluator `name`."""
    file = metrics or paths.ROOT / GUARD_METRICS
    if not file.is_file():
        raise InputError(
            f"{file}: no guard metrics (run the guard_eval stage, or pass --threshold)"
        )
    try:
        return float(json.loads(file.read_text())["thresholds"][name]["threshold"])
    except (KeyError, TypeError, ValueError) as err:
        raise InputError(
            f"{file}: thresholds.{name}.threshold: no tuned threshold for {name} (run the "
            "guard_eval stage with it, or pass --threshold)"
        ) from err


def _adapter(spec: ModelSpec, value: str | None, guards: bool) -> tuple[ModelSpec, str]:
    from darkguard.defenses.dude.evaluator import tuned_spec
    from darkguard.stages.guard_eval import stage1_tuned

    if value == NONE or (value is None and not guards):
        return spec, NONE
    if value is None:
        tuned = stage1_tuned(spec)
        return tuned, paths.display(
            Path(tuned.adapter)
        ) if tuned.adapter else "none (Stage 1 not run)"
    folder = Path(value)
    if not (folder / "adapter_config.json").is_file():
        raise InputError(f"--adapter {folder}: not a LoRA adapter folder")
    if spec.backend != "hf":
        raise InputError(f"--adapter: evaluator {spec.name} is not a local (hf) model")
    return tuned_spec(spec, folder.resolve()), paths.display(folder.resolve())


def _experience(value: str | None, cfg: Config, guards: bool) -> tuple[str | None, str]:
    from darkguard.defenses.dude.built import read_experience

    if value == NONE or (value is None and not guards):
        return None, NONE
    source = value if value is not None else cfg.guard_eval.experience
    if source is None:
        return None, "none (guard_eval.experience is null)"
    return read_experience(source), str(source)


def _threshold(
    value: str | None, name: str, cfg: Config, guards: bool, metrics: Path | None
) -> tuple[float | None, str]:
    if value == NONE or (value is None and not (guards and cfg.guard_eval.gate == "confidence")):
        return None, "none (the paper's gate: a click executes when judged 1)"
    if value is not None:
        try:
            given = float(value)
        except ValueError:
            given = -1.0
        if not 0.0 <= given <= 1.0:
            raise InputError(f"--threshold {value!r}: a number in [0, 1], or none")
        return given, f"{given:g} (given)"
    found = published_threshold(name, metrics)
    return found, f"{found:g} (tuned on the valid split by guard_eval)"


def choose_gate(args: argparse.Namespace, cfg: Config, metrics: Path | None = None) -> ChosenGate:
    """The gate of `args` (`--evaluator`, `--adapter`, `--experience`, `--threshold`), the
    guard's own where they are not given."""
    from darkguard.models.registry import resolve_spec

    guards = args.evaluator is None
    name = cfg.guard_eval.evaluators[0] if guards else args.evaluator
    bare = resolve_spec(name, "evaluator", cfg)
    spec, adapter = _adapter(bare, args.adapter, guards)
    experience, experience_from = _experience(args.experience, cfg, guards)
    threshold, threshold_from = _threshold(args.threshold, bare.name, cfg, guards, metrics)
    whose = "the guard's own evaluator" if guards else "--evaluator"
    says = (
        f"gate: {spec.name} ({whose}), adapter {adapter}, experience {experience_from}, "
        f"threshold {threshold_from}"
    )
    return ChosenGate(spec, experience, threshold, says)
