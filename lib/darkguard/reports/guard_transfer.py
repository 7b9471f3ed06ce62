"""The guard's runs on the training style families' test tasks and on the held-out family's,
side by side (`guard/transfer` and guard.json's `transfer`)."""

from __future__ import annotations

import dataclasses

import pandas as pd

from darkguard.reports.guard_compare import (
    compared_row,
    paper_runs,
    rate_intervals,
    setting,
    versus,
)
from darkguard.stages.guard_eval import GuardResult, GuardRun

IN_FAMILY, HELD_OUT = "training families", "held-out family"


def family_groups(result: GuardResult) -> dict[str, frozenset[str]]:
    """Task ids of the suite by style family group: the families the evaluator was trained on,
    and the held-out family (absent when the build holds none out)."""
    ids = frozenset(str(r["id"]) for r in result.suite)
    if not result.heldout_ids:
        return {}
    return {IN_FAMILY: ids - result.heldout_ids, HELD_OUT: ids & result.heldout_ids}


def restricted(run: GuardRun, ids: frozenset[str]) -> GuardRun:
    """`run` on the tasks `ids` only."""
    return dataclasses.replace(run, episodes=[e for e in run.episodes if str(e.sample_id) in ids])


def transfer(result: GuardResult) -> pd.DataFrame:
    """Each run on the training families' tasks and on the held-out family's, side by side:
    rates with 95% intervals, and each gated run against the same agent alone on the same
    tasks with its exact paired tests and verdict."""
    rows = []
    for group, ids in family_groups(result).items():
        runs = [restricted(r, ids) for r in paper_runs(result)]
        vanilla = {r.agent: r for r in runs if r.evaluator is None}
        rows += [
            {"pages": group, "agent": run.agent, "setting": setting(run)}
            | compared_row(run, vanilla.get(run.agent))
            for run in runs
        ]
    return pd.DataFrame(rows)


def transfer_metrics(result: GuardResult) -> dict:
    """`transfer` for guard.json: per family group, each run's rates, intervals and tests."""
    out = {}
    for group, ids in family_groups(result).items():
        runs = [restricted(r, ids) for r in paper_runs(result)]
        vanilla = {r.agent: r for r in runs if r.evaluator is None}
        out[group] = [
            {
                "agent": r.agent,
                "evaluator": r.evaluator,
                "tasks": len(r.episodes),
                **{k: r.metrics[k] for k in ("SR", "DFR", "NFR")},
                **rate_intervals(r),
                **(
                    {"vs_vanilla": versus(vanilla[r.agent], r)}
                    if r.evaluator is not None and r.agent in vanilla
                    else {}
                ),
            }
            for r in runs
        ]
    return out
