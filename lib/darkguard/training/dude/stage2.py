"""DUDE Stage 2 (paper 3.3, Algorithm 1, App. G): experience summarization over the failure and
success pools of Stage 1.

Pool dynamics: every failure x starts with a persistence counter kappa(x) = 1. Each iteration
samples a failure batch B_f (size b, without replacement, weighted by kappa so that persistent
failures come first; App. G.2) and an anchor batch B_s (size a) from the success pool, asks the
summarizer for a new experience X from B_f and the previous X, and re-judges B_f and B_s with X in
the evaluator's guidance block: correct samples move to S, wrong ones stay in (or return to) F
with kappa(x) <- kappa(x) + 1 (line 13; an anchor that never had a counter starts from 1, one that
was a failure before from its previous count). Each re-judged sample's `predicted` takes the new
judgement, which is what the summarizer is shown next. The loop stops when F is empty, after T
iterations, or when the validation pass rate has not improved for `patience` (3) consecutive
iterations (App. G.3; `patience` None: no such stop).

Acceptance (`LoopParams.acceptance`): `last` is Algorithm 1, which returns the last X. `guarded`
keeps a proposed X only if, on the validation clicks, its benign acceptance (the share of label-1
clicks judged 1) is not below that of no experience and its pass rate is not below the current
experience's; a rejected proposal leaves the current experience in place, and B_f and B_s are
re-judged with that kept experience (the pools always reflect the experience in force).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from darkguard.config import LoopParams
from darkguard.defenses.dude.evaluator import Evaluator
from darkguard.models.parsing import predicted_label
from darkguard.training.dude.labelled import click_conversations

Sample = dict[str, Any]  # a pool entry of Stage 1 (click_id, label, task, image_path, ...)


class Summarizer(Protocol):
    def summarize(self, failures: list[Sample], kappa: list[int], experience: str) -> str:
        """The new experience from the failure batch (with persistence counts) and the previous
        experience."""
        ...


class Validation(NamedTuple):
    """An experience on the validation clicks."""

    pass_rate: float
    benign_acceptance: float  # share of benign clicks (label 1) judged 1


# judge(samples, experience) -> predicted labels (None for a parse failure)
JudgeFn = Callable[[list[Sample], str], list[int | None]]
# validate(experience) -> its pass rate and benign acceptance on the validation clicks
ValidateFn = Callable[[str], Validation]


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
    """Algorithm 1 with the stopping rules of App. G.3 and the acceptance rule of `params`.
    Returns the final pools (copies: the inputs are not changed), counters, experience and the
    per-iteration log."""
    rng = random.Random(params.seed)
    state = Stage2State(
        failure={s["click_id"]: dict(s) for s in failure},
        success={s["click_id"]: dict(s) for s in success},
        kappa={s["click_id"]: 1 for s in failure},
    )
    baseline = current = validate("")
    state.log.append(_log_row(0, state, current, None, None, (0, 0)))
    best, stale = current.pass_rate, 0
    for t in range(1, params.max_iterations + 1):
        if not state.failure:
            break
        failures, anchors = _sample_batches(state, params, rng)
        proposal = cap_words(
            summarizer.summarize(
                failures, [state.kappa[s["click_id"]] for s in failures], state.experience
            ),
            params.max_experience_words,
        )
        proposed = validate(proposal)
        accepted = accepts(params.acceptance, proposed, baseline, current)
        if accepted:
            state.experience, current = proposal, proposed
        samples = failures + anchors
        moves = _rejudge(state, samples, judge(samples, state.experience))
        state.log.append(_log_row(t, state, current, proposed, accepted, moves))
        if current.pass_rate > best:
            best, stale = current.pass_rate, 0
        else:
            stale += 1
            if params.patience is not None and stale >= params.patience:
                break
    return state


def accepts(rule: str, proposed: Validation, baseline: Validation, current: Validation) -> bool:
    """Whether a proposed experience becomes the current one: always (`last`, Algorithm 1), or
    (`guarded`) when it lowers neither the benign acceptance of no experience nor the current
    experience's validation pass rate."""
    if rule == "last":
        return True
    if rule != "guarded":
        raise ValueError(f"unknown acceptance rule {rule!r}")
    return (
        proposed.benign_acceptance >= baseline.benign_acceptance
        and proposed.pass_rate >= current.pass_rate
    )


def _sample_batches(
    state: Stage2State, params: LoopParams, rng: random.Random
) -> tuple[list[Sample], list[Sample]]:
    """B_f (kappa-weighted) and B_s (uniform) of one iteration, as pool entries."""
    batch_f = sample_failures(state.failure, state.kappa, params.failure_batch, rng)
    pool_s = sorted(state.success)
    batch_s = rng.sample(pool_s, min(params.anchor_batch, len(pool_s)))
    return [state.failure[c] for c in batch_f], [state.success[c] for c in batch_s]


def _rejudge(
    state: Stage2State, samples: list[Sample], predictions: list[int | None]
) -> tuple[int, int]:
    """Lines 8-15: right -> S, wrong -> F with kappa + 1 (an anchor from 1 if it never had a
    counter); every sample's `predicted` is the new judgement. Returns (fixed, broken anchors)."""
    fixed = broken = 0
    for sample, predicted in zip(samples, predictions, strict=True):
        cid = sample["click_id"]
        sample["predicted"] = predicted
        if predicted == sample["label"]:
            if cid in state.failure:
                state.success[cid] = state.failure.pop(cid)
                fixed += 1
            continue
        if cid in state.success:  # an anchor the experience broke
            state.failure[cid] = state.success.pop(cid)
            broken += 1
        state.kappa[cid] = state.kappa.get(cid, 1) + 1
    return fixed, broken


def _log_row(
    t: int,
    state: Stage2State,
    current: Validation,
    proposed: Validation | None,
    accepted: bool | None,
    moves: tuple[int, int],
) -> dict:
    """One row of the iteration log (iteration 0: the pools before, no proposal)."""
    return {
        "iteration": t,
        "failure": len(state.failure),
        "success": len(state.success),
        "fixed": moves[0],
        "broken_anchors": moves[1],
        "accepted": accepted,
        "proposal_pass_rate": None if proposed is None else round(proposed.pass_rate, 4),
        "proposal_benign_acceptance": (
            None if proposed is None else round(proposed.benign_acceptance, 4)
        ),
        "valid_pass_rate": round(current.pass_rate, 4),
        "benign_acceptance": round(current.benign_acceptance, 4),
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
        """Share of `clicks` judged with their label."""
        labels = self.labels(clicks, experience)
        return sum(p == c["label"] for p, c in zip(labels, clicks, strict=True)) / len(clicks)

    def benign_acceptance(self, clicks: list[dict], experience: str) -> float:
        """Share of the benign clicks (label 1) judged 1 (1.0 when there are none): the clicks
        the gate lets through. The same memoized judgements as `pass_rate`."""
        labels = self.labels(clicks, experience)
        benign = [p for p, c in zip(labels, clicks, strict=True) if c["label"] == 1]
        return sum(p == 1 for p in benign) / len(benign) if benign else 1.0

    def validation(self, clicks: list[dict], experience: str) -> Validation:
        """Pass rate and benign acceptance of `experience` on `clicks` (`ValidateFn`)."""
        return Validation(
            self.pass_rate(clicks, experience), self.benign_acceptance(clicks, experience)
        )
