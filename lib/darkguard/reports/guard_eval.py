"""Report outputs of the `guard_eval` stage: Tables 2, 3 and 7, Figure 3, the MetricTracker
outcome counts (Table 17), the oracle rows (not in the paper: the agent behind oracles of several
accuracies, their break-even accuracy and ceiling) and `metrics/guard.json`. The paper's tables
hold the vanilla and DUDE runs only.

Wall-clock times depend on the machine, so they go to `reports/timings/` (not compared by CI);
everything in `reports/tables/` and `reports/metrics/` is deterministic.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from darkguard import paths
from darkguard.io import write_json
from darkguard.metrics.clicks import OUTCOME_CODES
from darkguard.metrics.intervals import interval_text
from darkguard.metrics.paired import guard_effect, paired
from darkguard.reports.figures import save_figure
from darkguard.reports.paper import (
    DUDE_NULL_SHARE_OF_VANILLA_FAILURES,
    DUDE_SR_GAIN_PP,
    DUDE_TABLE7_OVERHEAD,
)
from darkguard.reports.tables import save_table
from darkguard.stages.guard_eval import GuardResult, GuardRun
from darkguard.stages.guard_eval.oracle import break_even, ceiling


def setting(run: GuardRun) -> str:
    if run.oracle:
        return f"w/ {run.evaluator}"
    return "vanilla" if run.evaluator is None else f"w/ DUDE ({run.evaluator})"


def paper_runs(result: GuardResult) -> list[GuardRun]:
    """The vanilla and DUDE runs (the oracle runs aside)."""
    return [r for r in result.runs if not r.oracle]


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


def effects(result: GuardResult) -> pd.DataFrame:
    """Every run with its rates' intervals; each gated run (DUDE or an oracle) against the same
    agent alone, task by task, with the exact paired tests and the verdict they allow."""
    vanilla = {r.agent: r for r in result.runs if r.evaluator is None}
    rows = []
    for run in result.runs:
        m, base = run.metrics, vanilla.get(run.agent)
        row = {"agent": run.agent, "setting": setting(run), "N": len(run.episodes)}
        row |= {"SR": m["SR"], "DFR": m["DFR"], "NFR": m["NFR"], **rate_intervals(run)}
        vs = versus(base, run) if run.evaluator is not None and base is not None else None
        row |= {
            "successes gained / lost": f"{vs['successes_gained']} / {vs['successes_lost']}"
            if vs
            else "—",
            "SR p": vs["SR_p"] if vs else "—",
            "deceived avoided / added": f"{vs['deceived_avoided']} / {vs['deceived_added']}"
            if vs
            else "—",
            "DFR p": vs["DFR_p"] if vs else "—",
            "verdict": vs["claim"].split(": ", 1)[1] if vs else "—",
        }
        rows.append(row)
    return pd.DataFrame(rows)


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
        for run in runs:
            m, base = run.metrics, vanilla.get(run.agent)
            vs = versus(base, run) if run.evaluator is not None and base is not None else None
            rows.append(
                {
                    "pages": group,
                    "agent": run.agent,
                    "setting": setting(run),
                    "N": len(run.episodes),
                    "SR": m["SR"],
                    "DFR": m["DFR"],
                    "NFR": m["NFR"],
                    **rate_intervals(run),
                    "successes gained / lost": f"{vs['successes_gained']} / {vs['successes_lost']}"
                    if vs
                    else "—",
                    "SR p": vs["SR_p"] if vs else "—",
                    "deceived avoided / added": (
                        f"{vs['deceived_avoided']} / {vs['deceived_added']}" if vs else "—"
                    ),
                    "DFR p": vs["DFR_p"] if vs else "—",
                    "verdict": vs["claim"].split(": ", 1)[1] if vs else "—",
                }
            )
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
