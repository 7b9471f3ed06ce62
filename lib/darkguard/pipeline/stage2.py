"""The `stage2_summarize` stage: Algorithm 1 over the Stage-1 pools with the Stage-1 evaluator,
its iteration log, and the hyperparameter sweeps of App. H (Tables 18 and 19)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from darkguard import paths
from darkguard.dude.judge import click_conversations
from darkguard.dude.judge_metrics import predicted_label
from darkguard.dude.stage2 import Stage2Params, Stage2State, Summarizer, summarize_experience
from darkguard.dude.summarizers import ModelSummarizer, OfflineSummarizer
from darkguard.io import InputError, read_jsonl
from darkguard.models.backends import Backend, load_backend
from darkguard.models.parsing import parse_judgement
from darkguard.models.registry import resolve_spec
from darkguard.pipeline.stage1 import evaluator_aids, stage_dir, tuned_spec


@dataclass(frozen=True)
class Stage2Settings:
    loop: Stage2Params
    summarizer: str  # "offline" or a model name / folder (hf or openai backend)
    validation_clicks: int  # valid-split clicks of the convergence check (App. G.3)
    sweep_batches: list[list[int]]  # [b, a] pairs (Table 18)
    sweep_iterations: list[int]  # T values (Table 19)

    @classmethod
    def from_params(cls, stage2: dict[str, Any], seed: int) -> Stage2Settings:
        known = {"loop", "summarizer", "validation_clicks", "sweeps"}
        unknown = sorted(set(stage2) - known)
        if unknown:
            raise InputError(f"params.yaml: section 'stage2': unknown key(s) {unknown}")
        sweeps = stage2.get("sweeps", {})
        return cls(
            loop=Stage2Params(**stage2.get("loop", {}), seed=seed),
            summarizer=stage2.get("summarizer", "offline"),
            validation_clicks=int(stage2.get("validation_clicks", 100)),
            sweep_batches=[list(p) for p in sweeps.get("batches", [])],
            sweep_iterations=[int(t) for t in sweeps.get("iterations", [])],
        )


class PoolJudge:
    """Judges pool entries and validation clicks with one evaluator, experience in its guidance
    block; conversations are rebuilt per call (the prompt is reset per call, paper 5.1)."""

    def __init__(self, backend: Backend, data_dir: Path, records: dict, aids) -> None:
        self.backend, self.data_dir, self.records, self.aids = backend, data_dir, records, aids
        self.calls = 0

    def labels(self, samples: list[dict], experience: str) -> list[int | None]:
        conversations = click_conversations(
            self.data_dir,
            samples,
            self.records,
            experience or None,
            self.aids,
            self.backend.max_pixels,
        )
        self.calls += len(samples)
        return [predicted_label(parse_judgement(t)) for t in self.backend.generate(conversations)]

    def pass_rate(self, clicks: list[dict], experience: str) -> float:
        labels = self.labels(clicks, experience)
        return sum(p == c["label"] for p, c in zip(labels, clicks, strict=True)) / len(clicks)


def read_pools(directory: Path) -> tuple[list[dict], list[dict]]:
    pools = Path(directory) / "pools"
    if not (pools / "failure.jsonl").is_file():
        raise InputError(f"{pools}/failure.jsonl: no Stage-1 pools (run the stage1_grpo stage)")
    return read_jsonl(pools / "failure.jsonl"), read_jsonl(pools / "success.jsonl")


def make_summarizer(name: str, params: dict[str, Any], data_dir: Path, max_words: int):
    if name == "offline":
        return OfflineSummarizer(data_dir)
    return ModelSummarizer(
        load_backend(resolve_spec(name, "summarizer", params)), data_dir, max_words
    )


@dataclass
class Stage2Result:
    settings: Stage2Settings
    initial_failure: int
    initial_success: int
    state: Stage2State
    valid_before: float
    valid_after: float
    sweeps: list[dict]


def run_stage2(params: dict[str, Any]) -> Stage2Result:
    """Algorithm 1 with the stage's settings, then each sweep setting from the same pools."""
    seed = params["base"]["seed"]
    settings = Stage2Settings.from_params(params["stage2"], seed)
    data_dir = paths.resolve(params["data"]["out_dir"])
    records = {str(r["id"]): r for r in json.loads((data_dir / "full.json").read_text())}
    failure, success = read_pools(stage_dir())
    spec = tuned_spec(resolve_spec(None, "evaluator", params), stage_dir() / "adapter")
    judge = PoolJudge(load_backend(spec), data_dir, records, evaluator_aids(spec))
    valid = read_jsonl(data_dir / "clicks" / "valid.jsonl")
    valid = sorted(
        random.Random(seed).sample(valid, min(settings.validation_clicks, len(valid))),
        key=lambda c: c["click_id"],
    )
    summarizer = make_summarizer(
        settings.summarizer, params, data_dir, settings.loop.max_experience_words
    )

    def loop(p: Stage2Params) -> Stage2State:
        return summarize_experience(
            failure, success, summarizer, judge.labels, lambda x: judge.pass_rate(valid, x), p
        )

    state = loop(settings.loop)
    sweeps = []
    for b, a in settings.sweep_batches:
        s = loop(replace(settings.loop, failure_batch=b, anchor_batch=a))
        sweeps.append({"sweep": "batch", "failure_batch": b, "anchor_batch": a, **_summary(s)})
    for t in settings.sweep_iterations:
        s = loop(replace(settings.loop, max_iterations=t))
        sweeps.append({"sweep": "iterations", "max_iterations": t, **_summary(s)})
    return Stage2Result(
        settings,
        len(failure),
        len(success),
        state,
        state.log[0]["valid_pass_rate"],
        state.log[-1]["valid_pass_rate"],
        sweeps,
    )


def _summary(state: Stage2State) -> dict:
    return {
        "iterations": state.log[-1]["iteration"],
        "final_success": len(state.success),
        "final_failure": len(state.failure),
        "valid_pass_rate": state.log[-1]["valid_pass_rate"],
    }


__all__ = ["PoolJudge", "Stage2Result", "Stage2Settings", "Summarizer", "run_stage2"]
