"""DUDE-S2 (Veer paper, App. D.4; DUDE paper 3.3-3.4): DUDE's gate with the Stage-2 experience in
the evaluator's guidance block and in the agent's context, on the project's built evaluator, found
as the guard finds it (`stages.guard_eval`): the model folder, the Stage-1 adapter when Stage 1
tuned that model, the Stage-2 experience file. The evaluator loads at the first episode, once per
process, so `dude_s2` (or a partial of it) is a picklable factory for worker processes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from darkguard import paths
from darkguard.defenses.dude.evaluator import Evaluator, evaluator_aids
from darkguard.defenses.dude.gate import DudeGate
from darkguard.io import InputError
from darkguard.models.identity import weights_hash
from darkguard.models.spec import ModelSpec

MODEL = "data/models/evaluator-large"  # params.yaml: models.tiny.evaluator_large
ADAPTER = "data/stage1/adapter"  # the stage1_grpo stage's LoRA adapter
EXPERIENCE = "data/stage2/experience.txt"  # params.yaml: guard_eval.experience
BATCH_SIZE, MAX_NEW_TOKENS = 16, 24  # params.yaml: models.tiny.evaluator_large


def evaluator_spec(model: str | Path = MODEL, adapter: str | Path | None = ADAPTER) -> ModelSpec:
    """The evaluator's model: the folder `model` (an error names it when absent), with the LoRA
    `adapter` (None: none). An adapter whose Stage-1 record (`trained_with.json` beside it) names
    other weights than `model`'s is refused."""
    folder = paths.resolve(model)
    if not (folder / "config.json").is_file():
        raise InputError(
            f"{folder / 'config.json'}: no built evaluator for DUDE-S2 (run the build_models "
            "stage, or pass the model folder)"
        )
    name = "evaluator_large" if folder == paths.resolve(MODEL) else folder.name
    spec = ModelSpec(name, "hf", str(folder), batch_size=BATCH_SIZE, max_new_tokens=MAX_NEW_TOKENS)
    if adapter is None:
        return spec
    tuned = paths.resolve(adapter)
    if not (tuned / "adapter_config.json").is_file():
        raise InputError(
            f"{tuned / 'adapter_config.json'}: no Stage-1 adapter (run the stage1_grpo stage, "
            "or pass adapter=None)"
        )
    record = tuned.parent / "trained_with.json"
    if record.is_file():
        trained_on = json.loads(record.read_text())["evaluator"]["path"]
        if trained_on != weights_hash(folder):
            raise InputError(
                f"{record}: the adapter {tuned} was trained on other weights than {folder}"
            )
    return ModelSpec(
        f"{name}+stage1",
        "hf",
        str(folder),
        adapter=str(tuned),
        batch_size=BATCH_SIZE,
        max_new_tokens=MAX_NEW_TOKENS,
    )


def read_experience(path: str | Path | None) -> str | None:
    """The Stage-2 experience text, stripped (None: no path, or an empty file)."""
    if path is None:
        return None
    file = paths.resolve(path)
    if not file.is_file():
        raise InputError(f"{file}: no Stage-2 experience (run the stage2_summarize stage)")
    return file.read_text(encoding="utf-8").strip() or None


@lru_cache(maxsize=4)
def load_evaluator(spec: ModelSpec) -> Evaluator:
    """The evaluator of `spec` with the aids it was built with, loaded once per process."""
    from darkguard.models.backends import load_backend

    return Evaluator(load_backend(spec), evaluator_aids(spec))


@dataclass(frozen=True)
class BuiltEvaluator:
    """Loads the evaluator of `spec` (once per process): a gate's picklable `load`."""

    spec: ModelSpec

    def __call__(self) -> Evaluator:
        return load_evaluator(self.spec)


def dude_s2(
    model: str | Path = MODEL,
    adapter: str | Path | None = ADAPTER,
    experience: str | Path | None = EXPERIENCE,
) -> DudeGate:
    """DUDE's gate on the built evaluator (`model`, the Stage-1 `adapter`; None: none) with the
    Stage-2 `experience` file (None: none) for the evaluator and the agent."""
    return DudeGate(
        None,
        read_experience(experience),
        "dude-s2",
        brief_experience=True,
        load=BuiltEvaluator(evaluator_spec(model, adapter)),
    )
