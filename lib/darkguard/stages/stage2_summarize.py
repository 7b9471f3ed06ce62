"""Stage 2 (`darkguard train stage2`, notebook 04, the `stage2_summarize` stage): Algorithm 1
over the Stage-1 pools with the Stage-1 evaluator, its iteration log, and the hyperparameter
sweeps of App. H (Tables 18 and 19). `make_miner` and `Miner` serve the ablations too (Table 4's
"Stage 2 only": Algorithm 1 with the vanilla evaluator)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from darkguard import paths
from darkguard.config import Config, LoopParams, ModelEntry, Stage2Params, view
from darkguard.defenses.dude.evaluator import Evaluator, evaluator_aids, tuned_spec
from darkguard.io import InputError, atomic_write_text, read_jsonl, write_json
from darkguard.models.backends import load_backend
from darkguard.models.registry import resolve_spec
from darkguard.models.spec import ModelSpec
from darkguard.ruc.validate import records_by_id
from darkguard.stages.stage1_grpo import stage_dir
from darkguard.training.dude.guidance import guidance_check
from darkguard.training.dude.stage2 import (
    PoolJudge,
    Stage2State,
    Summarizer,
    summarize_experience,
)
from darkguard.training.dude.summarizers import ModelSummarizer, OfflineSummarizer

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


def validation_sample(data_dir: Path, size: int, seed: int) -> list[dict]:
    """The seeded sample of `size` valid-split clicks of the convergence check (App. G.3)."""
    valid = read_jsonl(Path(data_dir) / "clicks" / "valid.jsonl")
    picked = random.Random(seed).sample(valid, min(size, len(valid)))
    return sorted(picked, key=lambda c: c["click_id"])


@dataclass
class Miner:
    """What Algorithm 1 runs with: the evaluator as pool judge, the validation clicks and the
    summarizer."""

    judge: PoolJudge
    valid: list[dict]
    summarizer: Summarizer

    def loop(self, failure: list[dict], success: list[dict], params: LoopParams) -> Stage2State:
        """Algorithm 1 over the pools (`summarize_experience`), validated on `valid`."""
        return summarize_experience(
            failure,
            success,
            self.summarizer,
            self.judge.labels,
            lambda x: self.judge.validation(self.valid, x),
            params,
        )


def make_miner(cfg: Config, spec: ModelSpec, data_dir: Path, records: dict) -> Miner:
    """The evaluator `spec` with `cfg.stage2`'s validation clicks and summarizer (reads
    base.seed, models and stage2.{summarizer, validation_clicks, loop})."""
    settings = cfg.stage2
    judge = PoolJudge(Evaluator(load_backend(spec), evaluator_aids(spec)), data_dir, records)
    valid = validation_sample(data_dir, settings.validation_clicks, cfg.base.seed)
    summarizer = make_summarizer(
        settings.summarizer, cfg, data_dir, settings.loop.max_experience_words
    )
    return Miner(judge, valid, summarizer)


def sweep(
    miner: Miner, failure: list[dict], success: list[dict], settings: Stage2Params
) -> list[dict]:
    """App. H from the same pools: each batch pair with the main loop's stopping rules (Table
    18), and each T run for exactly T iterations, without the patience stop (Table 19)."""
    rows = []
    for b, a in settings.sweeps.batches:
        p = settings.loop.model_copy(update={"failure_batch": b, "anchor_batch": a})
        s = miner.loop(failure, success, p)
        rows.append({"sweep": "batch", "failure_batch": b, "anchor_batch": a, **_summary(s)})
    for t in settings.sweeps.iterations:
        p = settings.loop.model_copy(update={"max_iterations": t, "patience": None})
        s = miner.loop(failure, success, p)
        rows.append({"sweep": "iterations", "max_iterations": t, **_summary(s)})
    return rows


def run(cfg: Config) -> Stage2Result:
    """Algorithm 1 with the stage's settings, then each sweep setting from the same pools."""
    cfg = view(cfg, PARAMS)
    settings = cfg.stage2
    data_dir = paths.resolve(cfg.data.out_dir)
    records = records_by_id(data_dir)
    failure, success = read_pools(stage_dir())
    spec = tuned_spec(resolve_spec(None, "evaluator", cfg), stage_dir() / "adapter")
    miner = make_miner(cfg, spec, data_dir, records)
    judge, valid = miner.judge, miner.valid
    state = miner.loop(failure, success, settings.loop)
    sweeps = sweep(miner, failure, success, settings)
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
    """Iterations run, final pools, validation numbers and rejected proposals of a run."""
    return {
        "iterations": state.log[-1]["iteration"],
        "final_success": len(state.success),
        "final_failure": len(state.failure),
        "valid_pass_rate": state.log[-1]["valid_pass_rate"],
        "benign_acceptance": state.log[-1]["benign_acceptance"],
        "rejected": sum(row["accepted"] is False for row in state.log),
    }


__all__ = ["Miner", "Stage2Result", "Summarizer", "make_miner", "run", "validation_sample"]
