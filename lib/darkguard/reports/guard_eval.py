"""Report outputs of the `guard_eval` stage: Tables 2, 3 and 7, Figure 3, the MetricTracker
outcome counts (Table 17), the oracle rows (not in the paper: the agent behind oracles of several
accuracies, their break-even accuracy and ceiling) and `metrics/guard.json`. The paper's tables
hold the vanilla and DUDE runs only. The task-by-task comparisons are in `guard_compare`, the
transfer rows in `guard_transfer`, the oracle rows in `guard_oracle`.

Wall-clock times depend on the machine, so they go to `reports/timings/` (not compared by CI);
everything in `reports/tables/` and `reports/metrics/` is deterministic.
"""

from __future__ import annotations

import dataclasses

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from darkguard import paths
from darkguard.io import write_json
from darkguard.metrics.clicks import OUTCOME_CODES
from darkguard.reports.figures import save_figure
from darkguard.reports.guard_compare import (
    effects,
    paper_runs,
    rate_intervals,
    setting,
    transitions,
    versus,
)
from darkguard.reports.guard_oracle import (
    oracle_caption,
    oracle_metrics,
    oracle_summary,
    oracle_table,
)
from darkguard.reports.guard_transfer import transfer, transfer_metrics
from darkguard.reports.paper import (
    DUDE_NULL_SHARE_OF_VANILLA_FAILURES,
    DUDE_SR_GAIN_PP,
    DUDE_TABLE7_OVERHEAD,
)
from darkguard.reports.tables import save_table
from darkguard.stages.guard_eval import GuardResult


def domain_table(result: GuardResult) -> pd.DataFrame:
    """Table 2: SR / DFR / Steps per agent, domain and setting (vanilla, w/ DUDE per evaluator)."""
    rows = []
    for run in paper_runs(result):
        groups = {**run.by_domain, "All": run.metrics}
        for domain, m in groups.items():
            episodes = [e for e in run.episodes if domain in ("All", e.domain)]
            ci = rate_intervals(dataclasses.replace(run, episodes=episodes))
            rows.append(
                {
                    "agent": run.agent,
                    "setting": setting(run),
                    "domain": domain,
                    "tasks": m["tasks"],
                    "SR": m["SR"],
                    "SR 95% CI": ci["SR 95% CI"],
                    "DFR": m["DFR"],
                    "DFR 95% CI": ci["DFR 95% CI"],
                    "Steps": m["steps"],
                }
            )
    return pd.DataFrame(rows)


def failure_modes(result: GuardResult) -> pd.DataFrame:
    """Table 3: SR + DFR + NFR = 100 and the share of failures that are null clicks."""
    rows = []
    for run in paper_runs(result):
        m = run.metrics
        failures = m["DFR"] + m["NFR"]
        rows.append(
            {
                "agent": run.agent,
                "setting": setting(run),
                "SR": m["SR"],
                "DFR": m["DFR"],
                "NFR": m["NFR"],
                **rate_intervals(run),
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
    for run in paper_runs(result):
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
    for run in paper_runs(result):
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
            for r in paper_runs(result)
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
        "guard/transitions": transitions(result),
        "guard/effects": effects(result),
    }
    if result.heldout_ids:
        tables["guard/transfer"] = transfer(result)
    oracle = oracle_table(result)
    summary = oracle_summary(result)
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
        "guard/transitions": f"Task by task, {n} test tasks: each vanilla result (success, "
        "deceived, null) against the result with DUDE, and the exact two-sided sign test of the "
        f"successes gained against those lost (not in the paper; {profile} profile)",
        "guard/effects": f"Every run on the {n} test tasks with 95% Wilson intervals; each gated "
        "run (DUDE, or an oracle of the given accuracy) against the same agent alone, task by "
        "task: successes gained / lost and deceived episodes avoided / added, each with its exact "
        "two-sided McNemar p, and the verdict those tests allow at 5% (the paper's direction: SR "
        f"up, DFR not up). Not in the paper ({profile} profile)",
        "guard/transfer": f"Transfer: every run on the test tasks of the style families the "
        f"evaluator was trained on and on those of the family held out of all training and "
        f"tuning ({len(result.heldout_ids)} of the {n} tasks), with 95% Wilson intervals; each "
        "DUDE run against the same agent alone on the same tasks (exact two-sided McNemar p) and "
        f"the verdict those tests allow at 5%. Not in the paper ({profile} profile)",
    }
    for name, df in tables.items():
        save_table(df, name, captions[name])
    if result.thresholds:
        gate = pd.DataFrame(
            [gate_row(label, values) for label, values in result.thresholds.items()]
        )
        tables["guard/gate"] = gate
        save_table(gate, "guard/gate", gate_caption(result.settings, profile))
    sweeps = [{"evaluator": label, **row} for label, rows in result.sweeps.items() for row in rows]
    if sweeps:
        sweep = pd.DataFrame(sweeps)
        sweep["threshold"] = sweep["threshold"].map(
            lambda t: "agent alone" if pd.isna(t) else f"{t:.6f}"
        )
        sweep = sweep.astype(object).where(sweep.notna(), "—")
        tables["guard/threshold_sweep"] = sweep
        save_table(
            sweep,
            "guard/threshold_sweep",
            f"The confidence gate's tuning (valid_sr): the agents alone and behind the gate at "
            f"each candidate threshold on the valid split's suite ({len(result.valid_suite)} "
            "tasks, sampled as the test suite), with what each threshold does on the valid "
            "clicks; the pick is the highest SR whose DFR is not above the agents' own "
            f"({profile} profile; the test split is never read)",
        )
    if not oracle.empty:
        tables["guard/oracle"] = oracle
        save_table(oracle, "guard/oracle", oracle_caption(summary, n, profile))
    save_table(
        timings,
        "guard_overhead",
        f"Wall time per task on this machine (paper Table 7, UI-TARS-1.5-7B: "
        f"{DUDE_TABLE7_OVERHEAD['vanilla']['seconds']} s -> "
        f"{DUDE_TABLE7_OVERHEAD['DUDE']['seconds']} s; {profile} "
        "profile; machine-dependent, not compared by CI; the offline agent reads each page with "
        "OCR once and caches it, and the stage reads its pages ahead while the threshold is "
        "tuned, so these runs carry little OCR time (without the read-ahead the first run, the "
        "vanilla one, carries it); tasks run in lockstep batches, a task's time is its batch's "
        "over its tasks)",
        paths.reports_dir() / "timings",
    )
    if not tables["guard/gains"].empty:
        fig = gains_figure(tables["guard/gains"], profile)
        save_figure(fig, "guard/gains")
        plt.close(fig)
    vanilla = {r.agent: r for r in result.runs if r.evaluator is None}
    write_json(
        paths.metrics_dir() / "guard.json",
        {
            "profile": profile,
            "tasks": n,
            "runs": [
                {
                    "agent": r.agent,
                    "evaluator": r.evaluator,
                    "oracle": r.oracle,
                    "experience": r.experience,
                    **{k: r.metrics[k] for k in ("SR", "DFR", "NFR", "steps", "tokens_per_step")},
                    **rate_intervals(r),
                    **(
                        {"vs_vanilla": versus(vanilla[r.agent], r)}
                        if r.evaluator is not None and r.agent in vanilla
                        else {}
                    ),
                }
                for r in result.runs
            ],
            **oracle_metrics(summary),
            "gate": result.settings.gate,
            "thresholds": result.thresholds,
            **({"transfer": transfer_metrics(result)} if result.heldout_ids else {}),
        },
    )
    return tables


def gate_row(label: str, values: dict) -> dict:
    """A gate table row: the threshold, what it does on the valid clicks, and how P(L = 1) ranks
    each agent's own proposals on the valid suite (AUC; 0.5 is chance)."""
    row = {"evaluator": label, **{k: v for k, v in values.items() if k != "agent_proposals"}}
    for agent, d in values.get("agent_proposals", {}).items():
        counts = d["proposals"]
        row[f"{agent} proposals (1/0/-1)"] = f"{counts['1']}/{counts['0']}/{counts['-1']}"
        row[f"{agent} AUC benign vs null"] = d["auc_benign_vs_null"]
        row[f"{agent} AUC benign vs deceptive"] = d["auc_benign_vs_deceptive"]
    return row


def gate_caption(settings, profile: str) -> str:
    """The confidence gate table's caption, by how its threshold was tuned."""
    how = (
        "the highest SR of the agents behind the gate on the valid split's suite whose DFR is "
        "not above the agents' own (guard/threshold_sweep)"
        if settings.threshold_objective == "valid_sr"
        else "the best balanced accuracy on the valid split's clicks plus one null click on "
        "text per valid page, letting at most guard_eval.max_fatal_error_rate of the "
        "deceptive clicks through"
    )
    return (
        "The confidence gate (a declared option, not the paper's gate, which lets a click "
        "through when the generated label is 1): a click executes when P(L=1) of the label "
        f"token reaches the threshold, tuned on the valid split by {how}; what it does on the "
        "valid split's clicks plus one null click on text per valid page "
        f"({profile} profile)"
    )
