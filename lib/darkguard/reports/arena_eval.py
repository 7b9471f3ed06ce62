"""Reports of the `arena_eval` stage: the No-Defense rows of the Veer paper's Tables 1, 2 and 11-14
(`tables/arena/no_defense`, with 95% intervals: Wilson, or a bootstrap over WebDecept's
scenarios), per-condition DPSR of TrickyArena-Single (Table 15,
`tables/arena/single_conditions`), of Multi (`tables/arena/multi_conditions`, no paper column:
the paper gives none) and of WebDecept's scenarios (Table 16, `tables/arena/webdecept_scenarios`),
`metrics/arena.json`, the gallery figure, and the episode throughput (`timings/arena_eval`,
machine-dependent). The paper's numbers stand beside ours as reference (its base agent is each
benchmark's default agent, BrowserUse on TrickyArena and a WebArena-style PromptAgent on
WebDecept, with GPT-5.6-Luna; ours is named in every caption)."""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import pandas as pd
from PIL import Image

from darkguard import paths
from darkguard.envs.arena.tasks import EXPECTED_SIZES
from darkguard.io import atomic_write_text, write_json
from darkguard.metrics.arena import ArenaScores, score
from darkguard.metrics.intervals import cluster_interval, effective_n, interval_text
from darkguard.reports.figures import save_figure
from darkguard.reports.paper import (
    VEER_COUNTS,
    VEER_TABLE15_NO_DEFENSE_D,
    VEER_TABLE16_NO_DEFENSE_D,
)
from darkguard.reports.tables import save_table
from darkguard.stages.arena_eval import ArenaEvalResult
from darkguard.stages.arena_runs import SetRun, condition_label

SET_TITLES = {
    "trickyarena_single": "TrickyArena-Single",
    "trickyarena_multi": "TrickyArena-Multi",
    "webdecept": "WebDecept",
    "webdecept_feasible": "WebDecept feasible",
}
SCENARIOS = ("popup", "banner", "ppopup", "pbanner", "addons", "redirect", "drift")
# Sets whose episodes come in clusters: a WebDecept scenario is all-or-nothing over the same
# sampled purchases, so its intervals and paired tests are over scenarios, not episodes.
CLUSTERED_SETS = ("webdecept", "webdecept_feasible")
WILSON = "Wilson"
CLUSTER_BOOTSTRAP = "cluster bootstrap (scenarios), at least Wilson at effective N"


def _pct(count: int, n: int) -> float:
    return round(100.0 * count / n, 1) if n else 0.0


def count_columns(s: ArenaScores) -> dict:
    """N, the raw counts and the rates (%, one decimal) of a score, as table columns."""
    return {
        "N": s.N,
        "#D": s.n_D,
        "#T": s.n_T,
        "#STC": s.n_STC,
        "DPSR": round(s.DPSR, 1),
        "TSR": round(s.TSR, 1),
        "STC": round(s.STC, 1),
    }


def outcome(record: dict, key: str) -> int:
    """An episode's D, T or STC (T and not D) as 0 or 1."""
    return record["T"] * (1 - record["D"]) if key == "STC" else record[key]


def scenario_of(task) -> str:
    """A WebDecept task's scenario (its first pattern)."""
    return task.patterns[0] if task.patterns else "none"


def by_scenario(run: SetRun, key: str) -> dict[str, list[int]]:
    """The run's outcomes `key` per scenario."""
    groups: dict[str, list[int]] = {}
    for task, record in zip(run.tasks, run.records, strict=True):
        groups.setdefault(scenario_of(task), []).append(outcome(record, key))
    return groups


def interval_columns(set_name: str, run: SetRun) -> dict:
    """DPSR, TSR and STC 95% intervals, the effective number of independent D outcomes and the
    interval's method: Wilson, or for WebDecept's sets the cluster bootstrap over scenarios widened
    to the Wilson interval at the effective number of outcomes (`cluster_interval`)."""
    clustered = set_name in CLUSTERED_SETS
    row = {}
    for key, rate in (("D", "DPSR"), ("T", "TSR"), ("STC", "STC")):
        if clustered:
            low, high = cluster_interval(by_scenario(run, key))
            row[f"{rate} 95% CI"] = f"[{low:.1f}, {high:.1f}]"
        else:
            ones = sum(outcome(r, key) for r in run.records)
            row[f"{rate} 95% CI"] = interval_text(ones, len(run.records))
    row["effective N"] = (
        effective_n(by_scenario(run, "D")) if clustered else float(len(run.records))
    )
    row["interval"] = CLUSTER_BOOTSTRAP if clustered else WILSON
    return row


def _who(result: ArenaEvalResult, profile: str) -> str:
    return f"{profile} profile, `{result.agent}` base agent, no defense"


def no_defense_table(result: ArenaEvalResult) -> pd.DataFrame:
    """Per set: counts and rates, the paper's beside them, then 95% intervals and the effective
    number of independent outcomes (`interval_columns`)."""
    rows = []
    for name, run in result.runs.items():
        s = run.scores()
        d, t, stc = VEER_COUNTS["No-Defense"][name]
        rows.append(
            {
                "set": SET_TITLES[name],
                **count_columns(s),
                "timeouts": s.timeouts,
                "crashes": s.crashes,
                "paper #D/#T/#STC": f"{d}/{t}/{stc}",
                "paper DPSR": _pct(d, EXPECTED_SIZES[name]),
                "paper TSR": _pct(t, EXPECTED_SIZES[name]),
                "paper STC": _pct(stc, EXPECTED_SIZES[name]),
                **interval_columns(name, run),
            }
        )
    return pd.DataFrame(rows)


def _by_condition(run: SetRun) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = {}
    for task, record in zip(run.tasks, run.records, strict=True):
        groups.setdefault(condition_label(task), []).append(record)
    return groups


def single_conditions_table(run: SetRun) -> pd.DataFrame:
    rows = []
    for label, records in _by_condition(run).items():
        s = score(records)
        paper_n, paper_d = VEER_TABLE15_NO_DEFENSE_D.get(label, (None, None))
        rows.append(
            {
                "condition": label,
                "N": s.N,
                "#D": s.n_D,
                "DPSR": round(s.DPSR, 1),
                "#T": s.n_T,
                "TSR": round(s.TSR, 1),
                "paper N": paper_n,
                "paper #D": paper_d,
                "paper DPSR": _pct(paper_d, paper_n) if paper_n else None,
            }
        )
    return pd.DataFrame(rows)


def multi_conditions_table(run: SetRun) -> pd.DataFrame:
    rows = []
    for label, records in _by_condition(run).items():
        s = score(records)
        rows.append(
            {
                "condition": label,
                "N": s.N,
                "#D": s.n_D,
                "DPSR": round(s.DPSR, 1),
                "#T": s.n_T,
                "TSR": round(s.TSR, 1),
                "#STC": s.n_STC,
            }
        )
    return pd.DataFrame(rows)


def webdecept_scenarios_table(run: SetRun) -> pd.DataFrame:
    groups: dict[str, list[dict]] = {}
    for task, record in zip(run.tasks, run.records, strict=True):
        groups.setdefault(scenario_of(task), []).append(record)
    rows = []
    for scenario in [s for s in SCENARIOS if s in groups] + sorted(set(groups) - set(SCENARIOS)):
        s = score(groups[scenario])
        paper_d = VEER_TABLE16_NO_DEFENSE_D.get(scenario)
        rows.append(
            {
                "scenario": scenario,
                "N": s.N,
                "#D": s.n_D,
                "DPSR": round(s.DPSR, 1),
                "#T": s.n_T,
                "TSR": round(s.TSR, 1),
                "#STC": s.n_STC,
                "paper #D": paper_d,
                "paper DPSR": _pct(paper_d, 45) if paper_d is not None else None,
            }
        )
    return pd.DataFrame(rows)


def gallery_figure(entries: list[dict], columns: int = 5) -> plt.Figure:
    rows = max(1, -(-len(entries) // columns))
    fig, _axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.3 * rows))
    for ax in fig.axes:
        ax.axis("off")
    for ax, entry in zip(fig.axes, entries, strict=False):
        ax.imshow(Image.open(paths.ROOT / entry["image"]))
        mark = "deceived here" if entry["deceived"] else "as seen"
        title = f"{entry['label']} ({mark})\n" + textwrap.shorten(entry["goal"], 60)
        ax.set_title(title, fontsize=8)
    fig.tight_layout()
    return fig


def timings_markdown(result: ArenaEvalResult) -> str:
    lines = ["| set | episodes run | seconds | episodes/s | mean steps |", "|---|---|---|---|---|"]
    for name, run in result.runs.items():
        if not run.ran:
            continue
        steps = sum(r["steps"] for r in run.records) / max(1, len(run.records))
        rate = run.ran / run.seconds if run.seconds else 0.0
        lines.append(
            f"| {SET_TITLES[name]} | {run.ran} | {run.seconds:.0f} | {rate:.2f} | {steps:.1f} |"
        )
    return "\n".join(lines)


def write_arena_reports(result: ArenaEvalResult, profile: str) -> dict[str, pd.DataFrame]:
    """Write the stage's tables, metrics, figure and timings; the tables by name."""
    who = _who(result, profile)
    tables = {"arena/no_defense": no_defense_table(result)}
    save_table(
        tables["arena/no_defense"],
        "arena/no_defense",
        f"Veer Tables 1, 2 and 11-14, No-Defense row ({who}); the paper's row (each "
        "benchmark's default agent with GPT-5.6-Luna) beside ours as reference. STC is the "
        "mean of T(1-D) per episode. 95% intervals: Wilson on the episodes, except WebDecept's "
        "sets, whose scenarios are all-or-nothing over the same purchases: a bootstrap resampling "
        "whole scenarios (2000 draws, seed 42), widened where needed to the Wilson interval at "
        "the rate's effective number of outcomes; effective N: the number of independent outcomes "
        "D is worth (N unless clustered).",
    )
    if "trickyarena_single" in result.runs:
        tables["arena/single_conditions"] = single_conditions_table(
            result.runs["trickyarena_single"]
        )
        save_table(
            tables["arena/single_conditions"],
            "arena/single_conditions",
            f"Veer Table 15, TrickyArena-Single DPSR by condition, No-Defense ({who}); "
            "the paper's No-Defense #D beside ours as reference.",
        )
    if "trickyarena_multi" in result.runs:
        tables["arena/multi_conditions"] = multi_conditions_table(result.runs["trickyarena_multi"])
        save_table(
            tables["arena/multi_conditions"],
            "arena/multi_conditions",
            f"TrickyArena-Multi by condition combination, No-Defense ({who}); D is the OR "
            "of the combined conditions' rules. The paper gives no per-combination table.",
        )
    if "webdecept" in result.runs:
        tables["arena/webdecept_scenarios"] = webdecept_scenarios_table(result.runs["webdecept"])
        save_table(
            tables["arena/webdecept_scenarios"],
            "arena/webdecept_scenarios",
            f"Veer Table 16, WebDecept DPSR by scenario (N tasks each; the paper's 45), No-Defense "
            f"({who}); the paper's No-Defense #D beside ours as reference.",
        )
    write_json(
        paths.reports_dir() / "metrics" / "arena.json",
        {
            "profile": profile,
            "agent": result.agent,
            **{name: run.scores().as_dict() for name, run in result.runs.items()},
        },
    )
    if result.gallery:
        fig = gallery_figure(result.gallery)
        save_figure(fig, "arena/gallery")
        plt.close(fig)
    atomic_write_text(
        paths.reports_dir() / "timings" / "arena_eval.md",
        f"**Arena episodes per second ({who}; machine-dependent, not compared by CI).**\n\n"
        + timings_markdown(result)
        + "\n",
    )
    return tables
