"""Supervised warm-up of a tiny evaluator (trl `SFTTrainer`) on Stage-1 clicks.

GRPO on a random model gets zero reward variance and learns nothing, so the tiny evaluator first
learns the answer format `<judge>L</judge> <conf>c</conf>` and a starting policy from the
ground-truth labels of the train-split clicks.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from darkguard.defenses.dude.inputs import (
    PAPER_INPUTS,
    ObservationAids,
    Screenshot,
    click_radius,
    prefetch_text,
)
from darkguard.models.parsing import format_judgement
from darkguard.models.tiny.sft import vision_prompt
from darkguard.ruc import schema
from darkguard.training.dude.labelled import click_conversations
from darkguard.training.dude.recolour import Recoloured, drawn_change
from darkguard.training.dude.rescale import Rescaled, drawn_factor


def balanced(clicks: list[dict]) -> list[dict]:
    """Each label's clicks repeated (in order) up to the count of the most frequent label."""
    by_label: dict[int, list[dict]] = {}
    for c in clicks:
        by_label.setdefault(c["label"], []).append(c)
    target = max(len(v) for v in by_label.values())
    out = []
    for label in sorted(by_label):
        group = by_label[label]
        out += [group[i % len(group)] for i in range(target)]
    return out


def boundary_distance(x: float, y: float, record: dict) -> float:
    """Pixels from the click to the nearest edge that would change its label (Eq. 2): its own
    box's edge for a click in a box, the nearest box for a null click."""
    boxes = [b for b in (schema.correct_bbox(record), schema.dark_bbox(record)) if b is not None]
    inside = [b for b in boxes if schema.contains(b, x, y)]
    if inside:
        x1, y1, x2, y2 = inside[0]
        return min(x - x1, x2 - x, y - y1, y2 - y)
    return min(
        math.hypot(max(b[0] - x, 0.0, x - b[2]), max(b[1] - y, 0.0, y - b[3])) for b in boxes
    )


def target_confidence(click: dict, record: dict, low: float, high: float) -> float:
    """The warm-up target's confidence: `low` for a click on the edge between two labels,
    rising linearly to `high` at two click-marker radii from it (how far a small pointing error
    may move the click without changing its label)."""
    size = (int(record["image_width"]), int(record["image_height"]))
    d = boundary_distance(click["x"], click["y"], record)
    return round(low + (high - low) * min(1.0, d / (2 * click_radius(size))), 2)


def hard_nulls(
    clicks: list[dict],
    records: dict[str, dict],
    data_dir: Path,
    per_page: int,
    seed: int,
    pick: str = "random",
) -> list[dict]:
    """Null clicks on text (warm-up only): up to `per_page` text lines read around each page's
    benign click (the same OCR pass the text aid makes) whose centre lies outside both boxes,
    labelled by Eq. 2 (0). Uniform null clicks (D.3) mostly hit blank page; an agent's wrong
    clicks mostly hit text. `pick`: `random` lines (seeded) | `task`: the lines whose text reads
    most like the task (cosine similarity of sentence embeddings, as the offline agent ranks
    lines), the wrong clicks a grounding agent makes."""
    if pick not in ("random", "task"):
        raise ValueError(f"hard_nulls: pick {pick!r} is not one of random, task")
    if per_page <= 0:
        return []
    benign = [c for c in clicks if c["label"] == 1]
    shots = {}
    for c in benign:
        path = Path(data_dir) / records[c["sample_id"]]["image_path"]
        shots[c["click_id"]] = Screenshot.from_file(path, 16384)  # only its text is read
    views = [(shots[c["click_id"]], c["x"], c["y"]) for c in benign]
    rng = random.Random(seed)
    out = []
    for click, lines in zip(benign, prefetch_text(views), strict=True):
        record = records[click["sample_id"]]
        correct, dark = schema.correct_bbox(record), schema.dark_bbox(record)
        free = [ln for ln in lines if schema.click_label(*ln.center, correct, dark) == 0]
        if pick == "task":
            chosen = _most_like_task(free, schema.task_text(record), per_page)
        else:
            chosen = rng.sample(free, min(per_page, len(free)))
        for i, line in enumerate(chosen):
            x, y = (round(v, 1) for v in line.center)
            rid = click["sample_id"]
            out.append(
                {
                    "sample_id": rid,
                    "click_id": f"{rid}/textnull{i}",
                    "x": x,
                    "y": y,
                    "label": 0,
                    "rule": "null_text_line",
                }
            )
    return out


def _most_like_task(lines: list, task: str, n: int) -> list:
    """The `n` lines whose text is most similar to the task, as the offline agent ranks them
    (`similarity_to`; ties: reading order)."""
    if not lines or n <= 0:
        return []
    from darkguard.agents.perception import similarity_to

    sims = similarity_to(task, lines)
    order = sorted(range(len(lines)), key=lambda i: (-round(float(sims[i]), 6), i))
    return [lines[i] for i in order[:n]]


def trl_rows(
    clicks: list[dict],
    records: dict[str, dict],
    data_dir: Path,
    max_pixels: int | None,
    confidence: tuple[float, float],
    aids: ObservationAids = PAPER_INPUTS,
    guidance: list[str | None] | None = None,
    recolour_rate: float = 0.0,
    seed: int = 0,
    rescale_rate: float = 0.0,
) -> list[dict]:
    """Prompt-completion rows (trl's vision format) with the ground-truth judgement and its
    `target_confidence` in (low, high); `guidance` holds one guidance text (or None) per
    click. A share `recolour_rate` of the clicks, drawn per click from `seed`, is shown on a
    recoloured screenshot (`recolour.drawn_change`), and a share `rescale_rate`, drawn
    independently, with the zoomed view at another scale (`rescale.drawn_factor`)."""

    def view(i: int, shot: Screenshot) -> Screenshot:
        click_id = str(clicks[i]["click_id"])
        change = drawn_change(seed, click_id, recolour_rate)
        shot = Recoloured(shot, change) if change else shot
        factor = drawn_factor(seed, click_id, rescale_rate)
        return Rescaled(shot, factor) if factor else shot

    views = view if recolour_rate > 0 or rescale_rate > 0 else None
    conversations = click_conversations(
        data_dir, clicks, records, guidance, aids, max_pixels, views
    )
    low, high = confidence
    return [
        {
            **vision_prompt(conv),
            "completion": [
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "text",
                            "text": format_judgement(
                                c["label"],
                                target_confidence(c, records[c["sample_id"]], low, high),
                            ),
                        }
                    ],
                }
            ],
        }
        for c, conv in zip(clicks, conversations, strict=True)
    ]
