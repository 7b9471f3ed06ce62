"""Differences in the DUDE tables read against the run-to-run spread of the tiny trainings.

`benchmarks/bench_seed_spread.py` repeats the trainings (warm-up, Stage 1, Stage 2's loop, the
reward variants) and the guard runs with other training seeds on the same benchmark and writes
each figure's values per seed, mean, standard deviation and range (`SPREAD_FILE`). A notebook
lists its table's comparisons (`Comparison`: a difference and the figures it is taken between);
`against_spread` sets each beside the largest seed range of those figures: a difference no larger
than what retraining the same setting with another seed moves is "within the seed spread".
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from darkguard import paths
from darkguard.io import InputError
from darkguard.reports.tables import save_table

SPREAD_FILE = paths.ROOT / "benchmarks" / "results" / "seed_spread.json"
WITHIN = "within the seed spread"
EXCEEDS = "exceeds the seed spread"


@dataclass(frozen=True)
class Spread:
    """Per figure (`stage1.valid.pass`, `guard.all_gated.SR`, ...): its value per seed, mean,
    sample standard deviation and range (max - min), in the figure's own unit."""

    seeds: tuple[int, ...]
    figures: dict[str, dict]
    source: Path
    profile: str = "tiny"

    def range_of(self, name: str) -> float:
        if name not in self.figures:
            raise InputError(f"{paths.display(self.source)}: figures: no figure {name!r}")
        return float(self.figures[name]["range"])


@dataclass(frozen=True)
class Comparison:
    """One difference a table shows: `difference` (this run's, in the figures' unit) between
    the runs whose seed-varying figures are `figures` (a figure no seed moves, such as the
    offline agent alone, is left out)."""

    table: str
    comparison: str
    difference: float
    figures: tuple[str, ...]


def load_spread(path: Path = SPREAD_FILE) -> Spread | None:
    """The benchmark's record, or None when there is none."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
        seeds = tuple(int(s) for s in data["seeds"])
        figures = data["figures"]
        profile = str(data["profile"])
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{paths.display(path)}: not a seed-spread record ({exc})") from exc
    for name, figure in figures.items():
        for key in ("values", "mean", "sd", "range"):
            if key not in figure:
                raise InputError(f"{paths.display(path)}: figures.{name}: no field {key!r}")
    return Spread(seeds, figures, path, profile)


def verdict(difference: float, seed_range: float) -> str:
    """`EXCEEDS` when the difference is larger than the seed range, else `WITHIN`."""
    return EXCEEDS if abs(difference) > seed_range else WITHIN


def against_spread(comparisons: Sequence[Comparison], spread: Spread) -> pd.DataFrame:
    """A row per comparison: the difference, the largest seed range of its figures, the seeds
    and the verdict."""
    rows = []
    for c in comparisons:
        seed_range = max(spread.range_of(name) for name in c.figures)
        rows.append(
            {
                "table": c.table,
                "comparison": c.comparison,
                "difference": round(c.difference, 2),
                "seed range": round(seed_range, 2),
                "seeds": ", ".join(str(s) for s in spread.seeds),
                "verdict": verdict(c.difference, seed_range),
            }
        )
    return pd.DataFrame(rows)


EVALUATOR = "evaluator-large"  # the tiny evaluator the benchmark retrains (build_models)


def _pp(fraction: float) -> float:
    return 100.0 * fraction


def _judged(table: str, label: str, after: dict, before: dict, figures: tuple) -> list:
    """Pass rate and FER differences (pp) between two judged click sets."""
    return [
        Comparison(
            table,
            f"{label}: {what}",
            _pp(after[key] - before[key]),
            tuple(f + suffix for f in figures),
        )
        for what, key, suffix in (
            ("pass", "pass_rate", ".pass"),
            ("FER", "c4_fatal_error_rate", ".FER"),
        )
    ]


def models_comparisons(metrics: dict) -> list[Comparison]:
    """models/warmup: the held-out family against the training families (`metrics/models.json`)."""
    e = metrics.get("evaluators", {}).get(EVALUATOR)
    if not e or "heldout_family" not in e:
        return []
    return _judged(
        "models/warmup",
        "held-out family - training families",
        e["heldout_family"],
        e,
        ("warmup.valid", "warmup.heldout_valid"),
    )


def stage1_comparisons(metrics: dict) -> list[Comparison]:
    """stage1/before_after: after Stage 1 against the warm-up, per page group
    (`metrics/stage1.json`)."""
    rows = _judged(
        "stage1/before_after",
        "training families, after - before",
        metrics["valid_after"],
        metrics["valid_before"],
        ("warmup.valid", "stage1.valid"),
    )
    if metrics.get("heldout_after") and metrics.get("heldout_before"):
        rows += _judged(
            "stage1/before_after",
            "held-out family, after - before",
            metrics["heldout_after"],
            metrics["heldout_before"],
            ("warmup.heldout_valid", "stage1.heldout_valid"),
        )
    return rows


def _gated_rows(table: str, label: str, gated: dict, alone: dict, figure: str) -> list:
    return [
        Comparison(
            table,
            f"{label}: {rate} gated - alone",
            gated[rate] - alone[rate],
            (f"{figure}.{rate}",),
        )
        for rate in ("SR", "DFR")
    ]


def guard_comparisons(metrics: dict) -> list[Comparison]:
    """guard/gate and guard/transfer: the gated agent against the agent alone, on all tasks and
    per page group (`metrics/guard.json`; the offline agent alone does not depend on a seed)."""
    runs = [r for r in metrics["runs"] if not r["oracle"]]
    alone = next(r for r in runs if r["evaluator"] is None)
    rows = []
    for run in runs:
        if run["evaluator"] is not None and run["agent"] == alone["agent"]:
            rows += _gated_rows("guard/gate", "all tasks", run, alone, "guard.all_gated")
    for group, group_runs in metrics.get("transfer", {}).items():
        base = next(r for r in group_runs if r["evaluator"] is None)
        for run in group_runs:
            if run["evaluator"] is not None and run["agent"] == base["agent"]:
                rows += _gated_rows("guard/transfer", group, run, base, f"guard.{group}_gated")
    return rows


def ablation_comparisons(metrics: dict) -> list[Comparison]:
    """ablations/stagewise (the evaluator as built and Stage 1 only, against the agent alone and
    each other) and ablations/reward (each variant against full), `metrics/ablations.json`."""
    rows: list[Comparison] = []
    stagewise = {r["setting"]: r for r in metrics["stagewise"]}
    alone = next((r for k, r in stagewise.items() if k.startswith("agent alone")), None)
    vanilla, stage1 = stagewise.get("vanilla evaluator"), stagewise.get("Stage 1 only")
    if alone and vanilla:
        figure = "stagewise.vanilla evaluator"
        rows += [
            Comparison(
                "ablations/stagewise",
                f"vanilla evaluator - agent alone: {rate}",
                vanilla[rate] - alone[rate],
                (f"{figure}.{rate}",),
            )
            for rate in ("SR", "DFR")
        ]
    if vanilla and stage1:
        rows += [
            Comparison(
                "ablations/stagewise",
                f"Stage 1 only - vanilla evaluator: {rate}",
                stage1[rate] - vanilla[rate],
                (f"stagewise.vanilla evaluator.{rate}", f"stagewise.Stage 1 only.{rate}"),
            )
            for rate in ("SR", "DFR")
        ]
    reward = {r["variant"]: r for r in metrics["reward"]}
    full = reward.get("full")
    for name, row in reward.items():
        if full is None or name == "full":
            continue
        for what, column, suffix in (
            ("pass", "pass rate (%)", "pass"),
            ("FER", "Fatal Error Rate (%)", "FER"),
        ):
            rows.append(
                Comparison(
                    "ablations/reward",
                    f"{name} - full: {what}",
                    row[column] - full[column],
                    (f"rewards.{name}.{suffix}", f"stage1.valid.{suffix}"),
                )
            )
    return rows


COMPARISONS = {
    "models": models_comparisons,
    "stage1": stage1_comparisons,
    "guard": guard_comparisons,
    "ablations": ablation_comparisons,
}


def spread_table(
    metrics_name: str, profile: str, spread: Spread | None = None
) -> pd.DataFrame | None:
    """The comparisons of `reports/metrics/<metrics_name>.json` (as this run wrote it) against
    the seed spread; None without a spread record of this profile or without a comparison."""
    spread = spread or load_spread()
    if spread is None or spread.profile != profile:
        return None
    metrics = json.loads((paths.metrics_dir() / f"{metrics_name}.json").read_text())
    comparisons = COMPARISONS[metrics_name](metrics)
    return against_spread(comparisons, spread) if comparisons else None


def write_spread_table(metrics_name: str, table_dir: str, profile: str) -> pd.DataFrame | None:
    """`spread_table`, saved as `tables/<table_dir>/seed_spread`; None (nothing written) without
    a spread record of this profile."""
    spread = load_spread()
    table = spread_table(metrics_name, profile, spread)
    if table is not None and spread is not None:
        save_table(table, f"{table_dir}/seed_spread", caption(spread, profile))
    return table


def caption(spread: Spread, profile: str) -> str:
    seeds = ", ".join(str(s) for s in spread.seeds)
    return (
        f"Each difference of this stage's tables against the seed spread ({profile} profile): the "
        f"largest range (max - min) over training seeds {seeds} of the figures it is taken "
        f"between (benchmarks/bench_seed_spread.py; the benchmark and the tables held fixed, "
        f"the trainings' seed varied); a difference no larger is within the run-to-run spread"
    )


def summary_line(table: pd.DataFrame) -> str:
    """How many of a table's differences exceed the seed spread, in words."""
    exceeding = table.loc[table["verdict"] == EXCEEDS, "comparison"].tolist()
    if not exceeding:
        return f"None of the {len(table)} differences exceeds the seed spread."
    return (
        f"{len(exceeding)} of {len(table)} differences exceed the seed spread: "
        + "; ".join(exceeding)
        + "."
    )
