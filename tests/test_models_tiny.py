"""A tiny Qwen3-VL built offline loads like a real checkpoint and generates through `hf`."""

from __future__ import annotations

import pytest
from PIL import Image

from darkguard.models import prompts
from darkguard.models.backends import load_backend
from darkguard.models.backends.hf import safe_batch_decode
from darkguard.models.spec import ModelSpec
from darkguard.models.tiny.architecture import TinySize, build_tiny
from tests.conftest import TINY_CORPUS

CORPUS = [prompts.EVALUATOR_SYSTEM, prompts.AGENT_SYSTEM, *TINY_CORPUS]  # as the tiny_model fixture


@pytest.fixture(scope="module")
def tiny_dir(tiny_model):
    return tiny_model


def test_build_is_deterministic(tiny_dir, tmp_path) -> None:
    again = build_tiny(tmp_path, CORPUS, TinySize(), vocab_size=600, max_pixels=128 * 128, seed=42)
    for name in ("tokenizer.json", "config.json", "model.safetensors"):
        assert (again / name).read_bytes() == (tiny_dir / name).read_bytes(), name


def test_mrope_section_sums_to_half_head_dim() -> None:
    for head_dim in (16, 32, 64, 128):
        assert sum(TinySize(head_dim=head_dim).mrope_section) == head_dim // 2


def test_loads_with_auto_classes_offline(tiny_dir, monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from transformers import AutoModelForImageTextToText, AutoProcessor

    processor = AutoProcessor.from_pretrained(tiny_dir)
    model = AutoModelForImageTextToText.from_pretrained(tiny_dir)
    assert type(processor).__name__ == "Qwen3VLProcessor"
    assert type(model).__name__ == "Qwen3VLForConditionalGeneration"
    ids = processor.tokenizer("<|im_start|>user\n<judge>1</judge><|im_end|>")["input_ids"]
    assert processor.tokenizer.convert_tokens_to_ids("<|im_start|>") == ids[0]
    assert processor.tokenizer.decode(ids) == "<|im_start|>user\n<judge>1</judge><|im_end|>"


def test_hf_backend_batched_greedy_is_deterministic(tiny_dir) -> None:
    spec = ModelSpec("tiny", path=str(tiny_dir), batch_size=3, max_new_tokens=6)
    backend = load_backend(spec)
    convs = []
    for i in range(5):
        image = Image.new("RGB", (320 + 40 * i, 240), (40 * i, 80, 120))
        convs.append(
            [
                {"role": "system", "content": prompts.evaluator_system("Be careful.")},
                {
                    "role": "user",
                    "content": [
                        {"type": "image", "image": image},
                        {"type": "text", "text": prompts.evaluator_user("t", 1, 2, 320, 240)},
                    ],
                },
            ]
        )
    first = backend.generate(convs)
    assert len(first) == 5 and all(isinstance(t, str) for t in first)
    assert backend.generate(convs) == first
    assert backend.generate(convs[2:3]) == first[2:3]  # batching does not change an answer


def test_safe_batch_decode_replaces_out_of_vocab_ids(tiny_dir) -> None:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_dir)
    ok = tok("<judge>1</judge>")["input_ids"]
    assert safe_batch_decode(tok, [[*ok, 10**6, -3]], skip_special_tokens=True) == [
        "<judge>1</judge>"
    ]


def test_evaluator_prompt_guidance_block() -> None:
    assert "[IMPORTANT GUIDANCE]" not in prompts.evaluator_system()
    text = prompts.evaluator_system("Distrust countdown timers.")
    assert "[IMPORTANT GUIDANCE]\nDistrust countdown timers.\n[END OF GUIDANCE]" in text
    assert text.endswith("<judge>L</judge> <conf>c</conf>")
