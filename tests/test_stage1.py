"""Stage 1: training rows, reward binding, failure/success pools, and a GRPO smoke run."""

from __future__ import annotations

import functools
import json

import pytest
import torch
from safetensors.torch import load_file

from darkguard.config import RewardParams
from darkguard.defenses.dude.inputs import ObservationAids
from darkguard.ruc.clicks import generate_clicks
from darkguard.training.dude.stage1 import (
    collect_pools,
    grpo_rows,
    last_checkpoint,
    reward_function,
    train_grpo,
)
from tests.grpo_fixtures import completion_length, small_grpo

REWARD = RewardParams(
    eps=1e-6, alpha_min=0.1, alpha_max=10.0, use_omega=True, use_alpha=True, confidence_only=False
)


def fixture_clicks(release):
    records = {str(r["id"]): r for r in json.loads((release / "full.json").read_text())}
    clicks, _ = generate_clicks(list(records.values()), 1, 42)
    return clicks, records


class ScriptedEvaluator:
    """Answers the conversations with a fixed script, in order."""

    max_pixels = 128 * 128

    def __init__(self, answers: list[str]) -> None:
        self.answers = answers

    def generate(self, conversations, max_new_tokens=None):
        assert len(conversations) == len(self.answers)
        return list(self.answers)


def test_grpo_rows_carry_the_reward_columns(release) -> None:
    clicks, records = fixture_clicks(release)
    rows = grpo_rows(clicks, records, release, 128 * 128, ObservationAids(zoom=True))
    assert len(rows) == len(clicks)
    for click, row in zip(clicks, rows, strict=True):
        record = records[click["sample_id"]]
        assert row["label"] == click["label"] and row["click"] == [click["x"], click["y"]]
        assert row["correct_box"] == record["correct_box"]["bbox"]
        has_dark = record["type"] == "Deception"
        assert (row["dark_box"] is not None) == has_dark
        assert row["image_width"] == record["image_width"]
        assert len(row["images"]) == 2
        assert [p["type"] for p in row["prompt"][1]["content"]] == ["image", "image", "text"]


def test_reward_function_binds_switches_and_keeps_a_name() -> None:
    fn = reward_function(REWARD.model_copy(update={"use_omega": False}))
    assert fn.__name__ == "hybrid_reward"
    out = fn(
        ["<judge>1</judge> <conf>0.9</conf>"],
        label=[-1],
        click=[[700, 200]],
        correct_box=[[100, 100, 300, 200]],
        dark_box=[[600, 100, 800, 300]],
        image_width=[1000],
        image_height=[500],
    )
    assert out == pytest.approx([-0.09])


def test_collect_pools_splits_by_reward_sign(release) -> None:
    clicks, records = fixture_clicks(release)
    answers = [f"<judge>{c['label']}</judge> <conf>0.9</conf>" for c in clicks]
    answers[0] = "no answer"  # parse failure: reward -10
    wrong = next(i for i, c in enumerate(clicks) if c["label"] == -1)
    answers[wrong] = "<judge>1</judge> <conf>0.8</conf>"  # C4
    pools = collect_pools(ScriptedEvaluator(answers), release, clicks, records, REWARD)
    assert len(pools.failure) + len(pools.success) == len(clicks)
    expected = [clicks[0]["click_id"], clicks[wrong]["click_id"]]
    assert [f["click_id"] for f in pools.failure] == expected
    first, c4 = pools.failure
    assert first["reward"] == -10.0 and first["predicted"] is None
    assert c4["predicted"] == 1 and c4["label"] == -1 and c4["confidence"] == 0.8
    assert c4["reward"] < 0 and c4["task"] and c4["image_path"].startswith("images/")
    assert all(s["reward"] > 0 for s in pools.success)


def test_last_checkpoint_orders_numerically(tmp_path) -> None:
    assert last_checkpoint(tmp_path) is None
    for n in (5, 40, 120):
        (tmp_path / f"checkpoint-{n}").mkdir()
    assert last_checkpoint(tmp_path).name == "checkpoint-120"


@pytest.mark.slow
def test_checkpoints_of_another_training_are_not_resumed(tmp_path) -> None:
    from darkguard.stages.stage1_grpo import checkpoints_for
    from darkguard.training.dude.stage1 import last_checkpoint

    folder = tmp_path / "checkpoints"
    (folder / "checkpoint-10").mkdir(parents=True)  # an interrupted run without a stamp
    checkpoints_for(folder, {"evaluator": "a"})
    assert last_checkpoint(folder) is None
    (folder / "checkpoint-20").mkdir()  # this run, interrupted
    checkpoints_for(folder, {"evaluator": "a"})
    assert last_checkpoint(folder) == folder / "checkpoint-20"  # same settings: resumed
    checkpoints_for(folder, {"evaluator": "b"})  # another starting evaluator
    assert last_checkpoint(folder) is None


def test_grpo_smoke_trains_a_loadable_adapter(release, tiny_model, tmp_path) -> None:
    from darkguard.models.backends.hf import HFBackend
    from darkguard.models.spec import ModelSpec

    clicks, records = fixture_clicks(release)
    rows = grpo_rows(clicks, records, release, 128 * 128)
    params = small_grpo(per_device=4, steps=2, save_steps=1)

    run = train_grpo(
        str(tiny_model),
        rows,
        tmp_path / "adapter",
        tmp_path / "ckpt",
        params,
        REWARD,
        42,
        reward_funcs=[completion_length],
    )
    steps = [e for e in run.log_history if "reward" in e]
    assert len(steps) == 2 and all("entropy" in e for e in steps)
    assert (tmp_path / "adapter" / "adapter_config.json").is_file()
    assert not (tmp_path / "ckpt").exists()  # finished: checkpoints removed
    original = load_file(tiny_model / "model.safetensors")
    lora_b, base = [], 0
    for name, value in run.model.state_dict().items():
        if "lora_B" in name:
            lora_b.append(bool(value.abs().sum() > 0))  # initialised to zero
        elif "lora_" not in name:
            key = name.removeprefix("base_model.model.").replace(".base_layer", "")
            if key in original:  # (a tied lm_head is not stored separately)
                assert torch.equal(value, original[key]), f"base weight {key} changed"
                base += 1
    assert lora_b and all(lora_b) and base == len(original)
    spec = ModelSpec("tuned", path=str(tiny_model), adapter=str(tmp_path / "adapter"))
    texts = HFBackend(spec).generate([[{"role": "user", "content": "hi"}]], max_new_tokens=4)
    assert len(texts) == 1


def test_cli_train_stage1_names_the_bad_setting(tmp_path, capsys) -> None:
    import yaml

    from darkguard import paths
    from darkguard.cli import main

    params = yaml.safe_load(paths.PARAMS_FILE.read_text())
    del params["stage1"]["grpo"]["tiny"]
    bad = tmp_path / "params.yaml"
    bad.write_text(yaml.safe_dump(params))
    assert main(["train", "stage1", "--params", str(bad)]) != 0
    assert "params.yaml: stage1.grpo.tiny: missing key" in capsys.readouterr().err


PAPER_MAX_PIXELS = 1003520  # models.paper.qwen3_vl_2b: ~940 visual tokens per screenshot


@pytest.fixture(scope="module")
def paper_size_model(tmp_path_factory):
    """A tiny Qwen3-VL with the paper evaluator's vision settings (patch 16, merge 2, temporal
    patch 2) and image cap."""
    from darkguard.models import prompts
    from darkguard.models.tiny.architecture import TinySize, build_tiny

    return build_tiny(
        tmp_path_factory.mktemp("paper_size"),
        [prompts.EVALUATOR_SYSTEM, "a page"],
        TinySize(),
        vocab_size=600,
        max_pixels=PAPER_MAX_PIXELS,
        seed=42,
    )


def paper_grpo(**changes):
    """`stage1.grpo.paper` as params.yaml writes it, with `changes` (CPU: no bf16)."""
    from darkguard.config import GRPOParams, load_params

    raw = dict(load_params()["stage1"]["grpo"]["paper"])
    raw.update(bf16=False, steps=1, max_completion_length=8, **changes)
    return GRPOParams(**raw)


@pytest.fixture
def rope_checked(monkeypatch):
    """Every `get_rope_index` call checked: a row's multimodal token types must mark exactly its
    image placeholders (misaligned types misplace the image's RoPE positions)."""
    from transformers.models.qwen3_vl import modeling_qwen3_vl as qwen

    own = qwen.Qwen3VLModel.get_rope_index
    calls = []

    def checked(self, input_ids=None, mm_token_type_ids=None, *args, **kwargs):
        mask = kwargs.get("attention_mask")
        for row in range(input_ids.shape[0]):
            keep = mask[row].bool() if mask is not None else slice(None)
            images = input_ids[row][keep] == self.config.image_token_id
            assert torch.equal(mm_token_type_ids[row][keep] == 1, images), f"row {row}"
        calls.append(input_ids.shape)
        return own(self, input_ids, mm_token_type_ids, *args, **kwargs)

    monkeypatch.setattr(qwen.Qwen3VLModel, "get_rope_index", checked)
    return calls


@pytest.mark.slow
@pytest.mark.parametrize("shared_prompts", [False, True], ids=["trl_path", "shared_prompts"])
def test_a_grpo_step_at_the_papers_image_size(
    release, paper_size_model, rope_checked, tmp_path, shared_prompts
) -> None:
    # The paper's GRPO settings (2 x 2 rows a micro-batch, 8 accumulated: prompts padded across
    # 16 rows) on screenshots of different sizes at the paper's cap: prompts of ~800-1300 tokens.
    clicks, records = fixture_clicks(release)
    rows = grpo_rows(clicks, records, release, PAPER_MAX_PIXELS)
    sizes = {im.size for row in rows for im in row["images"]}
    assert len(sizes) > 1 and max(w * h for w, h in sizes) > 900_000
    changes = {"shared_prompts": True, "gradient_checkpointing": False} if shared_prompts else {}
    params = paper_grpo(**changes)
    assert params.gradient_checkpointing != shared_prompts  # the paper's: checkpointing on
    run = train_grpo(
        str(paper_size_model),
        rows,
        tmp_path / "adapter",
        tmp_path / "ckpt",
        params,
        REWARD,
        42,
        reward_funcs=[completion_length],
    )
    (step,) = [e for e in run.log_history if "reward" in e]
    assert step["kl"] == pytest.approx(0.0, abs=1e-6)  # the policy is the reference at step 1
    assert rope_checked and max(shape[1] for shape in rope_checked) > 1000


VISION_SAMPLED: list[list[int]] = []


def vision_tokens_sampled(completions, completion_ids, **kwargs) -> list[float]:
    """Records the completions' token ids (the reward itself is the completion's length)."""
    VISION_SAMPLED.extend(completion_ids)
    return completion_length(completions)


@pytest.mark.slow
def test_rollouts_never_sample_vision_tokens(release, tiny_model, tmp_path, monkeypatch) -> None:
    from transformers import AutoProcessor
    from transformers.models.qwen3_vl import modeling_qwen3_vl as qwen

    from darkguard.models.vision_tokens import vision_token_ids

    suppressed = vision_token_ids(AutoProcessor.from_pretrained(tiny_model))
    own = qwen.Qwen3VLForConditionalGeneration.forward

    @functools.wraps(own)  # generate checks its inputs against forward's signature
    def favouring_vision_tokens(self, *args, **kwargs):
        out = own(self, *args, **kwargs)
        bias = torch.zeros(out.logits.shape[-1])
        bias[suppressed] = 30.0  # without suppression nearly every sampled token is one
        out.logits = out.logits + bias.to(out.logits.dtype)
        return out

    monkeypatch.setattr(qwen.Qwen3VLForConditionalGeneration, "forward", favouring_vision_tokens)
    clicks, records = fixture_clicks(release)
    rows = grpo_rows(clicks, records, release, 128 * 128)
    VISION_SAMPLED.clear()
    train_grpo(
        str(tiny_model),
        rows,
        tmp_path / "adapter",
        tmp_path / "ckpt",
        small_grpo(per_device=4, steps=1),
        REWARD,
        42,
        reward_funcs=[vision_tokens_sampled],
    )
    sampled = [t for ids in VISION_SAMPLED for t in ids]
    assert len(sampled) >= 8 and not set(sampled) & set(suppressed)
