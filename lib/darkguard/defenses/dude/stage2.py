"""DUDE Stage 2 (paper 3.3, Algorithm 1, App. G): experience summarization over the failure and
success pools of Stage 1.

Pool dynamics: every failure x starts with a persistence counter kappa(x) = 1. Each iteration
samples a failure batch B_f (size b, without replacement, weighted by kappa so that persistent
failures come first; App. G.2) and an anchor batch B_s (size a) from the success pool, asks the
summarizer for a new experience X from B_f and the previous X, and re-judges B_f and B_s with X in
the evaluator's guidance block: correct samples move to S, wrong ones stay in (or move to) F with
kappa + 1. The loop stops when F is empty, after T iterations, or when the validation pass rate
has not improved for `patience` (3) consecutive iterations (App. G.3). Algorithm 1 returns the
last X.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from darkguard.config import LoopParams
from darkguard.defenses.dude.evaluator import Evaluator, click_conversations
from darkguard.models.parsing import predicted_label

Sample = dict[str, Any]  # a pool entry of Stage 1 (click_id, label, task, image_path, ...)


class Summarizer(Protocol):
    def summarize(self, failures: list[Sample], kappa: list[int], experience: str) -> str:
        """The new experience from the failure batch (with persistence counts) and the previous
        experience."""
        ...


# judge(samples, experience) -> predicted labels (None for a parse failure)
JudgeFn = Callable[[list[Sample], str], list[int | None]]
# validate(experience) -> pass rate on the validation set
ValidateFn = Callable[[str], float]


@dataclass
class Stage2State:
    failure: dict[str, Sample]  # by click_id, in insertion order
    success: dict[str, Sample]
    kappa: dict[str, int]
    experience: str = ""
    log: list[dict[str, Any]] = field(default_factory=list)


def cap_words(text: str, max_words: int) -> str:
    """The experience cut to at most `max_words` words (whole lines kept where possible)."""
    words = text.split()
    if len(words) <= max_words:
        return text.strip()
    kept, count = [], 0
    for line in text.strip().splitlines():
        n = len(line.split())
        if count + n > max_words:
            break
        kept.append(line)
        count += n
    return "\n".join(kept) if kept else " ".join(words[:max_words])


def sample_failures(
    failure: dict[str, Sample], kappa: dict[str, int], size: int, rng: random.Random
) -> list[str]:
    """`size` distinct failure ids, weighted by kappa (Efraimidis-Spirakis keys u^(1/kappa)),
    highest priority first."""
    keys = {cid: rng.random() ** (1.0 / kappa[cid]) for cid in failure}
    return sorted(failure, key=lambda cid: (-keys[cid], cid))[:size]


def summarize_experience(
    failure: list[Sample],
    success: list[Sample],
    summarizer: Summarizer,
    judge: JudgeFn,
    validate: ValidateFn,
    params: LoopParams,
) -> Stage2State:
    """Algorithm 1. Returns the final pools, counters, experience and the per-iteration log."""
    rng = random.Random(params.seed)
    state = Stage2State(
        failure={s["click_id"]: s for s in failure},
        success={s["click_id"]: s for s in success},
        kappa={s["click_id"]: 1 for s in failure},
    )
    best = validate("")
    state.log.append(_log_row(0, state, best, 0, 0))
    stale = 0
    for t in range(1, params.max_iterations + 1):
        if not state.failure:
            break
        batch_f = sample_failures(state.failure, state.kappa, params.failure_batch, rng)
        anchors = sorted(state.success)
        batch_s = rng.sample(anchors, min(params.anchor_batch, len(anchors)))
        failures = [state.failure[cid] for cid in batch_f]
        proposal = summarizer.summarize(
            failures, [state.kappa[c] for c in batch_f], state.experience
        )
        state.experience = cap_words(proposal, params.max_experience_words)
        samples = failures + [state.success[cid] for cid in batch_s]
        predictions = judge(samples, state.experience)
        fixed = broken = 0
        for sample, predicted in zip(samples, predictions, strict=True):
            cid = sample["click_id"]
            if predicted == sample["label"]:
                if cid in state.failure:
                    state.success[cid] = state.failure.pop(cid)
                    fixed += 1
            else:
                if cid in state.success:  # an anchor the new experience broke
                    state.failure[cid] = state.success.pop(cid)
                    state.kappa[cid] = 1
                    broken += 1
                else:
                    state.kappa[cid] += 1
        pass_rate = validate(state.experience)
        state.log.append(_log_row(t, state, pass_rate, fixed, broken))
        if pass_rate > best:
            best, stale = pass_rate, 0
        else:
            stale += 1
            if stale >= params.patience:
                break
    return state


def _log_row(t: int, state: Stage2State, pass_rate: float, fixed: int, broken: int) -> dict:
    return {
        "iteration": t,
        "failure": len(state.failure),
        "success": len(state.success),
        "fixed": fixed,
        "broken_anchors": broken,
        "valid_pass_rate": round(pass_rate, 4),
        "experience_words": len(state.experience.split()),
    }


class PoolJudge:
    """Judges pool entries and validation clicks with one evaluator, experience in its guidance
    block; conversations are rebuilt per call (the prompt is reset per call, paper 5.1).

    Greedy judgements are a function of the call's clicks and experience, so a repeated call
    (the sweeps replay the main loop's first iterations) is answered from a memo; `calls` counts
    the judgements actually generated."""

    def __init__(self, evaluator: Evaluator, data_dir: Path, records: dict) -> None:
        self.evaluator, self.data_dir, self.records = evaluator, data_dir, records
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
            self.evaluator.aids,
            self.evaluator.max_pixels,
        )
        self.calls += len(samples)
        return [predicted_label(o) for o in self.evaluator.judge(conversations)[1]]

    def pass_rate(self, clicks: list[dict], experience: str) -> float:
        labels = self.labels(clicks, experience)
        return sum(p == c["label"] for p, c in zip(labels, clicks, strict=True)) / len(clicks)
