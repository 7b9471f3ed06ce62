"""Stage 2 (`darkguard train stage2`, notebook 04; not yet a DVC stage): Algorithm 1 over the
Stage-1 pools with the Stage-1 evaluator, its iteration log, and the hyperparameter sweeps of
App. H (Tables 18 and 19)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from darkguard import paths
from darkguard.config import Config, LoopParams, ModelEntry, Stage2Params, view
from darkguard.defenses.dude.evaluator import Evaluator, evaluator_aids, tuned_spec
from darkguard.defenses.dude.guidance import guidance_check
from darkguard.defenses.dude.stage2 import (
    PoolJudge,
    Stage2State,
    Summarizer,
    summarize_experience,
)
from darkguard.defenses.dude.summarizers import ModelSummarizer, OfflineSummarizer
from darkguard.io import InputError, atomic_write_text, read_jsonl, write_json
from darkguard.models.backends import load_backend
from darkguard.models.registry import resolve_spec
from darkguard.models.spec import ModelSpec
from darkguard.ruc.validate import records_by_id
from darkguard.stages.stage1_grpo import stage_dir

# The params.yaml keys the stage reads (dvc.yaml lists them as its `params`).
PARAMS = (
    "base.profile",
    "base.seed",
    "data.out_dir",
    "models",
    "stage2.summarizer",
    "stage2.validation_clicks",
    "stage2.loop",
    "stage2.sweeps",
)


def read_pools(directory: Path) -> tuple[list[dict], list[dict]]:
    pools = Path(directory) / "pools"
    if not (pools / "failure.jsonl").is_file():
        raise InputError(f"{pools}/failure.jsonl: no Stage-1 pools (run the stage1_grpo stage)")
    return read_jsonl(pools / "failure.jsonl"), read_jsonl(pools / "success.jsonl")


def make_summarizer(
    name: str | ModelEntry, cfg: Config, data_dir: Path, max_words: int
) -> Summarizer:
    """The offline summarizer, or a model summarizer from a spec (name, folder or inline spec)."""
    if name == "offline":
        return OfflineSummarizer(data_dir)
    if isinstance(name, ModelEntry):
        spec = ModelSpec.from_dict("summarizer", name.spec_values())
        return ModelSummarizer(load_backend(spec), data_dir, max_words)
    return ModelSummarizer(load_backend(resolve_spec(name, "summarizer", cfg)), data_dir, max_words)


@dataclass
class Stage2Result:
    settings: Stage2Params
    initial_failure: int
    initial_success: int
    state: Stage2State
    valid_before: float
    valid_after: float
    sweeps: list[dict]
    experience_tokens: int  # in the evaluator's tokenizer (words without one)
    guidance_check: list[dict]  # see `guidance_check`


def run(cfg: Config) -> Stage2Result:
    """Algorithm 1 with the stage's settings, then each sweep setting from the same pools."""
    cfg = view(cfg, PARAMS)
    seed = cfg.base.seed
    settings = cfg.stage2
    data_dir = paths.resolve(cfg.data.out_dir)
    records = records_by_id(data_dir)
    failure, success = read_pools(stage_dir())
    spec = tuned_spec(resolve_spec(None, "evaluator", cfg), stage_dir() / "adapter")
    judge = PoolJudge(Evaluator(load_backend(spec), evaluator_aids(spec)), data_dir, records)
    valid = read_jsonl(data_dir / "clicks" / "valid.jsonl")
    valid = sorted(
        random.Random(seed).sample(valid, min(settings.validation_clicks, len(valid))),
        key=lambda c: c["click_id"],
    )
    summarizer = make_summarizer(
        settings.summarizer, cfg, data_dir, settings.loop.max_experience_words
    )

    def loop(p: LoopParams) -> Stage2State:
        return summarize_experience(
            failure, success, summarizer, judge.labels, lambda x: judge.pass_rate(valid, x), p
        )

    state = loop(settings.loop)
    sweeps = []
    for b, a in settings.sweeps.batches:
        s = loop(settings.loop.model_copy(update={"failure_batch": b, "anchor_batch": a}))
        sweeps.append({"sweep": "batch", "failure_batch": b, "anchor_batch": a, **_summary(s)})
    for t in settings.sweeps.iterations:
        s = loop(settings.loop.model_copy(update={"max_iterations": t}))
        sweeps.append({"sweep": "iterations", "max_iterations": t, **_summary(s)})
    tokenizer = getattr(judge.evaluator.backend, "tokenizer", None)
    text = state.experience
    tokens = len(tokenizer(text)["input_ids"]) if tokenizer else len(text.split())
    check = guidance_check(judge, valid, text)
    atomic_write_text(experience_dir() / "experience.txt", text + "\n")
    write_json(experience_dir() / "log.json", state.log)
    return Stage2Result(
        settings,
        len(failure),
        len(success),
        state,
        state.log[0]["valid_pass_rate"],
        state.log[-1]["valid_pass_rate"],
        sweeps,
        tokens,
        check,
    )


def experience_dir() -> Path:
    """Where Stage 2 writes its experience (the guard evaluation reads it)."""
    return paths.data_dir() / "stage2"


def _summary(state: Stage2State) -> dict:
    return {
        "iterations": state.log[-1]["iteration"],
        "final_success": len(state.success),
        "final_failure": len(state.failure),
        "valid_pass_rate": state.log[-1]["valid_pass_rate"],
    }


__all__ = ["Stage2Result", "Summarizer", "run"]
