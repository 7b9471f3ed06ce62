"""Supervised fine-tuning of a tiny model (trl `SFTTrainer`) on prompt-completion rows in trl's
vision format: the warm-up every tiny evaluator and agent gets before GRPO (a random model gets
zero reward variance and learns nothing)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from darkguard.models.backends import Conversation
from darkguard.models.trl_data import trl_dataset
from darkguard.models.trl_head import label_positions_only


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


def warm_up(model_dir: Path, out_dir: Path, rows: list[dict], params: Any) -> list[dict]:
    """Fine-tune the model in `model_dir` on `rows`, save it with its processor into `out_dir`,
    and return the trainer's log history."""
    import tempfile

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
            train_dataset=trl_dataset(rows),
            processing_class=processor,
        )
        trainer.remove_callback(PrinterCallback)  # logs (with timings) stay in log_history
        with label_positions_only():
            trainer.train()
    out_dir = Path(out_dir)
    trainer.model.save_pretrained(out_dir)
    processor.save_pretrained(out_dir)
    return list(trainer.state.log_history)
