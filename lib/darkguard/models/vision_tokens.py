"""The vision special tokens a model must never emit: the placeholders and markers of images and
videos that its processor inserts into prompts (Qwen-VL: `<|vision_start|>`, `<|vision_end|>`,
`<|vision_pad|>`, `<|image_pad|>`, `<|video_pad|>`).

A sampled `<|image_pad|>` or `<|vision_start|>` in a completion is read by the model's next
forward pass as an image without pixels (Qwen3-VL's multimodal RoPE numbering counts it), so
rollouts and judgements suppress them: their logits are set to -inf before a token is chosen.
Random or barely trained weights sample them readily; a trained evaluator almost never does, so
greedy answers are unchanged unless a vision token would have been the top choice.
"""

from __future__ import annotations

import re

VISION_TOKEN = re.compile(r"^<\|(?:vision|image|video)_[a-z]+\|>$")


def vision_token_ids(processor_or_tokenizer) -> list[int]:
    """Ids of the vision special tokens of a processor (or its tokenizer), sorted: the processor's
    named image/video/vision tokens and every added token shaped like `<|vision_...|>`,
    `<|image_...|>` or `<|video_...|>`."""
    tokenizer = getattr(processor_or_tokenizer, "tokenizer", processor_or_tokenizer)
    names = {
        name
        for attr in ("image_token", "video_token", "vision_start_token", "vision_end_token")
        if isinstance(name := getattr(processor_or_tokenizer, attr, None), str)
    }
    names |= {t for t in tokenizer.get_added_vocab() if VISION_TOKEN.match(t)}
    ids = {tokenizer.convert_tokens_to_ids(n) for n in names}
    unknown = tokenizer.unk_token_id
    return sorted(i for i in ids if isinstance(i, int) and i != unknown)
