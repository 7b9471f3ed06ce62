"""The answer memo of the hf backend: a rerun reads what the model answered, nothing else."""

from __future__ import annotations

from PIL import Image

from darkguard.models.backends.hf import HFBackend
from darkguard.models.backends.memo import FILE_NAME
from darkguard.models.spec import ModelSpec


def _conversation(color: int, text: str) -> list:
    image = Image.new("RGB", (64, 48), (color, 255 - color, 40))
    content = [{"type": "image", "image": image}, {"type": "text", "text": text}]
    return [{"role": "user", "content": content}]


def _backend(tiny_model, batch_size: int = 2) -> HFBackend:
    spec = ModelSpec("tiny", path=str(tiny_model), batch_size=batch_size, max_new_tokens=6)
    return HFBackend(spec)


def test_a_second_process_reads_the_answers_back(tiny_model, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("DARKGUARD_CACHE", str(tmp_path))
    convs = [_conversation(c, f"Task: add item {c} to the cart.") for c in (0, 90, 200)]
    first = _backend(tiny_model)
    texts = first.generate(convs)
    probs = first.continuation_probs(convs, ["<judge>1</judge>", "<judge>0</judge>"])
    tokens = list(first.last_tokens)
    assert (tmp_path / FILE_NAME).is_file()

    again = _backend(tiny_model, batch_size=3)  # another batch size, same model

    def no_model(*args, **kwargs):
        raise AssertionError("the model ran on a kept answer")

    monkeypatch.setattr(again, "_generate", no_model)
    monkeypatch.setattr(again, "_continuation_probs", no_model)
    assert again.generate(convs) == texts
    assert again.continuation_probs(convs, ["<judge>1</judge>", "<judge>0</judge>"]) == probs
    assert again.last_tokens == tokens and again.tokens_used == first.tokens_used


def test_only_what_changed_runs_and_order_is_kept(tiny_model, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("DARKGUARD_CACHE", str(tmp_path))
    backend = _backend(tiny_model)
    kept = [_conversation(0, "Task: buy it."), _conversation(90, "Task: buy it.")]
    backend.generate(kept)
    new = [
        _conversation(91, "Task: buy it."),  # one pixel value differs
        _conversation(0, "Task: buy it!"),  # one character differs
    ]
    ran: list[int] = []
    compute = backend._generate

    def counting(conversations, max_new):
        ran.append(len(conversations))
        return compute(conversations, max_new)

    monkeypatch.setattr(backend, "_generate", counting)
    mixed = [new[0], kept[1], new[1], kept[0]]
    out = backend.generate(mixed)
    assert ran == [2]
    fresh = _backend(tiny_model)
    monkeypatch.setenv("DARKGUARD_CACHE", "off")
    assert _backend(tiny_model).memo is None
    assert out == [fresh.generate([c])[0] for c in mixed]
    backend.generate(mixed, max_new_tokens=3)  # another completion length: computed again
    assert ran == [2, 4]


def test_a_damaged_memo_file_only_costs_recomputation(tiny_model, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("DARKGUARD_CACHE", str(tmp_path))
    (tmp_path / FILE_NAME).write_bytes(b"not a database")
    backend = _backend(tiny_model)
    convs = [_conversation(10, "Task: read the news.")]
    assert backend.generate(convs) == backend.generate(convs)
