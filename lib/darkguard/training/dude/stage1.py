"""DUDE Stage 1 (paper 3.2): hybrid-reward GRPO of the evaluator with a LoRA adapter, then the
failure and success pools (3.2.3) that Stage 2 reads."""

from __future__ import annotations

import functools
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from darkguard.accel.grpo_prompts import shared_prompt_trainer
from darkguard.config import GRPOParams, RewardParams, VllmParams
from darkguard.defenses.dude.evaluator import Evaluator
from darkguard.defenses.dude.inputs import PAPER_INPUTS, ObservationAids
from darkguard.models.backends import Backend
from darkguard.models.parsing import Judgement, OutOfDomain
from darkguard.models.tiny.sft import vision_prompt
from darkguard.models.trl_data import trl_dataset
from darkguard.models.trl_head import label_positions_only
from darkguard.models.vision_tokens import vision_token_ids
from darkguard.ruc import schema
from darkguard.training.dude.labelled import click_conversations, judge_clicks
from darkguard.training.dude.reward import hybrid_reward, sample_reward


def reward_function(params: RewardParams):
    """`hybrid_reward` with the switches bound, named as trl logs it."""
    bound = functools.partial(hybrid_reward, **params.model_dump())
    functools.update_wrapper(bound, hybrid_reward)
    return bound


def reward_columns(click: dict, record: dict) -> dict:
    """The per-sample columns `hybrid_reward` reads."""
    dark = schema.dark_bbox(record)
    return {
        "label": int(click["label"]),
        "click": [float(click["x"]), float(click["y"])],
        "correct_box": [float(v) for v in schema.correct_bbox(record)],
        "dark_box": [float(v) for v in dark] if dark else None,
        "image_width": float(record["image_width"]),
        "image_height": float(record["image_height"]),
    }


def grpo_rows(
    clicks: list[dict],
    records: dict[str, dict],
    data_dir: Path,
    max_pixels: int | None,
    aids: ObservationAids = PAPER_INPUTS,
) -> list[dict]:
    """The Stage-1 training set: image(s) + conversational prompt + the reward columns."""
    conversations = click_conversations(data_dir, clicks, records, None, aids, max_pixels)
    return [
        {**vision_prompt(conv), **reward_columns(c, records[c["sample_id"]])}
        for c, conv in zip(clicks, conversations, strict=True)
    ]


@dataclass
class GRPORun:
    log_history: list[dict]  # trl's per-step log: reward, entropy, kl, loss, ...
    model: Any  # the trained peft model (base weights frozen)


def last_checkpoint(directory: Path) -> Path | None:
    """The newest `checkpoint-N` folder of an interrupted run, if any."""
    found = sorted(Path(directory).glob("checkpoint-*"), key=lambda p: int(p.name.split("-")[1]))
    return found[-1] if found else None


def train_grpo(
    model_path: str,
    rows: list[dict],
    adapter_dir: Path,
    checkpoint_dir: Path,
    params: GRPOParams,
    reward: RewardParams,
    seed: int,
    device: str = "cpu",
    reward_funcs: list | None = None,
    vllm: VllmParams | None = None,
) -> GRPORun:
    """Train a LoRA adapter with trl's `GRPOTrainer` and the hybrid reward; save the adapter and
    the processor into `adapter_dir`. An interrupted run resumes from the newest checkpoint in
    `checkpoint_dir`. `reward_funcs` replaces the hybrid reward (tests only); `vllm` (enabled)
    generates the rollouts with vLLM.

    Under `accelerate launch` every process runs this (trl's distributed path: each process
    takes its share of every batch, gradients are averaged); only the main process saves the
    adapter and removes the checkpoints."""
    import os

    from peft import LoraConfig
    from transformers import AutoModelForImageTextToText, AutoProcessor, PrinterCallback
    from trl import GRPOConfig, GRPOTrainer

    local = os.path.isdir(model_path)
    # Left padding, as trl loads a processor itself: trl pads the prompt ids on the left and
    # re-tokenizes the prompts with this processor for the multimodal token types of its
    # log-probability pass; a right-padding tokenizer (the default of a saved Qwen3-VL processor)
    # shifts those types against the ids in every row shorter than the batch's longest, which
    # misplaces the image's RoPE positions, and crashes Qwen3-VL's `get_rope_index` once the
    # shift reaches the image (screenshots of different sizes at the paper's max_pixels).
    processor = AutoProcessor.from_pretrained(
        model_path, local_files_only=local, padding_side="left", truncation_side="left"
    )
    dtype = "bfloat16" if params.bf16 else "float32"
    model = AutoModelForImageTextToText.from_pretrained(
        model_path, dtype=dtype, local_files_only=local
    )
    lora = params.lora
    config = GRPOConfig(
        output_dir=str(checkpoint_dir),
        use_cpu=device == "cpu",
        bf16=params.bf16,
        activation_checkpointing=params.gradient_checkpointing,
        num_train_epochs=params.epochs,
        max_steps=params.steps or -1,
        per_device_train_batch_size=params.per_device_batch_size,
        gradient_accumulation_steps=params.gradient_accumulation,
        num_generations=params.num_generations,
        learning_rate=params.learning_rate,
        lr_scheduler_type=params.lr_scheduler,
        warmup_steps=float(params.warmup_ratio),  # a float in [0, 1) is a ratio of all steps
        max_grad_norm=params.max_grad_norm,
        weight_decay=params.weight_decay,
        beta=params.kl_beta,
        temperature=params.temperature,
        scale_rewards=params.scale_rewards,
        max_completion_length=params.max_completion_length,
        logging_steps=1,
        save_strategy="steps",
        save_steps=params.save_steps,
        save_total_limit=1,
        report_to="none",
        seed=seed,
        data_seed=seed,
        dataloader_num_workers=0,
        disable_tqdm=True,
        ddp_find_unused_parameters=False,  # LoRA: every trained parameter is used
        **vllm_settings(vllm),
        generation_kwargs=never_sampled(vision_token_ids(processor), vllm),
    )
    trainer_class = shared_prompt_trainer(GRPOTrainer) if params.shared_prompts else GRPOTrainer
    trainer = trainer_class(
        model=model,
        reward_funcs=reward_funcs or [reward_function(reward)],
        args=config,
        train_dataset=trl_dataset(rows),
        processing_class=processor,
        peft_config=LoraConfig(
            r=lora.r,
            lora_alpha=lora.alpha,
            lora_dropout=lora.dropout,
            target_modules=list(lora.target_modules),
            task_type="CAUSAL_LM",
        ),
    )
    trainer.remove_callback(PrinterCallback)  # logs (with timings) stay in log_history
    resume = last_checkpoint(checkpoint_dir)
    with label_positions_only():
        trainer.train(resume_from_checkpoint=str(resume) if resume else None)
    accelerator = trainer.accelerator
    if accelerator.is_main_process:
        adapter_dir = Path(adapter_dir)
        if adapter_dir.exists():
            shutil.rmtree(adapter_dir)
        accelerator.unwrap_model(trainer.model).save_pretrained(adapter_dir)
        processor.save_pretrained(adapter_dir)
        shutil.rmtree(checkpoint_dir, ignore_errors=True)  # finished: nothing left to resume
    accelerator.wait_for_everyone()
    return GRPORun(list(trainer.state.log_history), trainer.model)


def never_sampled(token_ids: list[int], vllm: VllmParams | None) -> dict[str, Any]:
    """Generation settings that keep `token_ids` (the vision special tokens) out of every rollout:
    transformers' `suppress_tokens` (trl itself suppresses only the image placeholder), or
    vLLM's `logit_bias` when vLLM samples the rollouts."""
    if vllm is not None and vllm.enabled:
        return {"logit_bias": {i: -100.0 for i in token_ids}}
    return {"suppress_tokens": list(token_ids)}


def vllm_settings(vllm: VllmParams | None) -> dict[str, Any]:
    """trl's vLLM switches of `GRPOConfig` (none when vLLM is off)."""
    if vllm is None or not vllm.enabled:
        return {}
    out: dict[str, Any] = {
        "use_vllm": True,
        "vllm_mode": vllm.mode,
        "vllm_gpu_memory_utilization": vllm.gpu_memory_utilization,
    }
    if vllm.server_base_url:
        out["vllm_server_base_url"] = vllm.server_base_url
    return out


@dataclass
class Pools:
    failure: list[dict]
    success: list[dict]
    metrics: dict[str, float]


def collect_pools(
    backend: Backend,
    data_dir: Path,
    clicks: list[dict],
    records: dict[str, dict],
    reward: RewardParams,
    aids: ObservationAids = PAPER_INPUTS,
) -> Pools:
    """Greedy judgements of `clicks` by the tuned evaluator, each scored with the hybrid reward:
    negative reward -> failure pool, otherwise success pool (paper 3.2.3), with full context."""
    run = judge_clicks(Evaluator(backend, aids), data_dir, clicks, records)
    failure, success = [], []
    for click, text, output in zip(run.clicks, run.texts, run.outputs, strict=True):
        record = records[click["sample_id"]]
        columns = reward_columns(click, record)
        value = sample_reward(
            text,
            columns["label"],
            columns["click"],
            columns["correct_box"],
            columns["dark_box"],
            columns["image_width"],
            columns["image_height"],
            reward,
        )
        entry = {
            "click_id": click["click_id"],
            "sample_id": click["sample_id"],
            "image_path": record["image_path"],
            "task": schema.task_text(record),
            "type": record["type"],
            "category": record.get("category"),
            "domain": record.get("domain"),
            "x": click["x"],
            "y": click["y"],
            "label": click["label"],
            "predicted": output.label if isinstance(output, Judgement) else None,
            "out_of_domain": output.value if isinstance(output, OutOfDomain) else None,
            "confidence": getattr(output, "confidence", None),
            "reward": round(value, 6),
            "output": text,
        }
        (failure if value < 0 else success).append(entry)
    return Pools(failure, success, run.metrics)
