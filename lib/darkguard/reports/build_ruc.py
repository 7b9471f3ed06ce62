"""Write every RUC report output of the `build_ruc` stage."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from darkguard import paths
from darkguard.config import DataParams
from darkguard.io import write_json
from darkguard.reports import ruc_tables as ruc
from darkguard.reports.figures import examples_figure, save_figure
from darkguard.reports.paper import DUDE_DECEPTIVE_TO_CORRECT_AREA_RATIO_ABOVE
from darkguard.reports.tables import save_table
from darkguard.stages.build_ruc import RucBuild


def write_ruc_reports(build: RucBuild, params: DataParams) -> dict[str, pd.DataFrame]:
    """Tables (CSV + MD), the examples figure and `metrics/ruc.json`; returns the tables."""
    label = ruc.dataset_label(params.source)
    areas, ratio = ruc.box_areas(build.records)
    tables = {
        "ruc/composition": (
            ruc.composition(build.records),
            f"Table 1. {label} composition by domain x category",
        ),
        "ruc/sources": (
            ruc.sources(build.records, params.source),
            f"Table 9. {label} sources beside the paper's",
        ),
        "ruc/resolution": (
            ruc.resolution(build.records),
            f"Table 11. {label} screenshot resolution (px)",
        ),
        "ruc/resolution_counts": (
            ruc.resolution_counts(build.records),
            f"{label} pages per screenshot size",
        ),
        "ruc/box_areas": (
            areas,
            f"Table 12. {label} box areas (px^2); mean deceptive / mean "
            f"correct = {ratio} (paper: more than {DUDE_DECEPTIVE_TO_CORRECT_AREA_RATIO_ABOVE})",
        ),
        "ruc/split": (
            ruc.split_table(build.splits),
            f"Table 13. {label} split (stratified by category) beside the paper's",
        ),
        "ruc/split_by_category": (
            ruc.split_by_category(build.splits),
            f"{label} split per category",
        ),
        "ruc/families": (
            ruc.family_table(build.splits, list(params.families.heldout)),
            f"{label} pages per style family and split (held-out families: never in train)",
        ),
        "ruc/clicks": (
            ruc.click_table(build.clicks),
            f"{label} Stage-1 clicks per split (paper 3.2.1, App. D)",
        ),
    }
    for name, (df, caption) in tables.items():
        save_table(df, name, caption)
    fig = examples_figure(
        build.splits["test"], build.clicks["test"], build.out_dir, params.examples
    )
    save_figure(fig, "ruc/examples")
    plt.close(fig)
    n_type = {t: sum(r["type"] == t for r in build.records) for t in ("Normal", "Deception")}
    metrics = {
        "dataset": label,
        "pages": len(build.records),
        "normal": n_type["Normal"],
        "deceptive": n_type["Deception"],
        "split": {k: len(v) for k, v in build.splits.items()},
        "clicks": {k: len(v) for k, v in build.clicks.items()},
        "clicks_rejected": len(build.rejected),
        "box_area_ratio_deceptive_to_correct": ratio,
        "min_interactive_elements": min((m["interactive"] for m in build.manifest), default=None),
    }
    write_json(paths.metrics_dir() / "ruc.json", metrics)
    return {name: df for name, (df, _) in tables.items()}
