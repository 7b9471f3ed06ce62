"""Report outputs of the `guard_eval` stage: Tables 2, 3 and 7, Figure 3, the MetricTracker
outcome counts (Table 17) and `metrics/guard.json`.

Wall-clock times depend on the machine, so they go to `reports/timings/` (not compared by CI);
everything in `reports/tables/` and `reports/metrics/` is deterministic.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from darkguard import paths
from darkguard.io import write_json
from darkguard.metrics.clicks import OUTCOME_CODES
from darkguard.reports.figures import save_figure
from darkguard.reports.paper import (
    DUDE_NULL_SHARE_OF_VANILLA_FAILURES,
    DUDE_SR_GAIN_PP,
    DUDE_TABLE7_OVERHEAD,
)
from darkguard.reports.tables import save_table
from darkguard.stages.guard_eval import GuardResult, GuardRun


def setting(run: GuardRun) -> str:
    return "vanilla" if run.evaluator is None else f"w/ DUDE ({run.evaluator})"


def domain_table(result: GuardResult) -> pd.DataFrame:
    """Table 2: SR / DFR / Steps per agent, domain and setting (vanilla, w/ DUDE per evaluator)."""
    rows = []
    for run in result.runs:
        groups = {**run.by_domain, "All": run.metrics}
        for domain, m in groups.items():
            rows.append(
                {
                    "agent": run.agent,
                    "setting": setting(run),
                    "domain": domain,
                    "tasks": m["tasks"],
                    "SR": m["SR"],
                    "DFR": m["DFR"],
                    "Steps": m["steps"],
                }
            )
    return pd.DataFrame(rows)


def failure_modes(result: GuardResult) -> pd.DataFrame:
    """Table 3: SR + DFR + NFR = 100 and the share of failures that are null clicks."""
    rows = []
    for run in result.runs:
        m = run.metrics
        failures = m["DFR"] + m["NFR"]
        rows.append(
            {
                "agent": run.agent,
                "setting": setting(run),
                "SR": m["SR"],
                "DFR": m["DFR"],
                "NFR": m["NFR"],
                "null share of failures (%)": round(100 * m["NFR"] / failures, 1)
                if failures
                else 0.0,
            }
        )
    return pd.DataFrame(rows)


def gains(result: GuardResult) -> pd.DataFrame:
    """Figure 3's numbers: SR gain, DFR reduction and steps reduction of each DUDE run over the
    same agent's vanilla run."""
    vanilla = {r.agent: r.metrics for r in result.runs if r.evaluator is None}
    rows = []
    for run in result.runs:
        if run.evaluator is None:
            continue
        base, m = vanilla[run.agent], run.metrics
        rows.append(
            {
                "agent": run.agent,
                "evaluator": run.evaluator,
                "SR gain (pp)": round(m["SR"] - base["SR"], 2),
                "DFR reduction (pp)": round(base["DFR"] - m["DFR"], 2),
                "Steps reduction": round(base["steps"] - m["steps"], 3),
            }
        )
    return pd.DataFrame(rows)


def overhead(result: GuardResult) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 7: tokens per step and steps (deterministic) and wall time per task (timings)."""
    rows, times = [], []
    for run in result.runs:
        m = run.metrics
        rows.append(
            {
                "agent": run.agent,
                "setting": setting(run),
                "tokens per step": m["tokens_per_step"],
                "steps": m["steps"],
            }
        )
        times.append(
            {"agent": run.agent, "setting": setting(run), "s per task": m["seconds_per_task"]}
        )
    return pd.DataFrame(rows), pd.DataFrame(times)


def outcome_counts(result: GuardResult) -> pd.DataFrame:
    """MetricTracker outcome codes (Table 17) over every judged click of each run."""
    return pd.DataFrame(
        [
            {"agent": r.agent, "setting": setting(r), **{c: r.metrics[c] for c in OUTCOME_CODES}}
            for r in result.runs
        ]
    )


def gains_figure(df: pd.DataFrame, profile: str) -> plt.Figure:
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    for ax, col in zip(
        axes, ["SR gain (pp)", "DFR reduction (pp)", "Steps reduction"], strict=True
    ):
        sns.barplot(data=df, x="agent", y=col, hue="evaluator", ax=ax)
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set(title=f"{col} ({profile})", xlabel="")
    fig.suptitle("General performance change with DUDE (paper Fig. 3; higher is better)")
    fig.tight_layout()
    return fig


def write_guard_reports(result: GuardResult, profile: str) -> dict[str, pd.DataFrame]:
    table7, timings = overhead(result)
    tables = {
        "guard/domains": domain_table(result),
        "guard/failure_modes": failure_modes(result),
        "guard/gains": gains(result),
        "guard/overhead": table7,
        "guard/outcomes": outcome_counts(result),
    }
    n = len(result.suite)
    captions = {
        "guard/domains": f"Vanilla agents vs agents with DUDE per domain, {n} test tasks "
        f"(paper Table 2; {profile} profile). Paper (text): SR gain "
        + ", ".join(f"+{v} pp for {k}" for k, v in DUDE_SR_GAIN_PP.items()),
        "guard/failure_modes": f"Failure-mode decomposition, SR + DFR + NFR = 100 (paper Table 3; "
        f"{profile} profile). Paper: {DUDE_NULL_SHARE_OF_VANILLA_FAILURES}% of the vanilla "
        "GLM-4.6V-Flash failures are null-region clicks",
        "guard/gains": f"SR gain, DFR reduction and steps reduction with DUDE (paper Fig. 3; "
        f"{profile} profile)",
        "guard/overhead": f"Overhead: tokens per step (agent + evaluator) and steps per task "
        f"(paper Table 7, UI-TARS-1.5-7B: steps {DUDE_TABLE7_OVERHEAD['vanilla']['steps']} -> "
        f"{DUDE_TABLE7_OVERHEAD['DUDE']['steps']}; {profile} profile; wall time per task in "
        "reports/timings/guard_overhead.md)",
        "guard/outcomes": f"MetricTracker outcome codes over every judged click (paper Table 17; "
        f"{profile} profile)",
    }
    for name, df in tables.items():
        save_table(df, name, captions[name])
    save_table(
        timings,
        "guard_overhead",
        f"Wall time per task on this machine (paper Table 7, UI-TARS-1.5-7B: "
        f"{DUDE_TABLE7_OVERHEAD['vanilla']['seconds']} s -> "
        f"{DUDE_TABLE7_OVERHEAD['DUDE']['seconds']} s; {profile} "
        "profile; machine-dependent, not compared by CI; the offline agent reads each page with "
        "OCR once and caches it, so its first run, the vanilla one, carries the OCR time; tasks "
        "run in lockstep batches, a task's time is its batch's over its tasks)",
        paths.reports_dir() / "timings",
    )
    if not tables["guard/gains"].empty:
        fig = gains_figure(tables["guard/gains"], profile)
        save_figure(fig, "guard/gains")
        plt.close(fig)
    write_json(
        paths.metrics_dir() / "guard.json",
        {
            "profile": profile,
            "tasks": n,
            "runs": [
                {
                    "agent": r.agent,
                    "evaluator": r.evaluator,
                    **{k: r.metrics[k] for k in ("SR", "DFR", "NFR", "steps", "tokens_per_step")},
                }
                for r in result.runs
            ],
        },
    )
    return tables
