"""The oracle rows of the guard stage (not in the paper): the agent behind gates that report
each click's true label with a given accuracy, their ceiling and break-even accuracy."""

from __future__ import annotations

import pandas as pd

from darkguard.reports.guard_compare import setting
from darkguard.stages.guard_eval import GuardResult, GuardRun
from darkguard.stages.guard_eval.oracle import break_even, ceiling


def oracle_runs(result: GuardResult) -> dict[str, list[GuardRun]]:
    """The oracle runs by agent, in the order they ran."""
    by_agent: dict[str, list[GuardRun]] = {}
    for run in result.runs:
        if run.oracle:
            by_agent.setdefault(run.agent, []).append(run)
    return by_agent


def oracle_summary(result: GuardResult) -> dict[str, dict]:
    """Per agent with oracle runs: its vanilla SR, the ceiling (SR behind an oracle of accuracy
    1) and the break-even accuracy (gated SR = vanilla SR, linearly interpolated)."""
    vanilla = {r.agent: r.metrics["SR"] for r in result.runs if r.evaluator is None}
    out = {}
    for agent, runs in oracle_runs(result).items():
        sr = {float(r.accuracy): r.metrics["SR"] for r in runs if r.accuracy is not None}
        base = vanilla.get(agent)
        out[agent] = {
            "vanilla_SR": base,
            "ceiling": ceiling(sr),
            "break_even": None if base is None else break_even(sr, base),
        }
    return out


def oracle_table(result: GuardResult) -> pd.DataFrame:
    """Each agent's oracle rows beside its vanilla row: SR / DFR / NFR / steps and the SR change
    over the vanilla run."""
    vanilla = {r.agent: r for r in result.runs if r.evaluator is None}
    rows = []
    for agent, runs in oracle_runs(result).items():
        base = vanilla.get(agent)
        for run in [base, *runs] if base else runs:
            m = run.metrics
            rows.append(
                {
                    "agent": agent,
                    "setting": setting(run),
                    "oracle accuracy": run.accuracy,
                    "SR": m["SR"],
                    "DFR": m["DFR"],
                    "NFR": m["NFR"],
                    "Steps": m["steps"],
                    "SR vs vanilla (pp)": round(m["SR"] - base.metrics["SR"], 2) if base else None,
                }
            )
    return pd.DataFrame(rows)


def oracle_metrics(summary: dict[str, dict]) -> dict:
    """guard.json's oracle keys: the oracle agent, its ceiling and break-even accuracy (None
    without oracle runs; the first agent's when several have them)."""
    agent = next(iter(summary), None)
    first = summary.get(agent, {}) if agent else {}
    return {
        "oracle_agent": agent,
        "oracle_ceiling": first.get("ceiling"),
        "oracle_break_even": first.get("break_even"),
    }


def oracle_caption(summary: dict[str, dict], n: int, profile: str) -> str:
    """The oracle table's caption: what an oracle is, and each agent's ceiling and break-even."""
    notes = "; ".join(
        f"{agent}: ceiling SR {s['ceiling'] if s['ceiling'] is not None else '—'} "
        f"(accuracy 1), break-even accuracy {s['break_even']} (vanilla SR {s['vanilla_SR']})"
        for agent, s in summary.items()
    )
    return (
        f"The agent behind an oracle gate, {n} test tasks (not in the paper; {profile} profile): "
        "an evaluation instrument that reports each click's true label with probability p "
        "(otherwise one of the two other labels) and allows the click iff it reports 1. "
        f"Break-even: the accuracy at which the gated SR equals the vanilla SR. {notes}"
    )
