"""The `report` stage: `reports/README.md`, an index mapping every table and figure to the paper,
its notebook and its DVC stage, and the headline table of the DUDE pipeline."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from darkguard import paths
from darkguard.io import atomic_write_text, read_json
from darkguard.reports.paper import (
    DUDE_TABLE4_STAGEWISE,
    DUDE_TABLE5_REWARD_ABLATION,
    DUDE_TABLE18_INITIAL_POOLS,
    DUDE_TABLE19_FINAL_SUCCESS,
)
from darkguard.reports.tables import save_table


@dataclass(frozen=True)
class Output:
    files: tuple[str, ...]  # paths under reports/ (`{csv,md}` stands for both)
    paper: str
    stage: str


NOTEBOOKS = {
    "build_ruc": "01_build_ruc",
    "build_models": "02_build_models",
    "stage1_grpo": "03_stage1_grpo",
    "stage2_summarize": "04_stage2_summarize",
    "guard_eval": "05_guard_eval",
    "ablations": "06_ablations",
    "arena_eval": "07_arena",
    "arena_synth": "08_arena_synth",
    "veer_eval": "09_veer",
    "veer_ablations": "10_veer_ablations",
    "report": "11_report",
}

OUTPUTS = [
    Output(("tables/ruc/composition.{csv,md}",), "Table 1", "build_ruc"),
    Output(("tables/ruc/sources.{csv,md}",), "Table 9", "build_ruc"),
    Output(
        ("tables/ruc/resolution.{csv,md}", "tables/ruc/resolution_counts.{csv,md}"),
        "Table 11",
        "build_ruc",
    ),
    Output(("tables/ruc/box_areas.{csv,md}",), "Table 12", "build_ruc"),
    Output(
        ("tables/ruc/split.{csv,md}", "tables/ruc/split_by_category.{csv,md}"),
        "Table 13",
        "build_ruc",
    ),
    Output(
        ("tables/ruc/families.{csv,md}",),
        "— (not in the paper: RUC-synth's style families, one held out of training)",
        "build_ruc",
    ),
    Output(("tables/ruc/clicks.{csv,md}",), "§3.2.1, App. D", "build_ruc"),
    Output(("figures/ruc/examples.png",), "App. I", "build_ruc"),
    Output(("metrics/ruc.json",), "—", "build_ruc"),
    Output(
        ("tables/models/warmup.{csv,md}", "tables/models/warmup_confusion.{csv,md}"),
        "— (tiny profile only)",
        "build_models",
    ),
    Output(("tables/models/agents.{csv,md}",), "— (tiny profile only)", "build_models"),
    Output(("figures/models/warmup_loss.png",), "— (tiny profile only)", "build_models"),
    Output(("metrics/models.json",), "—", "build_models"),
    Output(
        ("tables/models/seed_spread.{csv,md}",),
        "— (not in the paper: differences against the seed spread of the tiny trainings)",
        "build_models",
    ),
    Output(("tables/stage1/before_after.{csv,md}",), "Table 5 (full reward)", "stage1_grpo"),
    Output(("tables/stage1/pools.{csv,md}",), "Table 18 (initial pools)", "stage1_grpo"),
    Output(
        ("tables/stage1/seed_spread.{csv,md}",),
        "— (not in the paper: differences against the seed spread of the tiny trainings)",
        "stage1_grpo",
    ),
    Output(
        ("figures/stage1/reward.png", "figures/stage1/entropy.png"), "Fig. 4a, 4b", "stage1_grpo"
    ),
    Output(("figures/stage1/reward_entropy.png",), "Fig. 5", "stage1_grpo"),
    Output(
        ("plots/stage1_dynamics.csv",),
        "Fig. 4a, 4b (DVC plots `stage1_reward`, `stage1_entropy`)",
        "stage1_grpo",
    ),
    Output(("metrics/stage1.json",), "—", "stage1_grpo"),
    Output(("experience/stage2.md",), "App. G.5", "stage2_summarize"),
    Output(("tables/stage2/summary.{csv,md}",), "§5.6, Table 18 (pools)", "stage2_summarize"),
    Output(
        ("tables/stage2/iterations.{csv,md}", "figures/stage2/pool_dynamics.png"),
        "App. G",
        "stage2_summarize",
    ),
    Output(
        ("plots/stage2_iterations.csv",),
        "App. G (DVC plots `stage2_pools`, `stage2_valid_pass_rate`)",
        "stage2_summarize",
    ),
    Output(
        ("tables/stage2/guidance_check.{csv,md}",),
        "— (does the evaluator follow the experience?)",
        "stage2_summarize",
    ),
    Output(("tables/stage2/batch_sweep.{csv,md}",), "Table 18", "stage2_summarize"),
    Output(("tables/stage2/iteration_sweep.{csv,md}",), "Table 19", "stage2_summarize"),
    Output(("metrics/stage2.json",), "—", "stage2_summarize"),
    Output(("tables/guard/domains.{csv,md}",), "Table 2", "guard_eval"),
    Output(("tables/guard/failure_modes.{csv,md}",), "Table 3", "guard_eval"),
    Output(("tables/guard/gains.{csv,md}", "figures/guard/gains.png"), "Fig. 3", "guard_eval"),
    Output(
        ("tables/guard/overhead.{csv,md}", "timings/guard_overhead.{csv,md}"),
        "Table 7",
        "guard_eval",
    ),
    Output(("tables/guard/outcomes.{csv,md}",), "Table 17 (MetricTracker)", "guard_eval"),
    Output(("tables/guard/oracle.{csv,md}",), "— (not in the paper: oracle gates)", "guard_eval"),
    Output(("tables/guard/gate.{csv,md}",), "— (not in the paper: confidence gate)", "guard_eval"),
    Output(
        ("tables/guard/threshold_sweep.{csv,md}",),
        "— (not in the paper: the confidence gate's tuning on the valid split)",
        "guard_eval",
    ),
    Output(
        ("tables/guard/transitions.{csv,md}",),
        "— (not in the paper: task-by-task results with and without DUDE)",
        "guard_eval",
    ),
    Output(
        ("tables/guard/effects.{csv,md}",),
        "— (not in the paper: intervals, paired tests and verdicts of every run)",
        "guard_eval",
    ),
    Output(
        ("tables/guard/transfer.{csv,md}",),
        "— (not in the paper: the training style families' tasks beside the held-out family's)",
        "guard_eval",
    ),
    Output(("metrics/guard.json",), "—", "guard_eval"),
    Output(
        ("tables/guard/seed_spread.{csv,md}",),
        "— (not in the paper: differences against the seed spread of the tiny trainings)",
        "guard_eval",
    ),
    Output(("tables/ablations/stagewise.{csv,md}",), "Table 4", "ablations"),
    Output(("tables/ablations/reward.{csv,md}",), "Table 5", "ablations"),
    Output(
        ("tables/ablations/seed_spread.{csv,md}",),
        "— (not in the paper: differences against the seed spread of the tiny trainings)",
        "ablations",
    ),
    Output(
        ("tables/ablations/prompts.{csv,md}", "figures/ablations/prompts.png"),
        "Table 6, Fig. 6",
        "ablations",
    ),
    Output(("tables/ablations/aids.{csv,md}",), "— (not in the paper)", "ablations"),
    Output(("metrics/ablations.json",), "—", "ablations"),
    Output(
        ("tables/arena/no_defense.{csv,md}",), "Veer Tables 1, 2, 11-14 (No-Defense)", "arena_eval"
    ),
    Output(
        ("tables/arena/single_conditions.{csv,md}",), "Veer Table 15 (No-Defense)", "arena_eval"
    ),
    Output(("tables/arena/multi_conditions.{csv,md}",), "— (Multi by combination)", "arena_eval"),
    Output(
        ("tables/arena/webdecept_scenarios.{csv,md}",), "Veer Table 16 (No-Defense)", "arena_eval"
    ),
    Output(("figures/arena/gallery.png",), "— (every condition as the agent saw it)", "arena_eval"),
    Output(("timings/arena_eval.md",), "— (episodes per second)", "arena_eval"),
    Output(("metrics/arena.json",), "—", "arena_eval"),
    Output(
        ("tables/arena_synth/no_defense.{csv,md}",),
        "— (No-Defense off and on the sets the agent was developed on)",
        "arena_synth",
    ),
    Output(
        (
            "tables/arena_synth/eval_twins_by_kind.{csv,md}",
            "tables/arena_synth/eval_twins_by_pattern.{csv,md}",
        ),
        "— (arena-synth eval: dark tasks against their clean twins)",
        "arena_synth",
    ),
    Output(("tables/arena_synth/scorer.{csv,md}",), "— (the element scorer)", "arena_synth"),
    Output(("tables/arena_synth/splits.{csv,md}",), "— (arena-synth's splits)", "arena_synth"),
    Output(("metrics/arena_synth.json",), "—", "arena_synth"),
    Output(("tables/veer/main.{csv,md}",), "Veer Tables 1, 2, 11-14", "veer_eval"),
    Output(("tables/veer/single_conditions.{csv,md}",), "Veer Table 15", "veer_eval"),
    Output(("tables/veer/webdecept_scenarios.{csv,md}",), "Veer Table 16", "veer_eval"),
    Output(
        ("figures/veer/figure3.png", "tables/veer/figure3_summary.{csv,md}"),
        "Veer Fig. 3",
        "veer_eval",
    ),
    Output(("tables/veer/configurations.{csv,md}",), "Veer Tables 3, 17", "veer_eval"),
    Output(("tables/veer/unseen.{csv,md}",), "— (sites no rule was developed on)", "veer_eval"),
    Output(("timings/veer_eval.md",), "— (stage time)", "veer_eval"),
    Output(("metrics/veer.json",), "—", "veer_eval"),
    Output(("tables/veer_ablations/ablations.{csv,md}",), "Veer Tables 18, 19", "veer_ablations"),
    Output(("timings/veer_ablations.md",), "— (stage time)", "veer_ablations"),
    Output(("metrics/veer_ablations.json",), "—", "veer_ablations"),
    Output(("tables/report/headline.{csv,md}",), "Abstract, §5.2-5.4", "report"),
]

HEADER = """# Reports

Every table and figure here is generated by `dvc repro`; none is edited by hand (this index is
written by the `report` stage). Tables come as CSV and Markdown with a caption that names the
profile and, where the paper states one, the paper's number beside ours as reference. Numbers of
the `tiny` profile are labelled `tiny`. Wall-clock times are machine-dependent and live in
`timings/`; CI compares everything in `tables/` and `metrics/` with the committed files.

| Output | Paper | Notebook | DVC stage |
| --- | --- | --- | --- |
"""


def expand(pattern: str) -> list[str]:
    """`a.{csv,md}` -> [`a.csv`, `a.md`]."""
    if "{csv,md}" in pattern:
        return [pattern.replace("{csv,md}", ext) for ext in ("csv", "md")]
    return [pattern]


def missing_outputs(root: Path | None = None) -> list[str]:
    """Indexed files that do not exist under `root` (reports/)."""
    root = Path(root or paths.reports_dir())
    return [f for o in OUTPUTS for p in o.files for f in expand(p) if not (root / f).is_file()]


def index_markdown() -> str:
    rows = []
    for o in OUTPUTS:
        files = ", ".join(f"`{p}`" for p in o.files)
        rows.append(
            f"| {files} | {o.paper} | `notebooks/{NOTEBOOKS[o.stage]}.ipynb` | `{o.stage}` |"
        )
    footer = "\nExecuted notebooks, with all their outputs, are in `executed/`.\n"
    return HEADER + "\n".join(rows) + "\n" + footer


def headline_table(metrics_dir: Path | None = None) -> pd.DataFrame:
    """The pipeline's headline numbers (ours) beside the paper's, from the stages' metrics."""
    m = Path(metrics_dir or paths.metrics_dir())
    stage1, stage2 = read_json(m / "stage1.json"), read_json(m / "stage2.json")
    guard = read_json(m / "guard.json")
    rows = [
        _row(
            "Stage 1: valid Fatal Error Rate (%)"
            + (" (training style families)" if stage1.get("heldout_after") else ""),
            stage1.get("valid_after", {}).get("c4_fatal_error_rate"),
            DUDE_TABLE5_REWARD_ABLATION["full"]["FER"],
            100,
        ),
        _row(
            "Stage 2: success pool, initial -> final",
            f"{stage2['initial_success']} -> {stage2['final_success']}",
            f"{DUDE_TABLE18_INITIAL_POOLS['success']} -> {DUDE_TABLE19_FINAL_SUCCESS[50]} (T = 50)",
        ),
    ]
    families = " (training style families)" if stage1.get("heldout_after") else ""
    for key, pages in (
        ("valid_after", f"valid{families}"),
        ("heldout_after", "held-out style family's valid"),
    ):
        if stage1.get(key):
            rows.append(_judged_row(f"Guard's evaluator (Stage 1), {pages}", stage1[key]))
    vanilla = {r["agent"]: r for r in guard["runs"] if r["evaluator"] is None}
    transfer = guard.get("transfer", {})
    for group in sorted(transfer, key=lambda g: g != "training families"):
        for run in transfer[group]:
            setting = "vanilla" if run["evaluator"] is None else "w/ " + run["evaluator"]
            effect = run["vs_vanilla"]["claim"] if "vs_vanilla" in run else None
            rows.append(
                _row(
                    f"{run['agent']} {setting}, test tasks of the {group} ({run['tasks']}): "
                    "SR / DFR (%)",
                    f"{run['SR']} / {run['DFR']}",
                    None,
                    effect=effect,
                )
            )
    for run in guard["runs"]:
        name = (
            f"{run['agent']} {'vanilla' if run['evaluator'] is None else 'w/ ' + run['evaluator']}"
        )
        base = vanilla.get(run["agent"])
        effect = None
        if run["evaluator"] is not None and base is not None and not run.get("oracle"):
            effect = run["vs_vanilla"]["claim"]  # worded from the paired tests (metrics.paired)
        what = f"{name}: SR / DFR (%)"
        rows.append(_row(what, f"{run['SR']} / {run['DFR']}", None, effect=effect))
    if (m / "ablations.json").is_file():
        ablations = read_json(m / "ablations.json")
        for row in ablations["stagewise"]:
            paper = DUDE_TABLE4_STAGEWISE.get(row["setting"], {})
            rows.append(
                _row(
                    f"Table 4, {row['setting']}: SR / DFR (%)",
                    f"{row['SR']} / {row['DFR']}",
                    f"{_dash(paper.get('SR'))} / {_dash(paper.get('DFR'))}" if paper else None,
                    effect=row.get("vs_alone", {}).get("claim"),
                )
            )
        for row in ablations["reward"]:
            rows.append(
                _row(
                    f"Table 5, {row['variant']}: Fatal Error Rate (%)",
                    row["Fatal Error Rate (%)"],
                    DUDE_TABLE5_REWARD_ABLATION.get(row["variant"], {}).get("FER"),
                )
            )
    profile = guard.get("profile", "tiny")
    return pd.DataFrame(rows).assign(profile=profile)


def _judged_row(what: str, judged: dict) -> dict:
    """A headline row of an evaluator's judgements: pass rate / FER / null accuracy (%)."""
    null_acc = 1 - judged["c2_rate"] - judged["c3_rate"]
    values = (judged["pass_rate"], judged["c4_fatal_error_rate"], null_acc)
    return _row(
        f"{what}: pass rate / FER / null accuracy (%)",
        " / ".join(f"{100 * v:.2f}" for v in values),
        None,
    )


def _dash(value) -> str:
    return "—" if value is None else str(value)


def _row(what: str, ours, paper, scale: float = 1, effect: str | None = None) -> dict:
    if isinstance(ours, float):
        ours = round(scale * ours, 2)
    paper = paper if paper is not None else "—"
    return {"result": what, "ours": ours, "paper": paper, "vs vanilla": effect or ""}


def write_report(profile: str) -> tuple[pd.DataFrame, list[str]]:
    """Write the headline table and reports/README.md; return the table and missing outputs."""
    table = headline_table()
    save_table(
        table,
        "report/headline",
        f"Headline results ({profile} profile) with the paper's stated numbers as reference; "
        "'vs vanilla': the agent alone on the same tasks, task by task, with exact McNemar tests "
        "and the verdict they allow at 5%",
    )
    atomic_write_text(paths.reports_dir() / "README.md", index_markdown())
    return table, missing_outputs()
