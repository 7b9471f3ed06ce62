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
