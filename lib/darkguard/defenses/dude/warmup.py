"""Supervised warm-up of a tiny evaluator (trl `SFTTrainer`) on Stage-1 clicks.

GRPO on a random model gets zero reward variance and learns nothing, so the tiny evaluator first
learns the answer format `<judge>L</judge> <conf>c</conf>` and a starting policy from the
ground-truth labels of the train-split clicks.
"""

from __future__ import annotations

from pathlib import Path

from darkguard.defenses.dude.evaluator import click_conversations
from darkguard.defenses.dude.inputs import PAPER_INPUTS, ObservationAids
from darkguard.models.parsing import format_judgement
from darkguard.models.tiny.sft import vision_prompt


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


def trl_rows(
    clicks: list[dict],
    records: dict[str, dict],
    data_dir: Path,
    max_pixels: int | None,
    confidence: float,
    aids: ObservationAids = PAPER_INPUTS,
    guidance: list[str | None] | None = None,
) -> list[dict]:
    """Prompt-completion rows (trl's vision format) with the ground-truth judgement; `guidance`
    holds one guidance text (or None) per click."""
    conversations = click_conversations(data_dir, clicks, records, guidance, aids, max_pixels)
    return [
        {
            **vision_prompt(conv),
            "completion": [
                {
                    "role": "assistant",
                    "content": [{"type": "text", "text": format_judgement(c["label"], confidence)}],
                }
            ],
        }
        for c, conv in zip(clicks, conversations, strict=True)
    ]
