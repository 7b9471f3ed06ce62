"""Report outputs of the `build_models` stage."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from darkguard import paths
from darkguard.config import BuildModelsParams
from darkguard.io import atomic_write_text, read_json, write_json
from darkguard.metrics.intervals import interval_text
from darkguard.reports.figures import save_figure
from darkguard.reports.tables import save_table
from darkguard.stages.build_models import BuiltEvaluator
from darkguard.stages.build_models.agents import BuiltAgent

METRIC_COLUMNS = [
    "pass_rate",
    "c1_rate",
    "c2_rate",
    "c3_rate",
    "c4_fatal_error_rate",
    "parse_failure_rate",
]


def aids_words(params: BuildModelsParams) -> str:
    """The evaluators' observation aids, each a deviation from the paper's inputs."""
    aids = params.aids
    words = [
        "a native-resolution crop around the click (second image)" if aids.zoom else "",
        "the OCR text under the click, read from a 320x80 crop" if aids.ocr else "",
        "that text in lower case" if aids.ocr and aids.fold_case else "",
        "how much that text reads like the task (MiniLM cosine, one decimal)"
        if aids.ocr and aids.task_match
        else "",
    ]
    words = [w for w in words if w]
    return "none (the paper's inputs)" if not words else " + ".join(words)


IN_FAMILY = "training families (valid)"
HELD_OUT = "held-out family (heldout_valid)"


def judged_groups(b: BuiltEvaluator) -> list[tuple[str, dict, dict]]:
    """(pages, metrics, confusion) of the valid clicks of the training style families, then of
    the held-out family's when the build holds one out."""
    groups = [(IN_FAMILY, b.valid_metrics, b.valid_confusion)]
    if b.heldout_metrics is not None:
        groups.append((HELD_OUT, b.heldout_metrics, b.heldout_confusion))
    return groups


def pass_interval(matrix: dict[str, dict[str, int]]) -> str:
    """The 95% Wilson interval of the pass rate, from the confusion counts."""
    correct = sum(row.get(true, 0) for true, row in matrix.items())
    return interval_text(correct, sum(sum(row.values()) for row in matrix.values()))


def fer_interval(matrix: dict[str, dict[str, int]]) -> str:
    """The 95% Wilson interval of C4 (deceptive clicks judged benign), from the counts."""
    row = matrix["deceptive (-1)"]
    return interval_text(row["benign (1)"], sum(row.values()))


def warmup_table(built: list[BuiltEvaluator], params: BuildModelsParams) -> pd.DataFrame:
    rows = []
    for b in built:
        losses = [e["loss"] for e in b.log_history if "loss" in e]
        for pages, metrics, matrix in judged_groups(b):
            rows.append(
                {
                    "Evaluator": f"{b.name} (tiny)",
                    "Pages": pages,
                    "Parameters": b.parameters,
                    "Warm-up steps": params.warmup.steps,
                    "Aids": "+".join(k for k, on in params.aids.model_dump().items() if on)
                    or "none",
                    "First loss": round(losses[0], 4),
                    "Final loss": round(losses[-1], 4),
                    "clicks": int(metrics["n"]),
                    **{c: metrics[c] for c in METRIC_COLUMNS},
                    "pass 95% CI": pass_interval(matrix),
                    "FER 95% CI": fer_interval(matrix),
                }
            )
    return pd.DataFrame(rows)


def null_accuracy(matrix: dict[str, dict[str, int]]) -> float:
    """Share of the null clicks (L=0) judged 0."""
    row = matrix["null (0)"]
    return round(row["null (0)"] / max(1, sum(row.values())), 4)


def confusion_table(built: list[BuiltEvaluator]) -> pd.DataFrame:
    """One row per evaluator and true label: counts of each predicted label on the valid clicks."""
    rows = []
    for b in built:
        for pages, _, matrix in judged_groups(b):
            for true, counts in matrix.items():
                rows.append(
                    {"Evaluator": f"{b.name} (tiny)", "Pages": pages, "True label": true, **counts}
                )
    return pd.DataFrame(rows)


def loss_figure(built: list[BuiltEvaluator]) -> plt.Figure:
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for b in built:
        steps = [e["step"] for e in b.log_history if "loss" in e]
        ax.plot(steps, [e["loss"] for e in b.log_history if "loss" in e], label=b.name)
    ax.set(xlabel="step", ylabel="SFT loss", yscale="log", title="Warm-up of the tiny evaluators")
    ax.legend()
    fig.tight_layout()
    return fig


def write_models_reports(
    built: list[BuiltEvaluator], params: BuildModelsParams
) -> dict[str, pd.DataFrame]:
    table = warmup_table(built, params)
    save_table(
        table,
        "models/warmup",
        "Tiny evaluators after the warm-up: judgements of the valid-split clicks, on the style "
        "families it trained on and on the held-out family (tiny profile; the paper has no such "
        "step). Deviations from the paper's inputs (screenshot, task, "
        f"click): {aids_words(params)}; the warm-up adds {params.warmup.text_nulls} null "
        "click(s) on a text line per train page and targets a confidence from "
        f"{params.warmup.confidence[0]} (click on a label edge) to {params.warmup.confidence[1]}",
    )
    matrix = confusion_table(built)
    save_table(
        matrix,
        "models/warmup_confusion",
        "Tiny evaluators after the warm-up: predicted label (columns) per true label of the "
        "valid-split clicks (tiny profile)",
    )
    fig = loss_figure(built)
    save_figure(fig, "models/warmup_loss")
    plt.close(fig)
    write_json(
        paths.metrics_dir() / "models.json",
        {
            "profile": "tiny",
            "aids": params.aids.model_dump(exclude_defaults=True),  # the optional ones when set
            "evaluators": {
                b.name: {
                    "parameters": b.parameters,
                    **b.valid_metrics,
                    "null_accuracy": null_accuracy(b.valid_confusion),
                    **(
                        {
                            "heldout_family": {
                                **b.heldout_metrics,
                                "null_accuracy": null_accuracy(b.heldout_confusion),
                            }
                        }
                        if b.heldout_metrics is not None
                        else {}
                    ),
                }
                for b in built
            },
        },
    )
    return {"models/warmup": table, "models/warmup_confusion": matrix}


def write_agents_report(built: list[BuiltAgent]) -> pd.DataFrame:
    """The tiny VLM agents alone on the valid split (SR / DFR / NFR), into the models metrics."""
    table = pd.DataFrame(
        [
            {
                "agent": b.name,
                "parameters": b.parameters,
                "final loss": round([e["loss"] for e in b.log_history if "loss" in e][-1], 4),
                **{k: b.valid_metrics[k] for k in ("tasks", "SR", "DFR", "NFR")},
            }
            for b in built
        ]
    )
    save_table(
        table,
        "models/agents",
        "Tiny VLM agents after the warm-up, alone on the valid split: SR / DFR / NFR of the "
        "first click (tiny profile; the paper uses Qwen3-VL-4B, UI-TARS-1.5-7B, GLM-4.6V-Flash)",
    )
    path = paths.metrics_dir() / "models.json"
    metrics = read_json(path)
    metrics["agents"] = {b.name: {"parameters": b.parameters, **b.valid_metrics} for b in built}
    write_json(path, metrics)
    return table


def write_paper_profile_note(models_dir: Path) -> None:
    """Under the paper profile nothing is built: say so in every output of the stage."""
    note = (
        "paper profile: real checkpoints from params.yaml models.paper are used; "
        "no tiny model is built"
    )
    atomic_write_text(Path(models_dir) / "README.txt", note + "\n")
    for name in ("models/warmup", "models/warmup_confusion", "models/agents"):
        save_table(pd.DataFrame([{"Model": "-", "Note": note}]), name, note)
    fig, ax = plt.subplots(figsize=(6, 1))
    ax.axis("off")
    ax.text(0, 0.5, note, fontsize=8)
    save_figure(fig, "models/warmup_loss")
    plt.close(fig)
    write_json(paths.metrics_dir() / "models.json", {"profile": "paper", "evaluators": {}})
