"""trl's fused LM head scoring only the labelled positions (`label_positions_only`): the same
loss and gradients as trl's own every-position path on a CPU, and trl's choice back after."""

from __future__ import annotations

import torch
import trl.trainer.utils as trl_utils
from transformers import AutoModelForCausalLM, Qwen3Config
from trl.trainer.utils import add_fused_lm_head

from darkguard.models.trl_head import label_positions_only


def tiny_model() -> torch.nn.Module:
    torch.manual_seed(0)
    config = Qwen3Config(
        vocab_size=97,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=16,
    )
    model = AutoModelForCausalLM.from_config(config)
    add_fused_lm_head(model, outputs=("log_probs", "entropy", "is_top1"))
    return model


def loss_and_grads(model: torch.nn.Module, ids: torch.Tensor, labels: torch.Tensor):
    model.zero_grad()
    out = model(input_ids=ids, labels=labels, fused_lm_head=True)
    out.loss.backward()
    grads = [p.grad.clone() for p in model.parameters() if p.grad is not None]
    return out, grads


def test_compact_scoring_equals_every_position_scoring_on_cpu() -> None:
    model = tiny_model()
    ids = torch.randint(0, 97, (3, 24), generator=torch.Generator().manual_seed(1))
    labels = ids.clone()
    labels[:, :18] = -100  # a prompt of 18 tokens, a completion of 6
    labels[1, 20:] = -100  # and a shorter one
    assert not trl_utils._use_triton(torch.device("cpu"))  # trl's own choice: every position
    full, full_grads = loss_and_grads(model, ids, labels)
    with label_positions_only():
        assert trl_utils._use_triton(torch.device("cpu"))
        compact, compact_grads = loss_and_grads(model, ids, labels)
    assert not trl_utils._use_triton(torch.device("cpu"))  # trl's choice is back
    torch.testing.assert_close(compact.loss, full.loss, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(compact.log_probs, full.log_probs, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(compact.entropy, full.entropy, rtol=1e-5, atol=1e-6)
    assert torch.equal(compact.is_top1, full.is_top1)
    assert len(compact_grads) == len(full_grads) > 0
    for a, b in zip(compact_grads, full_grads, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)


def test_the_block_restores_trls_choice_after_an_error() -> None:
    own = trl_utils._use_triton
    try:
        with label_positions_only():
            raise RuntimeError("a failing step")
    except RuntimeError:
        pass
    assert trl_utils._use_triton is own
