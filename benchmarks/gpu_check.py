"""The `paper` profile's GPU check: one command on a CUDA machine, a summary in a few minutes.

1. The tiny evaluator (the tiny profile's evaluator-large architecture, random weights) judging
   on CUDA in float32 and bfloat16: the shared-prefix answers against `generate`'s.
2. A random-weight Qwen3-VL of Qwen3-VL-2B-Instruct's architecture (the paper's evaluator,
   `models.paper.qwen3_vl_2b`, max_pixels 1003520) judging through the `hf` backend: answers per
   second with and without the shared prefix at several batch sizes, their agreement in bfloat16
   and in float32 (rounding or a defect), peak memory.
3. GRPO steps of `stage1.grpo.paper` as params.yaml writes it (bf16, gradient checkpointing,
   trl's own path) on that model and the test fixture's screenshots at the paper's image size:
   step time, peak memory, KL at step 1 (the policy is the reference: ~0); and the same with
   `shared_prompts` (checkpointing off, as the config requires).

    python benchmarks/gpu_check.py [--out FILE] [--grpo-steps 3] [--skip-grpo]
    python benchmarks/gpu_check.py --dry-run     # the same code on the CPU, tiny models only

No weights are downloaded: the models are built here from their configurations. Prints the
summary (markdown) and writes it to --out (default: benchmarks/results/gpu_check.md; a dry run
writes nothing).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "lib"), str(ROOT)]

import torch  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "ruc_release"
DEVICE = "cuda"  # "cpu" for a dry run
PAPER_MAX_PIXELS = 1003520
TASKS = ["Open the Deals section.", "Read the news about the local elections today."]
CLICKS = [(0.2, 0.3), (0.6, 0.5), (0.85, 0.1), (0.5, 0.9)]


def synchronize() -> None:
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def reset_peak() -> None:
    if DEVICE == "cuda":
        torch.cuda.reset_peak_memory_stats()


def peak_gib() -> float | None:
    return round(torch.cuda.max_memory_allocated() / 2**30, 2) if DEVICE == "cuda" else None


def empty_cache() -> None:
    if DEVICE == "cuda":
        torch.cuda.empty_cache()


def qwen3_vl_2b_config(ids: dict[str, int]):
    """Qwen3-VL-2B-Instruct's architecture (its published config.json values), random weights."""
    from transformers import Qwen3VLConfig

    return Qwen3VLConfig(
        text_config=dict(
            vocab_size=151936,
            hidden_size=2048,
            intermediate_size=6144,
            num_hidden_layers=28,
            num_attention_heads=16,
            num_key_value_heads=8,
            head_dim=128,
            hidden_act="silu",
            rms_norm_eps=1e-6,
            tie_word_embeddings=True,
            max_position_embeddings=262144,
            rope_parameters={
                "rope_type": "default",
                "rope_theta": 5e6,
                "mrope_section": [24, 20, 20],
                "mrope_interleaved": True,
            },
            bos_token_id=None,
            eos_token_id=ids["<|im_end|>"],
            pad_token_id=ids["<|endoftext|>"],
        ),
        vision_config=dict(
            depth=24,
            hidden_size=1024,
            intermediate_size=4096,
            num_heads=16,
            patch_size=16,
            spatial_merge_size=2,
            temporal_patch_size=2,
            out_hidden_size=2048,
            num_position_embeddings=2304,
            deepstack_visual_indexes=[5, 11, 17],
        ),
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
        tie_word_embeddings=True,
    )


def corpus() -> list[str]:
    from darkguard.models import prompts

    return [prompts.EVALUATOR_SYSTEM, prompts.AGENT_SYSTEM, *TASKS]


def build_2b(out_dir: Path, dry_run: bool) -> Path:
    """The random 2B model (bfloat16) and a processor with the paper's image cap, saved (a dry
    run: the tiny evaluator's architecture with that processor)."""
    from transformers import Qwen3VLForConditionalGeneration

    from darkguard.models.tiny.architecture import (
        SPECIAL_TOKENS,
        TinySize,
        build_model,
        build_processor,
        train_tokenizer,
    )

    tokenizer = train_tokenizer(corpus(), 4000)
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}
    torch.manual_seed(42)
    if dry_run:
        model = build_model(tokenizer, TinySize(), 42)
    else:
        with torch.device(DEVICE):
            model = Qwen3VLForConditionalGeneration(qwen3_vl_2b_config(ids)).to(torch.bfloat16)
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    params = sum(p.numel() for p in model.parameters())
    model.save_pretrained(out_dir)
    build_processor(tokenizer, PAPER_MAX_PIXELS).save_pretrained(out_dir)
    del model
    empty_cache()
    print(f"built the 2B model: {params / 1e9:.2f} B parameters", flush=True)
    return out_dir


def build_tiny_evaluator(out_dir: Path) -> Path:
    from darkguard.config import load_params
    from darkguard.models.tiny.architecture import TinySize, build_tiny

    size = load_params()["build_models"]["evaluators"]["evaluator-large"]
    return build_tiny(out_dir, corpus(), TinySize(**size), vocab_size=600, max_pixels=128 * 128,
                      seed=42)  # fmt: skip


def conversations(max_pixels: int, n: int) -> list:
    """`n` evaluator conversations over the fixture's screenshots (the paper's inputs)."""
    from PIL import Image

    from darkguard.defenses.dude.inputs import PAPER_INPUTS, Screenshot, evaluator_conversation

    pages = sorted((FIXTURE / "images").glob("*.png"))
    shots = [Screenshot(Image.open(p), max_pixels) for p in pages]
    out = []
    for k in range(n):
        shot = shots[k % len(shots)]
        fx, fy = CLICKS[k % len(CLICKS)]
        w, h = shot.size
        task = TASKS[k % len(TASKS)]
        out.append(evaluator_conversation(shot, task, fx * w, fy * h, None, PAPER_INPUTS))
    return out


def timed_answers(backend, convs, max_new: int, shared: bool) -> tuple[list[str], float]:
    """The backend's greedy answers with or without the shared prefix, and answers per second."""
    keep = backend.prefix
    backend.prefix = keep if shared else None
    try:
        backend._generate(convs[: backend.spec.batch_size], max_new)  # warm-up
        synchronize()
        start = time.perf_counter()
        answers, _ = backend._generate(convs, max_new)
        synchronize()
        return answers, len(convs) / (time.perf_counter() - start)
    finally:
        backend.prefix = keep


def judging(path: Path, dtype: str, batch: int, n: int, max_new: int, max_pixels: int) -> dict:
    from darkguard.models.backends.hf import HFBackend
    from darkguard.models.spec import ModelSpec

    spec = ModelSpec("check", path=str(path), dtype=dtype, device=DEVICE, batch_size=batch,
                     max_new_tokens=max_new, max_pixels=max_pixels)  # fmt: skip
    backend = HFBackend(spec)
    backend.memo = None
    convs = conversations(backend.max_pixels, n)
    reset_peak()
    fast, fast_rate = timed_answers(backend, convs, max_new, shared=True)
    slow, slow_rate = timed_answers(backend, convs, max_new, shared=False)
    row = {
        "dtype": dtype,
        "batch": batch,
        "answers": n,
        "equal": sum(a == b for a, b in zip(fast, slow, strict=True)),
        "shared_per_s": round(fast_rate, 2),
        "plain_per_s": round(slow_rate, 2),
        "peak_gib": peak_gib(),
    }
    del backend
    empty_cache()
    print(json.dumps(row), flush=True)
    return row


def grpo(path: Path, steps: int, work: Path, **changes) -> dict:
    import shutil as sh

    from darkguard.config import GRPOParams, RewardParams, load_params
    from darkguard.ruc.clicks import generate_clicks
    from darkguard.training.dude.stage1 import grpo_rows, train_grpo
    from tests.grpo_fixtures import completion_length  # random weights never answer the format

    raw = dict(load_params()["stage1"]["grpo"]["paper"])
    raw.update(steps=steps, save_steps=10_000, **changes)
    if DEVICE == "cpu":  # a dry run: no bf16 on the CPU, short completions
        raw.update(bf16=False, max_completion_length=8)
    params = GRPOParams(**raw)
    reward = RewardParams(**load_params()["stage1"]["reward"])
    release = work / "release"
    sh.copytree(FIXTURE, release, dirs_exist_ok=True)
    records = {str(r["id"]): r for r in json.loads((release / "full.json").read_text())}
    clicks, _ = generate_clicks(list(records.values()), 4, 42)
    rows = grpo_rows(clicks, records, release, PAPER_MAX_PIXELS)
    reset_peak()
    start = time.perf_counter()
    run = train_grpo(str(path), rows, work / "adapter", work / "ckpt", params, reward, 42,
                     device=DEVICE, reward_funcs=[completion_length])  # fmt: skip
    wall = time.perf_counter() - start
    logged = [e for e in run.log_history if "reward" in e]
    row = {
        "setting": ", ".join(f"{k}={v}" for k, v in changes.items()) or "as written",
        "shared_prompts": params.shared_prompts,
        "gradient_checkpointing": params.gradient_checkpointing,
        "rows": len(rows),
        "steps": len(logged),
        "step_s": [round(e["step_time"], 2) for e in logged],
        "kl": [round(e.get("kl", float("nan")), 6) for e in logged],
        "completion_len": [e.get("completions/mean_length") for e in logged],
        "peak_gib": peak_gib(),
        "wall_s": round(wall, 1),
    }
    del run
    empty_cache()
    print(json.dumps(row), flush=True)
    return row


def table(rows: list[dict]) -> str:
    keys = list(rows[0])
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(str(r[k]) for k in keys) + " |" for r in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/gpu_check.md")
    parser.add_argument("--grpo-steps", type=int, default=3)
    parser.add_argument("--skip-grpo", action="store_true")
    parser.add_argument("--max-new", type=int, default=24)
    parser.add_argument("--dry-run", action="store_true", help="CPU, tiny models, nothing written")
    args = parser.parse_args()
    global DEVICE
    DEVICE = "cpu" if args.dry_run else "cuda"
    if not args.dry_run and not torch.cuda.is_available():
        raise SystemExit("no CUDA device (use --dry-run to try the code on the CPU)")
    import transformers
    import trl

    begin = time.perf_counter()
    work = Path(tempfile.mkdtemp())
    name = "CPU (dry run)" if args.dry_run else torch.cuda.get_device_name()
    head = (
        f"{name}; torch {torch.__version__} (CUDA {torch.version.cuda}), "
        f"transformers {transformers.__version__}, trl {trl.__version__}"
    )
    print(head, flush=True)
    tiny = build_tiny_evaluator(work / "tiny")
    tiny_rows = [judging(tiny, d, 16, 64, args.max_new, 128 * 128) for d in ("float32", "bfloat16")]
    big = build_2b(work / "qwen3-vl-2b-random", args.dry_run)
    sizes = ((1, 2), (4, 4)) if args.dry_run else ((1, 8), (4, 16), (16, 32))
    big_rows = [judging(big, "bfloat16", b, n, args.max_new, PAPER_MAX_PIXELS) for b, n in sizes]
    big_rows.append(judging(big, "float32", *sizes[-1], args.max_new, PAPER_MAX_PIXELS))
    grpo_rows_ = []
    if not args.skip_grpo:
        grpo_rows_.append(grpo(big, args.grpo_steps, work / "grpo_trl"))
        grpo_rows_.append(grpo(big, args.grpo_steps, work / "grpo_shared", shared_prompts=True,
                               gradient_checkpointing=False))  # fmt: skip
    summary = "\n\n".join(
        [
            "# GPU check of the paper profile (`benchmarks/gpu_check.py`)",
            head + f"; {time.perf_counter() - begin:.0f} s in all.",
            "## The tiny evaluator (evaluator-large architecture, random weights) on CUDA\n\n"
            + table(tiny_rows),
            "## A random-weight Qwen3-VL of Qwen3-VL-2B-Instruct's architecture judging "
            f"(max_pixels {PAPER_MAX_PIXELS}, at most {args.max_new} new tokens)\n\n"
            + table(big_rows),
        ]
        + (
            ["## GRPO steps of `stage1.grpo.paper` on that model (bf16)\n\n" + table(grpo_rows_)]
            if grpo_rows_
            else []
        )
    )
    print("\n" + summary, flush=True)
    if not args.dry_run:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(summary + "\n")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
