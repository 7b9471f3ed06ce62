"""Report outputs of the `stage1_grpo` stage: training dynamics (paper Fig. 4a, 4b, 5), the
before/after table on the valid split, and the pool sizes."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from darkguard import paths
from darkguard.io import atomic_write_text, write_json
from darkguard.reports.figures import save_figure
from darkguard.reports.paper import DUDE_TABLE5_REWARD_ABLATION, DUDE_TABLE18_INITIAL_POOLS
from darkguard.reports.tables import save_table
from darkguard.stages.stage1_grpo import Stage1Result
from darkguard.training.dude.stage1 import Pools

DYNAMICS_COLUMNS = {
    "reward": "reward",
    "reward_std": "reward_std",
    "entropy": "entropy",
    "kl": "kl",
    "loss": "loss",
    "frac_reward_zero_std": "frac_reward_zero_std",
}


def dynamics_frame(log_history: list[dict]) -> pd.DataFrame:
    """One row per training step with reward, entropy, KL and loss (trl's log history)."""
    rows = [
        {"step": e["step"], **{k: e.get(v) for k, v in DYNAMICS_COLUMNS.items()}}
        for e in log_history
        if "reward" in e and "step" in e
    ]
    return pd.DataFrame(rows).round(6)


def dynamics_figures(frame: pd.DataFrame, label: str) -> dict[str, plt.Figure]:
    """Reward vs step (Fig. 4a), entropy vs step (Fig. 4b), reward vs entropy by step (Fig. 5)."""
    figures = {}
    for column, title in (("reward", "Reward"), ("entropy", "Policy entropy")):
        fig, ax = plt.subplots(figsize=(6, 3.5))
        sns.lineplot(data=frame, x="step", y=column, ax=ax, alpha=0.35, label="per step")
        smooth = frame[column].rolling(10, min_periods=1).mean()
        sns.lineplot(x=frame["step"], y=smooth, ax=ax, label="mean of 10 steps")
        ax.set(title=f"Stage 1: {title.lower()} during GRPO ({label})", ylabel=title)
        fig.tight_layout()
        figures[f"stage1/{column}"] = fig
    fig, ax = plt.subplots(figsize=(5.5, 4))
    points = ax.scatter(frame["entropy"], frame["reward"], c=frame["step"], cmap="viridis", s=18)
    fig.colorbar(points, ax=ax, label="step")
    ax.set(xlabel="policy entropy", ylabel="reward", title=f"Reward vs entropy ({label})")
    fig.tight_layout()
    figures["stage1/reward_entropy"] = fig
    return figures


IN_FAMILY = "training families (valid)"
HELD_OUT = "held-out family (heldout_valid)"


def _row(name: str, pools: Pools, pages: str = IN_FAMILY) -> dict:
    rewards = [e["reward"] for e in pools.failure + pools.success]
    m = pools.metrics
    return {
        "Evaluator": name,
        "Pages": pages,
        "Pass rate (%)": round(100 * m["pass_rate"], 2),
        "Fatal Error Rate C4 (%)": round(100 * m["c4_fatal_error_rate"], 2),
        "C1 (%)": round(100 * m["c1_rate"], 2),
        "C2 (%)": round(100 * m["c2_rate"], 2),
        "C3 (%)": round(100 * m["c3_rate"], 2),
        "Parse failures (%)": round(100 * m["parse_failure_rate"], 2),
        # two decimals: a reward carries the confidence the evaluator writes, and a greedy
        # confidence digit can differ between CPUs on a near tie (one click of 247 moved the
        # held-out mean by 6e-4 between two machines); the rates above are counts
        "Mean reward": round(sum(rewards) / len(rewards), 2),
    }


def before_after_table(result: Stage1Result, profile: str) -> pd.DataFrame:
    rows = [
        _row(f"{result.evaluator.name} before Stage 1 ({profile})", result.before),
        _row(f"{result.tuned.name} after Stage 1 ({profile})", result.after),
    ]
    if result.heldout_before is not None and result.heldout_after is not None:
        rows += [
            _row(
                f"{result.evaluator.name} before Stage 1 ({profile})",
                result.heldout_before,
                HELD_OUT,
            ),
            _row(f"{result.tuned.name} after Stage 1 ({profile})", result.heldout_after, HELD_OUT),
        ]
    paper = {k: "-" for k in rows[0]}
    paper["Evaluator"] = "paper: Qwen3-VL-2B + Stage 1, full reward (Table 5; reference)"
    paper["Pages"] = "RUC test"
    paper["Fatal Error Rate C4 (%)"] = DUDE_TABLE5_REWARD_ABLATION["full"]["FER"]
    return pd.DataFrame([*rows, paper])


def pools_table(result: Stage1Result, profile: str, split: str) -> pd.DataFrame:
    rows = [
        {
            "Pool": f"ours ({profile}), {split} clicks",
            "Failure |F|": len(result.pools.failure),
            "Success |S|": len(result.pools.success),
        },
        {
            "Pool": "paper: initial pools (Table 18; reference)",
            "Failure |F|": DUDE_TABLE18_INITIAL_POOLS["failure"],
            "Success |S|": DUDE_TABLE18_INITIAL_POOLS["success"],
        },
    ]
    return pd.DataFrame(rows)


def write_stage1_reports(result: Stage1Result, profile: str, split: str) -> dict[str, pd.DataFrame]:
    frame = dynamics_frame(result.log_history)
    atomic_write_text(
        paths.reports_dir() / "plots" / "stage1_dynamics.csv",
        frame.to_csv(index=False, lineterminator="\n"),
    )
    for name, fig in dynamics_figures(frame, profile).items():
        save_figure(fig, name)
        plt.close(fig)
    table = before_after_table(result, profile)
    save_table(
        table,
        "stage1/before_after",
        f"Stage 1 on the valid-split clicks, of the style families it trained on and of the "
        f"held-out family: the evaluator before and after hybrid-reward GRPO ({profile} profile; "
        "the paper's row is its reference number)",
    )
    pools = pools_table(result, profile, split)
    save_table(
        pools,
        "stage1/pools",
        f"Failure and success pools after Stage 1 ({profile} profile; the paper's row is its "
        "reference number)",
    )
    first, last = frame.head(10)["reward"].mean(), frame.tail(10)["reward"].mean()
    write_json(
        paths.metrics_dir() / "stage1.json",
        {
            "profile": profile,
            "evaluator": result.evaluator.name,
            "steps": int(frame["step"].max()) if len(frame) else 0,
            "reward_first10": round(float(first), 4),
            "reward_last10": round(float(last), 4),
            "valid_before": result.before.metrics,
            "valid_after": result.after.metrics,
            **(
                {
                    "heldout_before": result.heldout_before.metrics,
                    "heldout_after": result.heldout_after.metrics,
                }
                if result.heldout_after is not None and result.heldout_before is not None
                else {}
            ),
            "failure_pool": len(result.pools.failure),
            "success_pool": len(result.pools.success),
        },
    )
    return {"stage1/before_after": table, "stage1/pools": pools}
