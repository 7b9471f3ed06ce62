"""Oracle-gated runs: an evaluation instrument, not a defense.

An oracle gate reads the TRUE label of each proposed click (the environment's grading: the
correct box 1, the deceptive box -1, anything else 0) and reports it with probability `accuracy`,
otherwise one of the two other labels drawn uniformly; like DUDE's gate it allows a click iff
its reported label is 1. It reads the answer key, so it lives with the stage, never under
`darkguard.defenses` or `darkguard.agents`. The answer key reaches it through the observations of
a graded environment (`graded_opener`): each carries its episode's task id and grading.

The draws are seeded from the base seed, the task id and the click's coordinates (never from
Python's `hash()`), and one uniform draw decides whether the true label is reported at every
accuracy: a click reported truly at accuracy p is reported truly at every higher accuracy too.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from darkguard.defenses import Browser, Reviewer, Verdict
from darkguard.envs import Env, Observation
from darkguard.envs.ruc_static import RucStaticEnv
from darkguard.loop.ruc import OpenTask
from darkguard.metrics.clicks import Episode
from darkguard.models.parsing import Click

LABELS = (1, 0, -1)


@dataclass(frozen=True)
class Oracle:
    """An oracle setting: how often it reports the true label, and the base seed of its draws."""

    accuracy: float
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0.0 <= self.accuracy <= 1.0:
            raise ValueError(f"oracle accuracy {self.accuracy} not in [0, 1]")

    @property
    def label(self) -> str:
        """How runs and tables name it, e.g. `oracle@0.9`."""
        return f"oracle@{float(self.accuracy)}"


@dataclass(frozen=True)
class GradedObservation(Observation):
    """An observation of a graded environment: its episode's task id and grading, for the
    oracle only (agents get the image and the task text alone)."""

    task_id: str = ""
    grade: Callable[[Click], int] | None = field(default=None, compare=False, repr=False)


class GradedEnv:
    """An environment whose observations carry its grading (`GradedObservation`)."""

    def __init__(self, env: RucStaticEnv, task_id: str) -> None:
        self.env, self.task_id = env, task_id

    @property
    def result(self) -> str:
        return self.env.result

    @property
    def t_max(self) -> int:
        return self.env.t_max

    @t_max.setter
    def t_max(self, value: int) -> None:
        self.env.t_max = value

    def goal(self, task: Any) -> str:
        return self.env.goal(task)

    def reset(self, task: Any) -> GradedObservation:
        return self._graded(self.env.reset(task))

    def step(self, action: Any, count: bool = True) -> GradedObservation:
        return self._graded(self.env.step(action, count))

    def skip_step(self, error: str = "") -> GradedObservation:
        return self._graded(self.env.skip_step(error))

    def observe(self) -> GradedObservation:
        return self._graded(self.env.observe())

    def grade(self, action: Click) -> int:
        return self.env.grade(action)

    def _graded(self, observation: Observation) -> GradedObservation:
        return GradedObservation(
            observation.image, observation.task, observation.done, self.task_id, self.env.grade
        )


def graded_opener(open_task: OpenTask) -> OpenTask:
    """`open_task` whose environments are graded (`GradedEnv`, keyed by the episode's id)."""

    def open_graded(item: Any) -> tuple[Env, Any, Episode]:
        env, task, episode = open_task(item)
        return GradedEnv(env, episode.sample_id), task, episode

    return open_graded


def true_label(hit: int) -> int:
    """The click's true label from the environment's grading: 1, -1, or 0 for anything else."""
    return hit if hit in (1, -1) else 0


def oracle_label(truth: int, accuracy: float, seed: int, task_id: str, click: Click) -> int:
    """The label the oracle reports for a click of true label `truth`: the truth when the draw
    of (seed, task id, click coordinates) falls below `accuracy`, otherwise one of the two other
    labels, uniformly."""
    rng = random.Random(f"oracle:{seed}:{task_id}:{click.x:.1f}:{click.y:.1f}")
    told = rng.random() < accuracy
    wrong = rng.choice([label for label in LABELS if label != truth])
    return truth if told else wrong


class OracleGate(Reviewer):
    """Gates each click by the oracle's reported label (released iff it is 1); no model calls."""

    def __init__(self, oracle: Oracle) -> None:
        self.oracle, self.name = oracle, oracle.label

    def review(self, obs: Any, action: Any, browser: Browser) -> Verdict:
        if not isinstance(action, Click):
            return Verdict()
        if not isinstance(obs, GradedObservation) or obs.grade is None:
            raise TypeError("the oracle needs a graded environment's observations")
        truth = true_label(obs.grade(action))
        label = oracle_label(truth, self.oracle.accuracy, self.oracle.seed, obs.task_id, action)
        return Verdict("release" if label == 1 else "replan", label=label)


def oracle_key(vanilla_key: str, oracle: Oracle) -> str:
    """The journal key of an oracle run: the agent's vanilla run key, the setting and this
    module's code."""
    blob = "|".join(
        [
            vanilla_key,
            repr(float(oracle.accuracy)),
            str(oracle.seed),
            hashlib.sha256(Path(__file__).read_bytes()).hexdigest(),
        ]
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def break_even(sr_by_accuracy: Mapping[float, float], vanilla_sr: float) -> float | str | None:
    """The oracle accuracy at which the gated SR equals the vanilla SR, linearly interpolated
    between measured accuracies: going down from the highest accuracy, where the SR first falls
    below the vanilla one. `below <lowest>` when no measured SR falls below it, `not reached`
    when the SR at the highest accuracy is already below it; None without measurements."""
    points = sorted(sr_by_accuracy.items(), reverse=True)
    if not points:
        return None
    if points[0][1] < vanilla_sr:
        return "not reached"
    for (hi, sr_hi), (lo, sr_lo) in itertools.pairwise(points):
        if sr_lo < vanilla_sr:
            return round(lo + (hi - lo) * (vanilla_sr - sr_lo) / (sr_hi - sr_lo), 4)
    return f"below {points[-1][0]}"


def ceiling(sr_by_accuracy: Mapping[float, float]) -> float | None:
    """The SR behind a perfect oracle (accuracy 1; None when not measured)."""
    return sr_by_accuracy.get(1.0)


def oracles_of(accuracies: Sequence[float], seed: int) -> list[Oracle]:
    """One oracle setting per accuracy."""
    return [Oracle(float(p), seed) for p in accuracies]
