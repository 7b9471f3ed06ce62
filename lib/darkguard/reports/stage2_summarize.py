"""Report outputs of the `stage2_summarize` stage: the final experience (App. G.5), the iteration
log and pool-dynamics figure, and the sweeps of App. H (Tables 18 and 19)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from darkguard import paths
from darkguard.io import atomic_write_text, write_json
from darkguard.reports.figures import save_figure
from darkguard.reports.paper import (
    DUDE_EXPERIENCE_TOKENS,
    DUDE_TABLE18_INITIAL_POOLS,
    DUDE_TABLE19_BATCH_SIZES,
    DUDE_TABLE19_FINAL_SUCCESS,
    DUDE_TABLE19_FINAL_SUCCESS_RANGE,
)
from darkguard.reports.tables import save_table
from darkguard.stages.stage2_summarize import Stage2Result

GUIDANCE_TARGET = 0.10  # unrelated text of the experience's length changes < 10% of decisions
UNRELATED = "unrelated text, same length"


def iterations_table(result: Stage2Result) -> pd.DataFrame:
    """The iteration log: pools, the proposal's validation numbers and whether it was kept
    (`accepted`: empty at iteration 0, always true under `last`), the current experience's."""
    return pd.DataFrame(result.state.log)


def guidance_table(rows: list[dict]) -> pd.DataFrame:
    """`guidance_check`'s rows with the target of the unrelated-text control (decisions it
    changes < 10%) and whether it is met; the other rows have no target."""
    target = f"< {GUIDANCE_TARGET:.0%} of decisions changed"
    met = "yes" if guidance_met(rows) else "no"
    return pd.DataFrame(
        [
            {**row, "target": target, "meets target": met}
            if row["guidance"] == UNRELATED
            else {**row, "target": "-", "meets target": "-"}
            for row in rows
        ]
    )


def guidance_met(rows: list[dict]) -> bool | None:
    """Whether unrelated text changed fewer than 10% of decisions (None: not measured)."""
    unrelated = [r["decisions_changed"] for r in rows if r["guidance"] == UNRELATED]
    return unrelated[0] < GUIDANCE_TARGET if unrelated else None


def pool_figure(log: pd.DataFrame, profile: str) -> plt.Figure:
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.5))
    long = log.melt(id_vars="iteration", value_vars=["failure", "success"], var_name="pool")
    sns.lineplot(data=long, x="iteration", y="value", hue="pool", marker="o", ax=ax1)
    ax1.set(ylabel="samples", title=f"Pool dynamics ({profile})")
    sns.lineplot(data=log, x="iteration", y="valid_pass_rate", marker="o", ax=ax2)
    ax2.set(ylabel="pass rate", title=f"Validation pass rate ({profile})")
    fig.tight_layout()
    return fig


def summary_table(result: Stage2Result, profile: str, experience_tokens: int) -> pd.DataFrame:
    state = result.state
    return pd.DataFrame(
        [
            {
                "Run": f"ours ({profile})",
                "Initial |S|": result.initial_success,
                "Initial |F|": result.initial_failure,
                "Final |S|": len(state.success),
                "Final |F|": len(state.failure),
                "Iterations": state.log[-1]["iteration"],
                "Acceptance": result.settings.loop.acceptance,
                "Rejected proposals": sum(r["accepted"] is False for r in state.log),
                "Valid pass rate before (%)": round(100 * result.valid_before, 2),
                "Valid pass rate after (%)": round(100 * result.valid_after, 2),
                "Experience tokens": experience_tokens,
            },
            {
                "Run": "paper (Tables 18-19, Qwen3-VL-4B; reference)",
                "Initial |S|": DUDE_TABLE18_INITIAL_POOLS["success"],
                "Initial |F|": DUDE_TABLE18_INITIAL_POOLS["failure"],
                "Final |S|": "{}-{}".format(*DUDE_TABLE19_FINAL_SUCCESS_RANGE),
                "Final |F|": "-",
                "Iterations": f"{min(DUDE_TABLE19_FINAL_SUCCESS)}-"
                f"{max(DUDE_TABLE19_FINAL_SUCCESS)}",
                "Acceptance": "last",
                "Rejected proposals": "-",
                "Valid pass rate before (%)": "-",
                "Valid pass rate after (%)": "-",
                "Experience tokens": "~{}-{}".format(*DUDE_EXPERIENCE_TOKENS),
            },
        ]
    )


def sweep_tables(result: Stage2Result, profile: str) -> dict[str, pd.DataFrame]:
    batch = [s for s in result.sweeps if s["sweep"] == "batch"]
    iters = [s for s in result.sweeps if s["sweep"] == "iterations"]
    tables = {}
    if batch:
        tables["stage2/batch_sweep"] = pd.DataFrame(
            [
                {
                    "|B_f|": s["failure_batch"],
                    "|B_s|": s["anchor_batch"],
                    f"Final success count ({profile})": s["final_success"],
                    "Iterations run": s["iterations"],
                    "Valid pass rate (%)": round(100 * s["valid_pass_rate"], 2),
                }
                for s in batch
            ]
        )
    if iters:
        tables["stage2/iteration_sweep"] = pd.DataFrame(
            [
                {
                    "Max iterations T": s["max_iterations"],
                    f"Final success count ({profile})": s["final_success"],
                    "Iterations run": s["iterations"],
                    "Rejected proposals": s["rejected"],
                    "Paper (Table 19; reference)": DUDE_TABLE19_FINAL_SUCCESS.get(
                        s["max_iterations"], "-"
                    ),
                }
                for s in iters
            ]
        )
    return tables


def write_stage2_reports(
    result: Stage2Result, profile: str, experience_tokens: int
) -> dict[str, pd.DataFrame]:
    experience = result.state.experience or "(empty)"
    atomic_write_text(
        paths.reports_dir() / "experience" / "stage2.md",
        f"# Stage-2 experience ({profile} profile)\n\n"
        f"Injected into the evaluator's [IMPORTANT GUIDANCE] block.\n\n```\n{experience}\n```\n",
    )
    log = iterations_table(result)
    tables = {
        "stage2/summary": summary_table(result, profile, experience_tokens),
        "stage2/iterations": log,
        "stage2/guidance_check": guidance_table(result.guidance_check),
        **sweep_tables(result, profile),
    }
    captions = {
        "stage2/summary": f"Stage 2: pools and validation pass rate before and after ({profile} "
        "profile; the paper's row is its reference)",
        "stage2/iterations": f"Stage 2 iteration log: pool sizes, each proposal's validation "
        f"pass rate and benign acceptance and whether it was kept (acceptance "
        f"`{result.settings.loop.acceptance}`), the kept experience's numbers and length "
        f"({profile} profile)",
        "stage2/guidance_check": f"Does the evaluator follow the experience? Validation pass "
        f"rate and decisions changed against no experience, for the final experience, the same "
        f"rules with their advised labels rotated, and unrelated text; target: unrelated text "
        f"changes < {GUIDANCE_TARGET:.0%} of decisions ({profile} profile)",
        "stage2/batch_sweep": f"Stage 2: final success count per failure and anchor batch size "
        f"(paper Table 18 axes; {profile} profile)",
        "stage2/iteration_sweep": f"Stage 2: final success count per iteration budget T, "
        f"each run for exactly T iterations (no patience stop) unless F empties "
        f"(paper Table 19, |B_f| = {DUDE_TABLE19_BATCH_SIZES['B_f']}, "
        f"|B_s| = {DUDE_TABLE19_BATCH_SIZES['B_s']}; {profile} profile, paper as reference)",
    }
    for name, df in tables.items():
        save_table(df, name, captions[name])
    atomic_write_text(
        paths.reports_dir() / "plots" / "stage2_iterations.csv",
        log[["iteration", "failure", "success", "valid_pass_rate"]].to_csv(
            index=False, lineterminator="\n"
        ),
    )
    fig = pool_figure(log, profile)
    save_figure(fig, "stage2/pool_dynamics")
    plt.close(fig)
    write_json(
        paths.metrics_dir() / "stage2.json",
        {
            "profile": profile,
            "initial_success": result.initial_success,
            "initial_failure": result.initial_failure,
            "final_success": len(result.state.success),
            "final_failure": len(result.state.failure),
            "iterations": result.state.log[-1]["iteration"],
            "valid_pass_rate_before": result.valid_before,
            "valid_pass_rate_after": result.valid_after,
            "experience_tokens": experience_tokens,
            "acceptance": result.settings.loop.acceptance,
            "rejected_proposals": sum(r["accepted"] is False for r in result.state.log),
            "benign_acceptance_before": result.state.log[0]["benign_acceptance"],
            "benign_acceptance_after": result.state.log[-1]["benign_acceptance"],
            "guidance_check": result.guidance_check,
            "guidance_target": f"unrelated text changes < {GUIDANCE_TARGET:.0%} of decisions",
            "guidance_meets_target": guidance_met(result.guidance_check),
        },
    )
    return tables
