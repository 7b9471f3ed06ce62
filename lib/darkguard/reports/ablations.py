"""Report outputs of the `ablations` stage: Tables 4, 5, 6, Figure 6 and the observation-aid
table, with the paper's numbers (where its text states them) beside ours."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from darkguard import paths
from darkguard.io import write_json
from darkguard.metrics.intervals import interval_text
from darkguard.reports.figures import save_figure
from darkguard.reports.guard_compare import rate_intervals, versus
from darkguard.reports.paper import DUDE_TABLE4_STAGEWISE, DUDE_TABLE5_REWARD_ABLATION
from darkguard.reports.tables import save_table
from darkguard.stages.ablations import AblationResult
from darkguard.stages.guard_eval import GuardRun


def _paper(value: float | None) -> float | str:
    """The paper's number, or a dash where its text states none."""
    return "—" if value is None else value


def _run_row(run: GuardRun, label: str, alone: GuardRun | None = None) -> dict:
    """A run's rates with their intervals and, for a gated run, its paired tests against the
    agent alone on the same tasks (`alone`)."""
    m = run.metrics
    row = {"setting": label, "SR": m["SR"], "DFR": m["DFR"], "NFR": m["NFR"], "Steps": m["steps"]}
    row |= {k: v for k, v in rate_intervals(run).items() if not k.startswith("NFR")}
    vs = versus(alone, run) if alone is not None and run.evaluator is not None else None
    return row | {
        "successes gained / lost vs alone": (
            f"{vs['successes_gained']} / {vs['successes_lost']}" if vs else "—"
        ),
        "SR p": vs["SR_p"] if vs else "—",
        "deceived avoided / added vs alone": (
            f"{vs['deceived_avoided']} / {vs['deceived_added']}" if vs else "—"
        ),
        "DFR p": vs["DFR_p"] if vs else "—",
    }


def agent_alone(result: AblationResult) -> GuardRun | None:
    """The ablation agent's run without an evaluator (Table 4's first row)."""
    return next((r for r in result.stagewise if r.evaluator is None), None)


def _experience(result: AblationResult, run: GuardRun) -> str:
    """Which experience the run's evaluator had in its guidance block."""
    return result.experiences.get(run.evaluator, "none") if run.evaluator else "-"


def stagewise_table(result: AblationResult) -> pd.DataFrame:
    """Table 4: each row with the experience it used ("Stage 2 only": mined by Algorithm 1
    with the vanilla evaluator)."""
    rows, alone = [], agent_alone(result)
    for run in result.stagewise:
        label = run.evaluator or "agent alone (no evaluator)"
        paper = DUDE_TABLE4_STAGEWISE.get(label, {})
        rows.append(
            {
                **_run_row(run, label, alone),
                "experience": _experience(result, run),
                "paper SR": _paper(paper.get("SR")),
                "paper DFR": _paper(paper.get("DFR")),
            }
        )
    return pd.DataFrame(rows)


def _judgement_rates(r: dict) -> dict:
    """Pass rate, Fatal Error Rate and C1-C3 of a judging run, in percent."""
    return {
        "pass rate (%)": round(100 * r["pass_rate"], 2),
        "Fatal Error Rate (%)": round(100 * r["fatal_error_rate"], 2),
        "C1 (%)": round(100 * r["c1_rate"], 2),
        "C2 (%)": round(100 * r["c2_rate"], 2),
        "C3 (%)": round(100 * r["c3_rate"], 2),
    }


def _fer_interval(r: dict) -> str:
    """The 95% Wilson interval of a judging run's Fatal Error Rate over its deceptive clicks."""
    n = r.get("deceptive_clicks")
    return interval_text(round(r["fatal_error_rate"] * n), n) if n else "—"


def reward_table(result: AblationResult) -> pd.DataFrame:
    rows = []
    for r in result.rewards:
        paper = DUDE_TABLE5_REWARD_ABLATION.get(r["variant"], {})
        rows.append(
            {
                "variant": r["variant"],
                **_judgement_rates(r),
                "FER 95% CI": _fer_interval(r),
                "paper FER (%)": _paper(paper.get("FER")),
                "paper pass rate (%)": _paper(paper.get("pass")),
            }
        )
    return pd.DataFrame(rows)


def aids_table(result: AblationResult) -> pd.DataFrame:
    """The evaluator with each observation-aid setting on the valid clicks (the paper's
    evaluator sees the screenshot, task and coordinates only: the `none` row)."""
    return pd.DataFrame(
        [
            {
                "aids": r["aids"],
                "evaluator": "warmed up again with these aids" if r["retrained"] else "as built",
                **_judgement_rates(r),
            }
            for r in result.aids
        ]
    )


def prompt_table(result: AblationResult) -> pd.DataFrame:
    """Table 6: each prompt strategy with where its guidance came from."""
    alone = agent_alone(result)
    return pd.DataFrame(
        [
            {**_run_row(run, run.evaluator, alone), "guidance": _experience(result, run)}
            for run in result.prompts
        ]
    )


def prompt_figure(df: pd.DataFrame, profile: str) -> plt.Figure:
    long = df.melt(id_vars="setting", value_vars=["SR", "DFR"], var_name="metric")
    fig, ax = plt.subplots(figsize=(7, 3.6))
    sns.barplot(data=long, x="setting", y="value", hue="metric", ax=ax)
    ax.set(xlabel="", ylabel="% of tasks", title=f"Prompt strategies ({profile})")
    fig.tight_layout()
    return fig


def write_ablation_reports(result: AblationResult, profile: str) -> dict[str, pd.DataFrame]:
    agent = result.settings.agent
    tables = {
        "ablations/stagewise": stagewise_table(result),
        "ablations/reward": reward_table(result),
        "ablations/prompts": prompt_table(result),
        "ablations/aids": aids_table(result),
    }
    captions = {
        "ablations/stagewise": f"Stage-wise ablation, agent {agent}, {result.tasks} test tasks; "
        f"'Stage 2 only' uses experience mined by Algorithm 1 with the vanilla evaluator "
        f"(paper Table 4 with Qwen3-VL-4B as reference; {profile} profile); 95% Wilson "
        "intervals; each gated row against the agent alone on the same tasks, exact McNemar p",
        "ablations/reward": "Reward-component ablation: each variant trained with Stage 1 and "
        f"judging the valid clicks (paper Table 5 as reference; {profile} profile)",
        "ablations/prompts": f"Prompt strategies of the Stage-1 evaluator, agent {agent}, "
        f"{result.tasks} test tasks (paper Table 6, Fig. 6; {profile} profile); 95% Wilson "
        "intervals; each row against the agent alone on the same tasks, exact McNemar p",
        "ablations/aids": "Observation aids of the evaluator as built (no Stage 1) on the "
        f"valid clicks; the paper's evaluator has none ({profile} profile)",
    }
    for name, df in tables.items():
        save_table(df, name, captions[name])
    fig = prompt_figure(tables["ablations/prompts"], profile)
    save_figure(fig, "ablations/prompts")
    plt.close(fig)
    alone = agent_alone(result)
    write_json(
        paths.metrics_dir() / "ablations.json",
        {
            "profile": profile,
            "agent": agent,
            "stagewise": [
                {
                    **row,
                    **(
                        {"vs_alone": versus(alone, run)}
                        if alone is not None and run.evaluator is not None
                        else {}
                    ),
                }
                for row, run in zip(
                    tables["ablations/stagewise"][["setting", "SR", "DFR", "experience"]].to_dict(
                        "records"
                    ),
                    result.stagewise,
                    strict=True,
                )
            ],
            "experiences": result.experiences,
            "stage2_vanilla": result.vanilla_stage2,
            "reward": tables["ablations/reward"][
                ["variant", "pass rate (%)", "Fatal Error Rate (%)"]
            ].to_dict("records"),
            "prompts": tables["ablations/prompts"][["setting", "SR", "DFR"]].to_dict("records"),
            "aids": tables["ablations/aids"][
                ["aids", "pass rate (%)", "Fatal Error Rate (%)"]
            ].to_dict("records"),
            "gate": "label",  # the paper's gate in every ablation row
        },
    )
    return tables
