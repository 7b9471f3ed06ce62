"""What the GRPO tests train with: small settings, and a reward function (module level:
launched processes unpickle it)."""

from __future__ import annotations

from darkguard.config import GRPOParams


def completion_length(completions, **kwargs) -> list[float]:
    """A random model never emits the answer format, so the hybrid reward would be -10 for every
    completion (no variance, no gradient); the completion's length gives GRPO a signal."""
    return [float(len(str(c))) for c in completions]


def small_grpo(per_device: int, steps: int, save_steps: int = 100) -> GRPOParams:
    """A few GRPO steps of a tiny model: two completions per prompt, a small LoRA."""
    return GRPOParams(
        epochs=1.0,
        steps=steps,
        per_device_batch_size=per_device,
        gradient_accumulation=1,
        num_generations=2,
        learning_rate=1e-3,
        lr_scheduler="cosine",
        warmup_ratio=0.1,
        max_grad_norm=0.2,
        weight_decay=0.01,
        kl_beta=0.05,
        temperature=1.0,
        scale_rewards="group",
        max_completion_length=8,
        bf16=False,
        gradient_checkpointing=False,
        save_steps=save_steps,
        lora={"r": 4, "alpha": 8, "dropout": 0.0, "target_modules": ["q_proj", "v_proj"]},
    )
