"""Each repeated prompt of a GRPO batch computed once gives trl's log-probabilities, entropies and
gradients (`accel.grpo_prompts`)."""

from __future__ import annotations

import pytest
import torch
from PIL import Image

from darkguard.accel.grpo_prompts import (
    generate_sharing_prompts,
    grouped_logps,
    images_per_row,
    pixel_rows_per_sample,
    prefill_shared,
    prompt_groups,
    shared_prompt_trainer,
    supports_grouping,
)

TASKS = ["Open the Deals section.", "Read the news about the local elections today."]


def _page(shade: int) -> Image.Image:
    image = Image.new("RGB", (320, 240), "white")
    image.paste((0, shade, 200), (40, 40, 140, 80))
    return image


def grpo_batch(processor, generations: int, completion: int = 6):
    """A batch laid out as trl's GRPO lays it out: each prompt `generations` times in a row, left
    padded, then completions of different lengths, right padded."""
    messages = [
        [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": task}]}]
        for task in TASKS
    ]
    texts = [processor.apply_chat_template(m, add_generation_prompt=True) for m in messages]
    rows = [i for i in range(len(TASKS)) for _ in range(generations)]
    inputs = processor(
        text=[texts[i] for i in rows],
        images=[[_page(60 + 90 * i)] for i in rows],
        padding=True,
        return_tensors="pt",
    )
    gen = torch.Generator().manual_seed(0)
    vocab = len(processor.tokenizer) - 20
    done = torch.randint(5, vocab, (len(rows), completion), generator=gen)
    mask = torch.ones_like(done)
    for r in range(len(rows)):  # row r stops after completion - r % 3 tokens (padding after)
        mask[r, completion - r % 3 :] = 0
    done = done.masked_fill(mask == 0, processor.tokenizer.pad_token_id)
    ids = torch.cat([inputs["input_ids"], done], dim=1)
    attention = torch.cat([inputs["attention_mask"], mask], dim=1)
    types = torch.cat([inputs["mm_token_type_ids"], torch.zeros_like(done)], dim=1)
    return ids, attention, types, inputs, [1] * len(rows)


def full_logps(model, ids, attention, types, inputs, completion):
    """trl's reference computation: the whole prompt + completion of every row."""
    logits = model(
        input_ids=ids,
        attention_mask=attention,
        mm_token_type_ids=types,
        pixel_values=inputs["pixel_values"],
        image_grid_thw=inputs["image_grid_thw"],
    ).logits[:, -completion - 1 : -1]
    log_probs = torch.log_softmax(logits.float(), dim=-1)
    token = log_probs.gather(-1, ids[:, -completion:, None]).squeeze(-1)
    entropy = -(log_probs.exp() * log_probs).sum(-1)
    scored = attention[:, -completion:].bool()
    return token.masked_fill(~scored, 0.0), entropy.masked_fill(~scored, 0.0)


@pytest.fixture(scope="module")
def tiny(tiny_model):
    from transformers import AutoModelForImageTextToText, AutoProcessor

    torch.manual_seed(0)
    processor = AutoProcessor.from_pretrained(tiny_model)
    processor.tokenizer.padding_side = "left"
    model = AutoModelForImageTextToText.from_pretrained(tiny_model)
    return processor, model


def test_rows_with_equal_prompts_and_images_form_groups(tiny) -> None:
    processor, _ = tiny
    ids, attention, _, inputs, num_images = grpo_batch(processor, 3)
    prompt = inputs["input_ids"].shape[1]
    pixels = pixel_rows_per_sample(inputs["pixel_values"], inputs["image_grid_thw"], num_images)
    groups = prompt_groups(ids[:, :prompt], attention[:, :prompt], pixels)
    assert groups.first == [0, 3] and groups.of_row == [0, 0, 0, 1, 1, 1]
    assert groups.repeated
    other = list(pixels)
    other[1] = other[1] + 1.0  # same tokens, another image: its own group
    assert prompt_groups(ids[:, :prompt], attention[:, :prompt], other).of_row == [0, 1, 0, 2, 2, 2]
    single = prompt_groups(ids[:2, :prompt], attention[:2, :prompt], None)
    assert not prompt_groups(ids[2:4, :prompt], attention[2:4, :prompt], None).repeated
    assert single.first == [0]


def test_grouped_logps_equal_the_whole_rows_with_their_gradients(tiny) -> None:
    processor, model = tiny
    completion = 6
    ids, attention, types, inputs, num_images = grpo_batch(processor, 3, completion)
    prompt = inputs["input_ids"].shape[1]
    pixels = pixel_rows_per_sample(inputs["pixel_values"], inputs["image_grid_thw"], num_images)
    groups = prompt_groups(ids[:, :prompt], attention[:, :prompt], pixels)
    assert supports_grouping(model)
    weight = model.model.language_model.layers[0].self_attn.q_proj.weight

    model.zero_grad()
    want, want_entropy = full_logps(model, ids, attention, types, inputs, completion)
    (want * torch.arange(1.0, 7.0)).sum().backward()
    want_grad = weight.grad.clone()

    model.zero_grad()
    got, got_entropy = grouped_logps(
        model, ids, attention, completion, groups, pixels, inputs["image_grid_thw"],
        num_images, types, 1.0, True,
    )  # fmt: skip
    (got * torch.arange(1.0, 7.0)).sum().backward()
    assert got.shape == want.shape == (6, completion)
    assert torch.allclose(got, want, atol=1e-5)
    assert torch.allclose(got_entropy, want_entropy, atol=1e-5)
    assert (got[:, -1] == 0).sum() == 4  # padding scores 0, as in trl
    assert torch.allclose(weight.grad, want_grad, atol=1e-5, rtol=1e-4)
    assert want_grad.abs().sum() > 0


@pytest.mark.parametrize("sample", [False, True])
def test_generation_with_each_prompt_prefilled_once_is_generate(tiny, sample: bool) -> None:
    """Greedy and seeded sampling: the same tokens and, to float rounding, the same scores as
    `generate` over every row's whole prompt."""
    from transformers import GenerationConfig

    processor, model = tiny
    _, _, _, inputs, _ = grpo_batch(processor, 3)
    config = GenerationConfig(
        max_new_tokens=8, do_sample=sample, temperature=1.0, top_k=0, top_p=1.0,
        pad_token_id=processor.tokenizer.pad_token_id, return_dict_in_generate=True,
        output_scores=True,
    )  # fmt: skip
    kwargs = {k: inputs[k] for k in ("pixel_values", "image_grid_thw", "mm_token_type_ids")}
    assert images_per_row(inputs["input_ids"], model) == [1] * 6
    runs, seen = [], []  # the vision tower's input rows, each run
    hook = model.model.visual.register_forward_hook(lambda m, a, o: seen.append(a[0].shape[0]))
    for shared in (False, True):
        torch.manual_seed(7)
        model.model.rope_deltas = None
        with torch.no_grad():
            if shared:
                with prefill_shared(model):
                    out = model.generate(
                        input_ids=inputs["input_ids"],
                        attention_mask=inputs["attention_mask"],
                        generation_config=config,
                        **kwargs,
                    )
            else:
                out = model.generate(
                    input_ids=inputs["input_ids"],
                    attention_mask=inputs["attention_mask"],
                    generation_config=config,
                    **kwargs,
                )
        runs.append(out)
    hook.remove()
    assert seen == [inputs["pixel_values"].shape[0], inputs["pixel_values"].shape[0] // 3]
    assert "generate" not in vars(model)  # the class's own method again
    assert torch.equal(runs[0].sequences, runs[1].sequences)
    for want, got in zip(runs[0].scores, runs[1].scores, strict=True):
        assert torch.allclose(got, want, atol=1e-4)


def test_generation_without_repeated_prompts_is_plain_generate() -> None:
    calls = []
    model = torch.nn.Linear(1, 1)
    model.config = type("C", (), {"vision_start_token_id": 99})()
    ids = torch.arange(12).view(2, 6)  # two different prompts, no image

    def generate(**kwargs):
        calls.append(sorted(kwargs))
        return "generated"

    out = generate_sharing_prompts(model, generate, ids, torch.ones_like(ids), top_k=3)
    assert out == "generated" and calls == [["attention_mask", "input_ids", "top_k"]]
    assert generate_sharing_prompts(model, generate, ids, torch.ones_like(ids)) == "generated"
    assert len(calls) == 2


def test_the_trainer_falls_back_to_trl_without_repeated_prompts() -> None:
    calls = []

    class Trl:
        def _get_per_token_logps_and_entropies(self, model, input_ids, *args, **kwargs):
            calls.append(input_ids.shape)
            return "trl", None, None

    class Accelerator:
        num_processes = 1

        def unwrap_model(self, model):
            return model

    trainer = shared_prompt_trainer(Trl)()
    trainer.accelerator = Accelerator()
    ids = torch.arange(12).view(2, 6)  # two different prompts
    model = torch.nn.Linear(1, 1)
    model.config = type("C", (), {"model_type": "qwen3_vl"})()
    out = trainer._get_per_token_logps_and_entropies(model, ids, torch.ones_like(ids), 3)
    assert out[0] == "trl" and calls == [(2, 6)]
    model.config.model_type = "llama"  # another family: trl's path even with repeats
    same = torch.zeros(2, 6, dtype=torch.long)
    assert trainer._get_per_token_logps_and_entropies(model, same, torch.ones_like(same), 3)[0]
    assert calls == [(2, 6), (2, 6)]


@pytest.mark.slow
def test_grpo_with_shared_prompts_trains_as_trl_does(
    release, tiny_model, tmp_path, monkeypatch
) -> None:
    """Two GRPO steps through trl's trainer with and without `shared_prompts` (the rollouts'
    prefill and the log-probabilities): the same logged loss, KL and reward, and LoRA weights
    equal up to float rounding."""
    from darkguard.accel import grpo_prompts
    from darkguard.training.dude.stage1 import grpo_rows, train_grpo

    grouped, repeats = [], []
    own = grpo_prompts.grouped_logps
    monkeypatch.setattr(
        grpo_prompts, "grouped_logps", lambda *a, **k: grouped.append(a[4]) or own(*a, **k)
    )
    own_repeat = grpo_prompts.repeat_cache
    monkeypatch.setattr(
        grpo_prompts, "repeat_cache", lambda *a: repeats.append(a[1].tolist()) or own_repeat(*a)
    )
    from tests.grpo_fixtures import completion_length, small_grpo
    from tests.test_stage1 import REWARD, fixture_clicks

    clicks, records = fixture_clicks(release)
    rows = grpo_rows(clicks, records, release, 128 * 128)
    runs = {}
    for shared in (False, True):
        params = small_grpo(per_device=4, steps=2).model_copy(update={"shared_prompts": shared})
        out = tmp_path / str(shared)
        runs[shared] = train_grpo(
            str(tiny_model), rows, out / "adapter", out / "ckpt", params, REWARD, 42,
            reward_funcs=[completion_length],
        )  # fmt: skip
        assert bool(grouped) == shared  # the policy's and the reference's, at every step
    assert len(grouped) == 4  # two prompts, two completions each (in any order)
    assert len(repeats) == 6  # and each step's rollouts prefilled each prompt once
    assert all(sorted(g.of_row) == [0, 0, 1, 1] for g in grouped)
    steps = {s: [e for e in r.log_history if "reward" in e] for s, r in runs.items()}
    for trl_step, shared_step in zip(steps[False], steps[True], strict=True):
        for key in ("loss", "kl", "reward", "entropy"):
            assert shared_step[key] == pytest.approx(trl_step[key], abs=1e-5), key
    weights = {s: r.model.state_dict() for s, r in runs.items()}
    lora = [k for k in weights[False] if "lora_B" in k]
    assert lora and any(weights[True][k].abs().sum() > 0 for k in lora)
    for key in lora:
        assert torch.allclose(weights[True][key], weights[False][key], atol=1e-5), key
