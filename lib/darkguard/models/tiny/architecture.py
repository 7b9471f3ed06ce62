"""Tiny Qwen3-VL models built offline and deterministically.

A byte-level BPE tokenizer trained on a deterministic corpus (with Qwen's chat special tokens and
chat template), a tiny `Qwen3VLConfig`, and Qwen's image/video processors with a capped image size.
Everything is saved with `save_pretrained`, so the folder loads through `AutoProcessor` and
`AutoModelForImageTextToText` exactly like a real checkpoint.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import torch
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

# Qwen2's pre-tokenizer split, then byte-level mapping without its own regex.
QWEN_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
SPECIAL_TOKENS = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|quad_start|>",
    "<|quad_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
]
PATCH = 16


@dataclass(frozen=True)
class TinySize:
    """Dimensions of a tiny Qwen3-VL (text decoder + vision tower)."""

    hidden: int = 128
    layers: int = 2
    heads: int = 4
    kv_heads: int = 2
    head_dim: int = 32
    intermediate: int = 384
    vision_hidden: int = 64
    vision_depth: int = 2

    @property
    def mrope_section(self) -> list[int]:
        """Split of head_dim/2 rotary frequencies over (t, h, w); must sum to head_dim/2."""
        half = self.head_dim // 2
        h = w = half // 4
        return [half - h - w, h, w]


def train_tokenizer(corpus: list[str], vocab_size: int):
    """A Qwen2 tokenizer with a byte-level BPE trained on `corpus` (deterministic)."""
    from transformers import Qwen2Tokenizer

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN_SPLIT), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(corpus, trainer)
    model = json.loads(bpe.to_str())["model"]
    merges = [tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m) for m in model["merges"]]
    tok = Qwen2Tokenizer(
        vocab=model["vocab"], merges=merges, eos_token="<|im_end|>", pad_token="<|endoftext|>"
    )
    tok.add_special_tokens({"additional_special_tokens": SPECIAL_TOKENS[1:]})
    tok.padding_side = "left"
    return tok


def chat_template() -> str:
    """Qwen3-VL's chat template, as shipped inside the trl package."""
    return (resources.files("trl") / "chat_templates" / "qwen3_vl.jinja").read_text()


def build_processor(tokenizer, max_pixels: int, min_pixels: int = 32 * 32 * 4):
    """Qwen3-VL processor whose image size is capped at `max_pixels` pixels."""
    from transformers import Qwen2VLImageProcessor, Qwen3VLProcessor
    from transformers.models.qwen3_vl.video_processing_qwen3_vl import Qwen3VLVideoProcessor

    common = dict(
        patch_size=PATCH,
        temporal_patch_size=2,
        merge_size=2,
        image_mean=[0.5] * 3,
        image_std=[0.5] * 3,
        size={"shortest_edge": min_pixels, "longest_edge": max_pixels},
    )
    return Qwen3VLProcessor(
        image_processor=Qwen2VLImageProcessor(**common),
        tokenizer=tokenizer,
        video_processor=Qwen3VLVideoProcessor(**common),
        chat_template=chat_template(),
    )


def build_model(tokenizer, size: TinySize, seed: int):
    """A randomly initialised tiny Qwen3-VL (deterministic by seed)."""
    from transformers import Qwen3VLConfig, Qwen3VLForConditionalGeneration

    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}
    config = Qwen3VLConfig(
        text_config=dict(
            vocab_size=len(tokenizer),
            hidden_size=size.hidden,
            intermediate_size=size.intermediate,
            num_hidden_layers=size.layers,
            num_attention_heads=size.heads,
            num_key_value_heads=size.kv_heads,
            head_dim=size.head_dim,
            tie_word_embeddings=True,
            max_position_embeddings=4096,
            rope_parameters={
                "rope_type": "default",
                "rope_theta": 5e6,
                "mrope_section": size.mrope_section,
                "mrope_interleaved": True,
            },
            bos_token_id=None,
            eos_token_id=ids["<|im_end|>"],
            pad_token_id=ids["<|endoftext|>"],
        ),
        vision_config=dict(
            depth=size.vision_depth,
            hidden_size=size.vision_hidden,
            intermediate_size=2 * size.vision_hidden,
            num_heads=4,
            patch_size=PATCH,
            spatial_merge_size=2,
            temporal_patch_size=2,
            out_hidden_size=size.hidden,
            num_position_embeddings=256,
            deepstack_visual_indexes=[0, size.vision_depth - 1],
        ),
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
        tie_word_embeddings=True,
    )
    torch.manual_seed(seed)
    model = Qwen3VLForConditionalGeneration(config)
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    return model


def build_tiny(
    out_dir: Path,
    corpus: list[str],
    size: TinySize,
    *,
    vocab_size: int,
    max_pixels: int,
    seed: int,
) -> Path:
    """Build and `save_pretrained` a tiny Qwen3-VL (model + processor) into `out_dir`."""
    out_dir = Path(out_dir)
    tokenizer = train_tokenizer(corpus, vocab_size)
    processor = build_processor(tokenizer, max_pixels)
    model = build_model(tokenizer, size, seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir)
    processor.save_pretrained(out_dir)
    return out_dir
