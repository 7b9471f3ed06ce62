"""The confidence gate's threshold (a declared option, `guard_eval.gate: confidence`), tuned on
the valid split; the test split is never read here.

Two objectives (`guard_eval.threshold_objective`):
- `balanced`: on the valid split's labelled clicks plus one null click on text per valid page
  (`warmup.hard_nulls`: the kind of wrong click an agent makes), the best balanced accuracy among
  thresholds letting at most `max_fatal_error_rate` of the deceptive clicks through
  (`gate.tune_threshold`).
- `valid_sr`: what the gate is for. The profile's agents run behind the gate on the valid split's
  suite (the test suite's sampling, on valid records) at each candidate threshold, and the
  threshold with the highest SR wins among those whose DFR is not above the agents' own (vanilla)
  DFR on that suite; ties go to the higher threshold. Candidates are the thresholds letting
  given shares of the benign valid clicks through (`sweep_benign_allowed`), plus the `balanced`
  one. The evaluator judges each distinct proposed click once (`ReplayGate`), so the sweep costs
  agent steps, not evaluator calls.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from darkguard import cache
from darkguard.agents import Agent
from darkguard.defenses import Browser, Reviewer, Verdict
from darkguard.defenses.dude.evaluator import Evaluator
from darkguard.defenses.dude.gate import DudeGate, threshold_verdict, tune_threshold
from darkguard.envs import Observation
from darkguard.io import read_jsonl
from darkguard.loop.ruc import run_episodes
from darkguard.metrics.clicks import episode_metrics
from darkguard.models.parsing import Click
from darkguard.ruc import schema
from darkguard.ruc.validate import records_by_id
from darkguard.training.dude.labelled import click_conversations
from darkguard.training.dude.warmup import hard_nulls


def tuning_clicks(data_dir: Path, seed: int) -> tuple[list[dict], dict[str, dict]]:
    """The valid split's clicks plus one null click on text per valid page, and the records."""
    records = records_by_id(Path(data_dir))
    valid = read_jsonl(Path(data_dir) / "clicks" / "valid.jsonl")
    return valid + hard_nulls(valid, records, Path(data_dir), 1, seed), records


def click_p1(
    evaluator: Evaluator, experience: str | None, data_dir: Path, seed: int
) -> list[tuple[int, float]]:
    """(true label, P(L = 1)) of every tuning click (`tuning_clicks`)."""
    clicks, records = tuning_clicks(data_dir, seed)
    conversations = click_conversations(
        Path(data_dir), clicks, records, experience, evaluator.aids, evaluator.max_pixels
    )
    probs, _ = evaluator.label_probabilities(conversations)
    return [(c["label"], p[1]) for c, p in zip(clicks, probs, strict=True)]


def balanced_threshold(p1: list[tuple[int, float]], max_fatal: float) -> float:
    """The `balanced` objective's threshold on (label, P(L = 1)) pairs (`gate.tune_threshold`)."""
    benign = [p for label, p in p1 if label == 1]
    other = [p for label, p in p1 if label != 1]
    deceptive = [p for label, p in p1 if label == -1]
    return tune_threshold(benign, other, max_fatal, deceptive)


def on_clicks(p1: list[tuple[int, float]], threshold: float) -> dict[str, float]:
    """What a threshold does on the tuning clicks: benign allowed, null and deceptive rejected."""

    def rate(label: int, keep) -> float:
        xs = [p for lab, p in p1 if lab == label]
        return round(sum(keep(p) for p in xs) / max(1, len(xs)), 4)

    return {
        "threshold": round(threshold, 6),
        "clicks": len(p1),
        "benign_allowed": rate(1, lambda p: p >= threshold),
        "null_rejected": rate(0, lambda p: p < threshold),
        "fatal_error_rate": rate(-1, lambda p: p >= threshold),
    }


def allowing(p1: list[tuple[int, float]], shares: Sequence[float]) -> list[float]:
    """For each share a, the highest threshold letting at least a of the benign clicks through."""
    benign = sorted((p for label, p in p1 if label == 1), reverse=True)
    if not benign:
        return []
    return [benign[max(0, math.ceil(a * len(benign)) - 1)] for a in shares]


class ReplayGate(Reviewer):
    """A confidence gate replayed at any threshold: P(L) of each distinct proposed click (page,
    task, point) is asked of the `DudeGate` once and kept, so a sweep over thresholds judges
    each click once. Sees what the gate sees (the observation and the click), nothing else."""

    def __init__(self, gate: DudeGate, threshold: float = 1.0) -> None:
        self.gate, self.name, self.threshold = gate, gate.name, threshold
        self._memo: dict[tuple, tuple[dict[int, float], int]] = {}

    def review_many(self, proposals: Sequence[tuple[Any, Any, Browser]]) -> list[Verdict]:
        clicks = [(o, c) for o, c, _ in proposals]
        keys = [self.key(o, c) for o, c in clicks]
        new = list({k: i for i, k in enumerate(keys) if k not in self._memo}.items())
        if new:
            probs, tokens = self.gate.probabilities([clicks[i] for _, i in new])
            for (key, _), p, used in zip(new, probs, tokens, strict=True):
                self._memo[key] = (p, used)
        verdicts = []
        for key in keys:
            probs, tokens = self._memo[key]
            verdicts.append(threshold_verdict(probs, self.threshold, tokens))
        return verdicts

    def p1(self, observation: Observation, click: Click) -> float:
        """P(L = 1) of a click this gate has reviewed."""
        return self._memo[self.key(observation, click)][0][1]

    def key(self, observation: Observation, click: Click) -> tuple:
        """The page (by its pixels), the task and the point to 0.1 px (as episodes record it)."""
        page = cache.pixel_digest(observation.image)
        return (page, observation.task, round(click.x, 1), round(click.y, 1))


def sweep(
    agents: Sequence[tuple[str, Agent]],
    gate: DudeGate,
    open_task,
    suite: list[dict],
    thresholds: Sequence[float],
    t_max: int,
    batch: int,
) -> tuple[list[dict], dict[str, dict]]:
    """Each agent alone (threshold None) and behind `gate` at each threshold on `suite`: SR, DFR,
    NFR per row; and per agent how well P(L = 1) tells its own proposals apart
    (`discrimination`, over every distinct click it proposed behind the gate)."""
    rows, separation = [], {}
    for name, agent in agents:
        replay = ReplayGate(gate)
        proposals: dict[tuple, tuple[int, float]] = {}
        for threshold in [None, *thresholds]:
            replay.threshold = threshold if threshold is not None else 0.0
            defense = replay if threshold is not None else None
            episodes = []
            for start in range(0, len(suite), batch):
                tasks = [open_task(r) for r in suite[start : start + batch]]
                done = run_episodes(agent, defense, tasks, t_max)
                if defense:
                    for (_, (image, record), _), episode in zip(tasks, done, strict=True):
                        seen = Observation(image, schema.task_text(record))
                        for step in episode.steps:
                            if step.action == "click" and step.click and step.hit is not None:
                                click = Click(*step.click)
                                proposals[replay.key(seen, click)] = (
                                    step.hit,
                                    replay.p1(seen, click),
                                )
                episodes += done
            m = episode_metrics(episodes)
            rates = {k: m[k] for k in ("SR", "DFR", "NFR")}
            rows.append({"agent": name, "threshold": threshold, **rates})
        separation[name] = discrimination(list(proposals.values()))
    return rows, separation


def discrimination(clicks: list[tuple[int, float]]) -> dict:
    """How well P(L = 1) ranks (hit, P(L = 1)) clicks: the AUC of benign over null clicks and of
    benign over deceptive ones (0.5: chance), and the counts."""

    def auc(high: list[float], low: list[float]) -> float | None:
        if not high or not low:
            return None
        wins = sum((a > b) + 0.5 * (a == b) for a in high for b in low)
        return round(wins / (len(high) * len(low)), 4)

    by = {label: [p for hit, p in clicks if hit == label] for label in (1, 0, -1)}
    return {
        "proposals": {str(label): len(ps) for label, ps in by.items()},
        "auc_benign_vs_null": auc(by[1], by[0]),
        "auc_benign_vs_deceptive": auc(by[1], by[-1]),
    }


def best_threshold(rows: list[dict], window: int = 1) -> float:
    """The `valid_sr` pick from `sweep` rows: the highest mean SR over agents among thresholds
    whose mean DFR is not above the agents' own; ties to the higher threshold. 0.0 (every click
    allowed: the agent alone) when no threshold qualifies.

    With `window` > 1 a threshold's SR is the mean over it and its neighbours on the sorted
    candidates (`window` of them; an end candidate stands in for its missing neighbours), so the
    pick sits on a plateau of the curve rather than on a single spike; the DFR condition stays
    on the threshold's own runs."""

    def mean(key: str, threshold: float | None) -> float:
        xs = [r[key] for r in rows if r["threshold"] == threshold]
        return sum(xs) / len(xs)

    alone_dfr = mean("DFR", None)
    best: tuple[float, float] = (mean("SR", None), 0.0)
    ts = sorted({r["threshold"] for r in rows if r["threshold"] is not None})
    half = max(1, window) // 2
    for i, t in enumerate(ts):
        around = [ts[min(max(j, 0), len(ts) - 1)] for j in range(i - half, i + half + 1)]
        smoothed = sum(mean("SR", u) for u in around) / len(around)
        if mean("DFR", t) <= alone_dfr + 1e-9 and (smoothed, t) >= best:
            best = (smoothed, t)
    return best[1]


def cached(path: Path, key: dict, compute):
    """`compute()`, kept in `path` with `key` (a run with another key computes afresh)."""
    stamp = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:12]
    if path.is_file():
        stored = json.loads(path.read_text())
        if stored.get("key") == stamp:
            return stored["value"]
    value = compute()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"key": stamp, "value": value}, indent=1))
    return value
