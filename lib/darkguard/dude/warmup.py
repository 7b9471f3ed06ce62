"""Supervised warm-up of a tiny evaluator (trl `SFTTrainer`) on Stage-1 clicks.

GRPO on a random model gets zero reward variance and learns nothing, so the tiny evaluator first
learns the answer format `<judge>L</judge> <conf>c</conf>` and a starting policy from the
ground-truth labels of the train-split clicks.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from darkguard.dude.inputs import PAPER_INPUTS, ObservationAids
from darkguard.dude.judge import click_conversations
from darkguard.models.backends import Conversation
from darkguard.models.parsing import format_judgement


@dataclass(frozen=True)
class WarmupParams:
    steps: int = 300
    batch_size: int = 8
    learning_rate: float = 5e-4
    confidence: float = 0.8  # target confidence written in every completion
    balance: bool = True  # repeat clicks of rarer labels so that every label is equally frequent
    guidance_rate: float = 0.0  # share of rows whose prompt carries a guidance block
    guidance_rules: int = 3  # at most this many rules per guidance block
    guidance_own_rate: float = 1.0  # share of guidance blocks with a rule about the click itself
    seed: int = 42


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


def vision_prompt(conversation: Conversation) -> dict:
    """trl's vision format of a conversation (any number of turns): image placeholders in the
    messages, the images (already resized like the processor would) in an `images` column."""
    prompt, images = [], []
    for message in conversation:
        content = message["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        images += [p["image"] for p in content if p["type"] == "image"]
        prompt.append(
            {
                "role": message["role"],
                "content": [{"type": "image"} if p["type"] == "image" else p for p in content],
            }
        )
    return {"prompt": prompt, "images": images}


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


def warm_up(model_dir: Path, out_dir: Path, rows: list[dict], params: WarmupParams) -> list[dict]:
    """Fine-tune the model in `model_dir` on `rows`, save it with its processor into `out_dir`,
    and return the trainer's log history."""
    import tempfile

    from datasets import Dataset
    from transformers import AutoModelForImageTextToText, AutoProcessor, PrinterCallback
    from trl import SFTConfig, SFTTrainer

    processor = AutoProcessor.from_pretrained(model_dir)
    model = AutoModelForImageTextToText.from_pretrained(model_dir)
    with tempfile.TemporaryDirectory() as tmp:
        args = SFTConfig(
            output_dir=tmp,
            use_cpu=True,
            bf16=False,
            max_length=None,
            per_device_train_batch_size=params.batch_size,
            max_steps=params.steps,
            learning_rate=params.learning_rate,
            lr_scheduler_type="cosine",
            warmup_steps=10,
            logging_steps=max(1, min(10, params.steps // 10)),
            save_strategy="no",
            report_to="none",
            seed=params.seed,
            data_seed=params.seed,
            dataloader_num_workers=0,
            disable_tqdm=True,
            activation_checkpointing=False,  # trl's default (on) recomputes every forward
        )
        trainer = SFTTrainer(
            model=model,
            args=args,
            train_dataset=Dataset.from_list(rows),
            processing_class=processor,
        )
        trainer.remove_callback(PrinterCallback)  # logs (with timings) stay in log_history
        trainer.train()
    out_dir = Path(out_dir)
    trainer.model.save_pretrained(out_dir)
    processor.save_pretrained(out_dir)
    return list(trainer.state.log_history)
