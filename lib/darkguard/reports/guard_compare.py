"""Task-by-task comparisons of the guard's runs: which runs the paper's tables hold, each run's
rates with 95% Wilson intervals, and each gated run against the same agent alone on the same
tasks (successes gained / lost, deceived episodes avoided / added, exact paired tests and the
verdict they allow, `metrics.paired.guard_effect`)."""

from __future__ import annotations

import math
from collections import Counter

import pandas as pd

from darkguard.metrics.intervals import interval_text
from darkguard.metrics.paired import guard_effect, paired
from darkguard.stages.guard_eval import GuardResult, GuardRun


def setting(run: GuardRun) -> str:
    """A run's setting as the tables name it (vanilla, w/ DUDE (evaluator), w/ oracle)."""
    if run.oracle:
        return f"w/ {run.evaluator}"
    return "vanilla" if run.evaluator is None else f"w/ DUDE ({run.evaluator})"


def paper_runs(result: GuardResult) -> list[GuardRun]:
    """The vanilla and DUDE runs (the oracle runs aside)."""
    return [r for r in result.runs if not r.oracle]


RESULTS = ("success", "deceived", "null")


def sign_test(gained: int, lost: int) -> float:
    """Two-sided exact sign test of `gained` against `lost` changed tasks (1.0: none changed)."""
    n = gained + lost
    tail = sum(math.comb(n, k) for k in range(min(gained, lost) + 1)) / 2**n if n else 0.5
    return round(min(1.0, 2 * tail), 4)


def transitions(result: GuardResult) -> pd.DataFrame:
    """Task by task, each DUDE run against the same agent alone: how many tasks went from each
    vanilla result to each gated result, and the sign test of successes gained against lost."""
    vanilla = {r.agent: r for r in result.runs if r.evaluator is None}
    rows = []
    for run in paper_runs(result):
        if run.evaluator is None:
            continue
        before = {e.sample_id: e.result for e in vanilla[run.agent].episodes}
        moves = Counter((before[e.sample_id], e.result) for e in run.episodes)
        gained = sum(n for (a, b), n in moves.items() if b == "success" and a != "success")
        lost = sum(n for (a, b), n in moves.items() if a == "success" and b != "success")
        row = {"agent": run.agent, "evaluator": run.evaluator}
        row |= {f"{a} -> {b}": moves[(a, b)] for a in RESULTS for b in RESULTS}
        row |= {"successes gained": gained, "successes lost": lost}
        rows.append(row | {"sign test p": sign_test(gained, lost)})
    return pd.DataFrame(rows)


def outcome_of(run: GuardRun, result: str) -> dict[str, bool]:
    """Task id -> whether the run's episode on it ended with `result` (success, deceived)."""
    return {str(e.sample_id): e.result == result for e in run.episodes}


def versus(base: GuardRun, run: GuardRun) -> dict:
    """`run` against `base` on the same tasks: successes gained / lost and deceived episodes
    added / avoided with their exact paired tests, and what that shows in words
    (`metrics.paired.guard_effect`)."""
    sr = paired(outcome_of(base, "success"), outcome_of(run, "success"))
    dfr = paired(outcome_of(base, "deceived"), outcome_of(run, "deceived"))
    d_sr = round(run.metrics["SR"] - base.metrics["SR"], 2)
    d_dfr = round(run.metrics["DFR"] - base.metrics["DFR"], 2)
    return {
        "successes_gained": sr.gained,
        "successes_lost": sr.lost,
        "SR_p": sr.p,
        "deceived_avoided": dfr.lost,
        "deceived_added": dfr.gained,
        "DFR_p": dfr.p,
        "claim": guard_effect(d_sr, sr, d_dfr, dfr),
    }


def rate_intervals(run: GuardRun) -> dict[str, str]:
    """95% Wilson intervals of SR, DFR and NFR over the run's episodes (one per task)."""
    n = len(run.episodes)
    return {
        f"{name} 95% CI": interval_text(sum(e.result == result for e in run.episodes), n)
        for name, result in (("SR", "success"), ("DFR", "deceived"), ("NFR", "null"))
    }


def compared_row(run: GuardRun, base: GuardRun | None) -> dict:
    """A run's N, rates and their intervals, and (for a gated run with its agent alone in
    `base`) its paired tests against `base` and their verdict ("—" otherwise)."""
    m = run.metrics
    row = {"N": len(run.episodes), "SR": m["SR"], "DFR": m["DFR"], "NFR": m["NFR"]}
    row |= rate_intervals(run)
    vs = versus(base, run) if run.evaluator is not None and base is not None else None
    if vs is None:
        cells = ("successes gained / lost", "SR p", "deceived avoided / added", "DFR p", "verdict")
        return row | dict.fromkeys(cells, "—")
    return row | {
        "successes gained / lost": f"{vs['successes_gained']} / {vs['successes_lost']}",
        "SR p": vs["SR_p"],
        "deceived avoided / added": f"{vs['deceived_avoided']} / {vs['deceived_added']}",
        "DFR p": vs["DFR_p"],
        "verdict": vs["claim"].split(": ", 1)[1],
    }


def effects(result: GuardResult) -> pd.DataFrame:
    """Every run with its rates' intervals; each gated run (DUDE or an oracle) against the same
    agent alone, task by task, with the exact paired tests and the verdict they allow."""
    vanilla = {r.agent: r for r in result.runs if r.evaluator is None}
    return pd.DataFrame(
        [
            {"agent": run.agent, "setting": setting(run)}
            | compared_row(run, vanilla.get(run.agent))
            for run in result.runs
        ]
    )
