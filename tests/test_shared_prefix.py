"""A batch's shared prompt prefix computed once gives `generate`'s greedy answers and the same
label probabilities (`models.backends.shared_prefix`)."""

from __future__ import annotations

import pytest
from PIL import Image

from darkguard.defenses.dude.inputs import ObservationAids, Screenshot, evaluator_conversation
from darkguard.models.backends.hf import HFBackend
from darkguard.models.spec import ModelSpec

TASKS = ["Open the Deals section.", "Read the news about the local elections today.", "Go."]
CANDIDATES = [f"<judge>{label}</judge>" for label in (1, 0, -1)]


def conversations(backend: HFBackend, experience: str | None) -> list:
    image = Image.new("RGB", (320, 240), "white")
    image.paste((0, 90, 200), (40, 40, 140, 80))
    shot = Screenshot(image, backend.max_pixels)
    aids = ObservationAids(zoom=True)
    return [
        evaluator_conversation(shot, task, x, y, experience, aids)
        for task in TASKS
        for x, y in ((50, 60), (300, 200))
    ]


@pytest.mark.parametrize("experience", [None, "- Judge clicks on ads -1. [persistence 2]"])
def test_shared_prefix_answers_as_generate_does(tiny_model, experience) -> None:
    backend = HFBackend(ModelSpec("tiny", path=str(tiny_model), batch_size=4, max_new_tokens=12))
    backend.memo = None
    convs = conversations(backend, experience)
    inputs = backend._inputs(convs[:4])
    assert backend.prefix is not None and backend.prefix.prefix_length(inputs) > 0
    fast, fast_tokens = backend._generate(convs, 12)
    fast_probs, _ = backend._continuation_probs(convs, CANDIDATES)
    backend.prefix = None  # the whole prompt through `generate`
    slow, slow_tokens = backend._generate(convs, 12)
    slow_probs, _ = backend._continuation_probs(convs, CANDIDATES)
    assert fast == slow and fast_tokens == slow_tokens
    assert any(len(text) > 0 for text in fast)  # random weights: answers run to the cap
    for a, b in zip(fast_probs, slow_probs, strict=True):
        assert a == pytest.approx(b, abs=1e-5)


def test_rows_without_a_common_prefix_go_through_generate(tiny_model) -> None:
    backend = HFBackend(ModelSpec("tiny", path=str(tiny_model), batch_size=4, max_new_tokens=6))
    mixed = conversations(backend, None)[:1] + conversations(backend, "- A rule.")[:1]
    assert backend.prefix.prefix_length(backend._inputs(mixed)) == 0
    text_only = [[{"role": "user", "content": "Hello there, how are you today?"}]] * 2
    assert backend.prefix.prefix_length(backend._inputs(text_only)) == 0
    fast, _ = backend._generate(mixed, 6)
    backend.prefix = None
    assert fast == backend._generate(mixed, 6)[0]


def test_judging_never_emits_vision_tokens(tiny_model, monkeypatch) -> None:
    import functools

    import torch
    from transformers.models.qwen3_vl import modeling_qwen3_vl as qwen

    from darkguard.models.backends import hf

    backend = HFBackend(ModelSpec("tiny", path=str(tiny_model), batch_size=4, max_new_tokens=6))
    backend.memo = None
    vision = set(backend.suppressed)
    tokenizer = backend.tokenizer
    names = {"<|vision_start|>", "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>"}
    assert {tokenizer.convert_tokens_to_ids(n) for n in names} <= vision
    assert tokenizer.convert_tokens_to_ids("<|im_end|>") not in vision
    own = qwen.Qwen3VLForConditionalGeneration.forward

    @functools.wraps(own)
    def favouring_vision_tokens(self, *args, **kwargs):
        out = own(self, *args, **kwargs)
        bias = torch.zeros(out.logits.shape[-1])
        bias[sorted(vision)] = 50.0  # the top choice everywhere, unless suppressed
        out.logits = out.logits + bias.to(out.logits.dtype)
        return out

    monkeypatch.setattr(qwen.Qwen3VLForConditionalGeneration, "forward", favouring_vision_tokens)
    emitted: list[list[int]] = []
    decode = hf.safe_batch_decode

    def recorded(tokenizer, sequences, **kwargs):
        emitted.extend(sequences)
        return decode(tokenizer, sequences, **kwargs)

    monkeypatch.setattr(hf, "safe_batch_decode", recorded)
    convs = conversations(backend, None)
    backend._generate(convs, 6)  # the shared prefix
    backend.prefix = None
    backend._generate(convs, 6)  # `generate` over the whole prompt
    tokens = {t for row in emitted for t in row}
    assert len(emitted) == 2 * len(convs) and tokens and not tokens & vision
    backend.suppressed = []  # the check can fail: unsuppressed, vision tokens win
    emitted.clear()
    backend._generate(convs, 6)
    assert {t for row in emitted for t in row} & vision


def test_a_single_row_on_a_gpu_takes_the_plain_path(tiny_model) -> None:
    import dataclasses

    backend = HFBackend(ModelSpec("tiny", path=str(tiny_model), batch_size=4, max_new_tokens=6))
    convs = conversations(backend, None)
    one, two = backend._inputs(convs[:1]), backend._inputs(convs[:2])
    assert backend._shared_prefix(one) > 0 and backend._shared_prefix(two) > 0  # CPU: always
    backend.spec = dataclasses.replace(backend.spec, device="cuda")  # the choice only
    assert backend._shared_prefix(one) == 0 and backend._shared_prefix(two) > 0
