"""Stage 2 (`darkguard train stage2`, notebook 04; not yet a DVC stage): Algorithm 1 over the
Stage-1 pools with the Stage-1 evaluator, its iteration log, and the hyperparameter sweeps of
App. H (Tables 18 and 19)."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from darkguard import paths
from darkguard.dude.judge import click_conversations
from darkguard.dude.judge_metrics import predicted_label
from darkguard.dude.stage2 import Stage2Params, Stage2State, Summarizer, summarize_experience
from darkguard.dude.summarizers import ModelSummarizer, OfflineSummarizer
from darkguard.io import InputError, atomic_write_text, read_jsonl, write_json
from darkguard.models.backends import Backend, load_backend
from darkguard.models.parsing import parse_judgement
from darkguard.models.registry import resolve_spec
from darkguard.models.spec import ModelSpec
from darkguard.pipeline.stage1 import evaluator_aids, stage_dir, tuned_spec


@dataclass(frozen=True)
class Stage2Settings:
    loop: Stage2Params
    summarizer: str | dict  # "offline", a model name / folder, or an inline model spec
    validation_clicks: int  # valid-split clicks of the convergence check (App. G.3)
    sweep_batches: list[list[int]]  # [b, a] pairs (Table 18)
    sweep_iterations: list[int]  # T values (Table 19)

    @classmethod
    def from_params(cls, stage2: dict[str, Any], seed: int, profile: str) -> Stage2Settings:
        known = {"loop", "summarizer", "validation_clicks", "sweeps"}
        unknown = sorted(set(stage2) - known)
        if unknown:
            raise InputError(f"params.yaml: section 'stage2': unknown key(s) {unknown}")
        sweeps = stage2.get("sweeps", {})
        return cls(
            loop=Stage2Params(**stage2.get("loop", {}), seed=seed),
            summarizer=stage2.get("summarizer", {}).get(profile, "offline"),
            validation_clicks=int(stage2.get("validation_clicks", 100)),
            sweep_batches=[list(p) for p in sweeps.get("batches", [])],
            sweep_iterations=[int(t) for t in sweeps.get("iterations", [])],
        )


class PoolJudge:
    """Judges pool entries and validation clicks with one evaluator, experience in its guidance
    block; conversations are rebuilt per call (the prompt is reset per call, paper 5.1).

    Greedy judgements are a function of the call's clicks and experience, so a repeated call
    (the sweeps replay the main loop's first iterations) is answered from a memo; `calls` counts
    the judgements actually generated."""

    def __init__(self, backend: Backend, data_dir: Path, records: dict, aids) -> None:
        self.backend, self.data_dir, self.records, self.aids = backend, data_dir, records, aids
        self.calls = 0
        self._memo: dict[tuple[tuple[str, ...], str], list[int | None]] = {}

    def labels(self, samples: list[dict], experience: str) -> list[int | None]:
        key = (tuple(s["click_id"] for s in samples), experience)
        if key not in self._memo:
            self._memo[key] = self._generate(samples, experience)
        return list(self._memo[key])

    def _generate(self, samples: list[dict], experience: str) -> list[int | None]:
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


PERMUTED = {"1": "-1", "-1": "0", "0": "1"}


def permute_labels(experience: str) -> str:
    """The experience with every rule's advised label rotated (1 -> -1 -> 0 -> 1): the same
    words and length, opposite advice."""

    def swap(match: re.Match) -> str:
        return f"judge such clicks {PERMUTED[match.group(1)]}"

    return re.sub(r"judge such clicks (-1|0|1)", swap, experience)


def unrelated_text(n_words: int) -> str:
    """Neutral filler of about `n_words` words (no advice)."""
    sentence = "The page layout uses a header, a content area and a footer."
    words = (sentence + " ") * (n_words // 12 + 1)
    return " ".join(words.split()[:n_words])


def guidance_check(judge: PoolJudge, clicks: list[dict], experience: str) -> list[dict]:
    """Does the evaluator follow the experience's content or only react to extra prompt text?
    Pass rate and share of decisions changed (vs no experience) for: no experience, the final
    experience, the same experience with its advised labels rotated, and unrelated text of the
    same length."""
    variants = {
        "no experience": "",
        "final experience": experience,
        "advised labels rotated": permute_labels(experience),
        "unrelated text, same length": unrelated_text(len(experience.split())),
    }
    base = judge.labels(clicks, "")
    rows = []
    for name, text in variants.items():
        labels = base if not text else judge.labels(clicks, text)
        right = sum(p == c["label"] for p, c in zip(labels, clicks, strict=True))
        changed = sum(a != b for a, b in zip(labels, base, strict=True))
        rows.append(
            {
                "guidance": name,
                "pass_rate": round(right / len(clicks), 4),
                "decisions_changed": round(changed / len(clicks), 4),
            }
        )
    return rows


def read_pools(directory: Path) -> tuple[list[dict], list[dict]]:
    pools = Path(directory) / "pools"
    if not (pools / "failure.jsonl").is_file():
        raise InputError(f"{pools}/failure.jsonl: no Stage-1 pools (run the stage1_grpo stage)")
    return read_jsonl(pools / "failure.jsonl"), read_jsonl(pools / "success.jsonl")


def make_summarizer(
    name: str | dict, params: dict[str, Any], data_dir: Path, max_words: int
) -> Summarizer:
    """The offline summarizer, or a model summarizer from a spec (name, folder or mapping)."""
    if name == "offline":
        return OfflineSummarizer(data_dir)
    if isinstance(name, dict):
        spec = ModelSpec.from_dict("summarizer", name)
        return ModelSummarizer(load_backend(spec), data_dir, max_words)
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
    experience_tokens: int  # in the evaluator's tokenizer (words without one)
    guidance_check: list[dict]  # see `guidance_check`


def run_stage2(params: dict[str, Any]) -> Stage2Result:
    """Algorithm 1 with the stage's settings, then each sweep setting from the same pools."""
    seed = params["base"]["seed"]
    settings = Stage2Settings.from_params(params["stage2"], seed, params["base"]["profile"])
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
    tokenizer = getattr(judge.backend, "tokenizer", None)
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


__all__ = ["PoolJudge", "Stage2Result", "Stage2Settings", "Summarizer", "run_stage2"]
