"""Local transformers backend: hub id or folder, batched greedy decoding, image-size caps; the
answers of a model in local folders kept on disk between processes (`memo`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import torch

from darkguard.models.backends import Conversation, shared_prefix
from darkguard.models.backends.memo import memo_for
from darkguard.models.backends.shared_prefix import SharedPrefix
from darkguard.models.spec import ModelSpec
from darkguard.models.vision_tokens import vision_token_ids

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def safe_batch_decode(tokenizer, sequences: Sequence[Sequence[int]], **kwargs) -> list[str]:
    """Decode, replacing ids outside the vocabulary by the pad id (paper App. E.3)."""
    pad_id = tokenizer.pad_token_id or 0
    vocab_size = len(tokenizer)
    cleaned = [[v if 0 <= v < vocab_size else pad_id for v in seq] for seq in sequences]
    return tokenizer.batch_decode(cleaned, **kwargs)


def to_qwen_messages(conversation: Conversation) -> Conversation:
    """Normalize content to lists of typed parts (paper App. E.2)."""
    out = []
    for message in conversation:
        content = message["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        parts = []
        for part in content:
            if part.get("type") == "image_url":  # OpenAI/ReAct style
                parts.append({"type": "image", "url": part["image_url"]["url"]})
            else:
                parts.append(part)
        out.append({"role": message["role"], "content": parts})
    return out


def candidate_branches(tokenizer, candidates: list[str]) -> dict[tuple[int, ...], list[int]]:
    """The token trie of the candidate texts: every prefix after which candidates part, with the
    distinct next tokens. A candidate's probability is the product, over the branches on its
    path, of its next token's probability among that branch's tokens (so they sum to 1)."""
    ids = [tuple(tokenizer(c, add_special_tokens=False)["input_ids"]) for c in candidates]
    if len(set(ids)) != len(ids) or any(a != b and b[: len(a)] == a for a in ids for b in ids):
        raise ValueError(f"candidates {candidates} are not distinct token sequences")
    branches: dict[tuple[int, ...], list[int]] = {}
    for seq in ids:
        for k in range(len(seq)):
            nexts = sorted({o[k] for o in ids if o[:k] == seq[:k] and len(o) > k})
            if len(nexts) > 1:
                branches[seq[:k]] = nexts
    return branches


def branch_reads(branches: dict[tuple[int, ...], list[int]]) -> dict[tuple[int, ...], list]:
    """The branch prefixes grouped by a longest one they lead to: one forward pass over prompt +
    that longest prefix gives the next-token distribution after each of them (causal attention:
    a position sees only what precedes it)."""
    longest = [p for p in branches if not any(q != p and q[: len(p)] == p for q in branches)]
    reads: dict[tuple[int, ...], list] = {p: [] for p in sorted(longest)}
    for prefix in sorted(branches, key=lambda p: (len(p), p)):
        leading = next(q for q in reads if q[: len(prefix)] == prefix)
        reads[leading].append(prefix)
    return reads


def candidate_paths(tokenizer, candidates: list[str], branches: dict) -> list[list[tuple]]:
    """Each candidate's (branch prefix, index of its next token there) along its path."""
    paths = []
    for c in candidates:
        seq = tuple(tokenizer(c, add_special_tokens=False)["input_ids"])
        paths.append(
            [
                (seq[:k], branches[seq[:k]].index(seq[k]))
                for k in range(len(seq))
                if seq[:k] in branches
            ]
        )
    return paths


class HFBackend:
    """`AutoProcessor` + `AutoModelForImageTextToText`, optionally with a LoRA adapter."""

    def __init__(self, spec: ModelSpec) -> None:
        from transformers import AutoModelForImageTextToText, AutoProcessor

        self.spec = spec
        local = os.path.isdir(spec.path)
        self.processor = AutoProcessor.from_pretrained(spec.path, local_files_only=local)
        size = self.processor.image_processor.size  # Qwen processors: the pixel cap
        if spec.max_pixels:
            size.longest_edge = spec.max_pixels
        self.max_pixels: int | None = getattr(size, "longest_edge", None)
        self.tokenizer = self.processor.tokenizer
        self.tokenizer.padding_side = "left"
        self.suppressed = vision_token_ids(self.processor)  # never generated
        model = AutoModelForImageTextToText.from_pretrained(
            spec.path, dtype=DTYPES[spec.dtype], local_files_only=local
        )
        if spec.adapter:
            from peft import PeftModel

            model = PeftModel.from_pretrained(model, spec.adapter)
        self.model = model.to(spec.device).eval()
        # None: not a Qwen3-VL
        self.prefix = shared_prefix_for(self.model, self.tokenizer, self.suppressed)
        self.tokens_used = 0  # prompt (image tokens included) + generated tokens, all calls
        self.last_tokens: list[int] = []  # the same, per conversation of the last call
        # None: answers are not kept; the code that computes them is part of their identity
        self.memo = memo_for(spec, [Path(__file__), Path(shared_prefix.__file__)])

    def _answer(self, kind: str, args, conversations: list[Conversation], compute) -> list:
        """`compute(conversations) -> (answers, tokens)` through the memo, counting tokens."""
        if self.memo is None:
            answers, used = compute(conversations)
        else:
            answers, used = self.memo.answer(kind, args, conversations, compute)
        self.last_tokens = list(used)
        self.tokens_used += sum(used)
        return answers

    def continuation_probs(
        self, conversations: list[Conversation], candidates: list[str]
    ) -> list[list[float]]:
        """For each conversation, the probability of each candidate answer (teacher-forced after
        the generation prompt, renormalized over the candidates: `candidate_branches`): one
        forward pass per batch and path through the branch points (`branch_reads`: the
        distributions after shorter prefixes are read at their positions on the way), no
        sampling. Rows sum to 1."""
        return self._answer(
            "continuation_probs",
            candidates,
            conversations,
            lambda batch: self._continuation_probs(batch, candidates),
        )

    @torch.inference_mode()
    def _continuation_probs(
        self, conversations: list[Conversation], candidates: list[str]
    ) -> tuple[list[list[float]], list[int]]:
        branches = candidate_branches(self.tokenizer, candidates)
        paths = candidate_paths(self.tokenizer, candidates, branches)
        reads = branch_reads(branches)
        probs: list[list[float]] = []
        tokens: list[int] = []
        for start in range(0, len(conversations), self.spec.batch_size):
            inputs = self._inputs(conversations[start : start + self.spec.batch_size])
            at = {}
            shared = self._shared_prefix(inputs)
            for longest, prefixes in reads.items():
                if shared:
                    kept = len(longest) + 1
                    logits = self.prefix.forward(inputs, shared, longest, kept)[0].float()
                else:
                    logits = self._logits_after(inputs, longest)
                for prefix in prefixes:  # kept position len(prefix): after prompt + prefix
                    nexts = branches[prefix]
                    at[prefix] = torch.softmax(logits[:, len(prefix), nexts], dim=-1)
            for row in range(inputs["input_ids"].shape[0]):
                probs.append(
                    [
                        float(torch.prod(torch.stack([at[pre][row, i] for pre, i in path])))
                        for path in paths
                    ]
                )
            tokens += [int(u) + 1 for u in inputs["attention_mask"].sum(dim=1).tolist()]
        return probs, tokens

    def _inputs(self, conversations: list[Conversation]):
        """One batch of conversations, templated and tokenized with their images."""
        return self.processor.apply_chat_template(
            [to_qwen_messages(c) for c in conversations],
            add_generation_prompt=True,
            tokenize=True,
            return_dict=True,
            return_tensors="pt",
            processor_kwargs={"padding": True},
        ).to(self.spec.device)

    def _logits_after(self, inputs, prefix: tuple[int, ...]) -> torch.Tensor:
        """The logits after prompt + each leading part of `prefix`: [batch, len(prefix) + 1,
        vocab], position k after the prompt and the first k tokens of `prefix` (left padding: the
        prefix goes after every prompt)."""
        batch = dict(inputs)
        if prefix:
            ids = inputs["input_ids"]
            extra = torch.tensor([list(prefix)] * ids.shape[0], device=ids.device)
            for key, value in inputs.items():  # every per-token tensor grows with the prefix
                if torch.is_tensor(value) and value.shape[:2] == ids.shape:
                    fill = {"input_ids": extra, "attention_mask": torch.ones_like(extra)}.get(
                        key, torch.zeros_like(extra, dtype=value.dtype)
                    )
                    batch[key] = torch.cat([value, fill.to(value.dtype)], dim=1)
        return self.model(**batch, logits_to_keep=len(prefix) + 1).logits.float()

    def generate(
        self, conversations: list[Conversation], max_new_tokens: int | None = None
    ) -> list[str]:
        max_new = max_new_tokens or self.spec.max_new_tokens
        return self._answer(
            "generate", max_new, conversations, lambda batch: self._generate(batch, max_new)
        )

    @torch.inference_mode()
    def _generate(
        self, conversations: list[Conversation], max_new: int
    ) -> tuple[list[str], list[int]]:
        outputs: list[str] = []
        tokens: list[int] = []
        for start in range(0, len(conversations), self.spec.batch_size):
            inputs = self._inputs(conversations[start : start + self.spec.batch_size])
            shared = self._shared_prefix(inputs)
            if shared:
                new = self.prefix.generate(inputs, shared, max_new, self._eos_ids())
            else:
                sequences = self.model.generate(
                    **inputs,
                    max_new_tokens=max_new,
                    do_sample=False,
                    pad_token_id=self.tokenizer.pad_token_id,
                    suppress_tokens=self.suppressed or None,
                )
                new = sequences[:, inputs["input_ids"].shape[1] :].tolist()
            pad = self.tokenizer.pad_token_id
            prompt = inputs["attention_mask"].sum(dim=1).tolist()
            tokens += [
                int(n) + sum(t != pad for t in row) for n, row in zip(prompt, new, strict=True)
            ]
            outputs += safe_batch_decode(self.tokenizer, new, skip_special_tokens=True)
        return outputs, tokens

    def _shared_prefix(self, inputs) -> int:
        """The batch's shared prefix length when computing it once pays (0: the whole prompt
        through the model). On a GPU a single row goes the plain way: a random-weight model of
        the paper evaluator's size judged 0.62 rows/s through the shared prefix against 1.33
        plain at batch 1, and 3.43 against 3.00 at 4 (`benchmarks/results/gpu_check.md`). On
        the CPU the choice is as before (the prefix whenever the rows share one), which the
        committed `tiny` tables were computed with."""
        if self.prefix is None:
            return 0
        if self.spec.device.startswith("cuda") and inputs["input_ids"].shape[0] < 2:
            return 0
        return self.prefix.prefix_length(inputs)

    def _eos_ids(self) -> set[int]:
        """The tokens that end an answer (the generation config's)."""
        eos = self.model.generation_config.eos_token_id
        return set(eos) if isinstance(eos, list) else {eos}


def shared_prefix_for(model, tokenizer, suppressed: list[int] | None = None) -> SharedPrefix | None:
    """`SharedPrefix` for a Qwen3-VL model (its RoPE numbering is the one implemented there),
    never choosing the `suppressed` tokens; None for other families, which decode with
    `generate` over the whole prompt."""
    core = model.get_base_model() if hasattr(model, "get_base_model") else model
    config = core.config
    if getattr(config, "model_type", None) != "qwen3_vl":
        return None
    return SharedPrefix(
        model, config.vision_start_token_id, tokenizer.pad_token_id or 0, suppressed=suppressed
    )
