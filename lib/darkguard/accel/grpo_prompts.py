"""GRPO log-probabilities and rollouts with each prompt computed once for its group of completions.

trl's `GRPOTrainer` scores every completion (the policy's log-probabilities with gradients, the
reference model's without) by a forward pass over prompt + completion. Its batch holds each prompt
`num_generations` times in a row (trl's `RepeatSampler`), so a tiny evaluator's step of 16 rows
(4 prompts x 4 completions, ~295 prompt tokens and ~17 completion tokens each) spends ~94% of its
tokens on prompts repeated four times. Causal attention makes a prompt's keys and values the same
whatever completion follows, so `grouped_logps` computes each distinct prompt once (images
included), repeats its keys and values for the group's completions, and runs the model over the
completions only. Gradients flow through the repeated keys and values back to the one prompt pass
(the sum over the group, as the repeated forward passes would give).

The rollouts repeat the same prompts: trl's `generate` prefills all 16 rows. Within the trainer's
generation, `generate_sharing_prompts` runs each distinct prompt but its last token through the
model once, repeats its keys and values for the group's rows and lets `generate` continue from
that cache (the last prompt token, then sampling, with the multimodal RoPE offsets the full
prefill would have left): the same logits up to float rounding, so the same sampled tokens from
the same seed (`tests/test_grpo_prompts.py` compares greedy and sampled runs).

The log-probabilities and entropies are those of trl's path up to floating-point rounding (other
tensor shapes, other summation order; `tests/test_grpo_prompts.py` compares values and
gradients); a trained adapter therefore differs from one trained by trl's path in the last bits,
and its training run is a different run. `stage1.grpo.<profile>.shared_prompts` chooses
(`SharedPromptGRPO`); batches with no repeated prompt, models other than Qwen3-VL, more than one
process and vLLM or continuous-batching generation take trl's own path.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class PromptGroups:
    """Which rows of a batch share a prompt: `first[g]` is group g's first row, `of_row[i]` the
    group of row i."""

    first: list[int]
    of_row: list[int]

    @property
    def repeated(self) -> bool:
        return len(self.first) < len(self.of_row)


def prompt_groups(
    prompt_ids: torch.Tensor,
    prompt_mask: torch.Tensor,
    pixel_rows: list[torch.Tensor] | None,
) -> PromptGroups:
    """Rows whose prompt tokens, padding and images (each row's pixel rows, or None for text
    only) are equal form one group; groups in order of their first row."""
    first: list[int] = []
    of_row: list[int] = []
    for i in range(prompt_ids.shape[0]):
        for g, j in enumerate(first):
            same = torch.equal(prompt_ids[i], prompt_ids[j]) and torch.equal(
                prompt_mask[i], prompt_mask[j]
            )
            if same and pixel_rows is not None:
                same = torch.equal(pixel_rows[i], pixel_rows[j])
            if same:
                of_row.append(g)
                break
        else:
            of_row.append(len(first))
            first.append(i)
    return PromptGroups(first, of_row)


def pixel_rows_per_sample(
    pixel_values: torch.Tensor | None, image_grid_thw: torch.Tensor | None, num_images: list[int]
) -> list[torch.Tensor] | None:
    """Each row's own pixel rows (Qwen-VL layout: patches of all images concatenated)."""
    if pixel_values is None or image_grid_thw is None:
        return None
    per_image = image_grid_thw.prod(dim=-1).tolist()
    out, at, image = [], 0, 0
    for n in num_images:
        rows = sum(per_image[image : image + n])
        out.append(pixel_values[at : at + rows])
        at, image = at + rows, image + n
    return out


def supports_grouping(model) -> bool:
    """Qwen3-VL only: its multimodal RoPE numbering is the one `grouped_logps` continues."""
    core = model.get_base_model() if hasattr(model, "get_base_model") else model
    return getattr(core.config, "model_type", None) == "qwen3_vl"


def repeat_cache(cache, of_row: torch.Tensor):
    """A `DynamicCache` whose row i is row `of_row[i]` of `cache` (each group's keys and values
    for each of its rows)."""
    from transformers import DynamicCache

    repeated = DynamicCache()
    for layer, kv in enumerate(cache.layers):
        repeated.update(kv.keys[of_row], kv.values[of_row], layer)
    return repeated


@dataclass(frozen=True)
class GroupPrefill:
    """Each group's prompt run once: the backbone's `output` and `cache` (one row per group),
    and every row's multimodal RoPE `positions` [3, rows, length], `rope_deltas` [rows, 1] and
    `mm_token_type_ids`."""

    output: object
    cache: object
    positions: torch.Tensor
    rope_deltas: torch.Tensor
    mm_token_type_ids: torch.Tensor


def prefill_groups(
    backbone,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    prompt_len: int,
    groups: PromptGroups,
    pixel_rows: list[torch.Tensor] | None,
    image_grid_thw: torch.Tensor | None,
    num_images: list[int] | None,
    mm_token_type_ids: torch.Tensor | None,
) -> GroupPrefill:
    """Run the first `prompt_len` tokens of each group's first row (with its images) through
    Qwen3-VL's `backbone`, positioned as in the whole batch."""
    from transformers import DynamicCache

    if mm_token_type_ids is None:
        mm_token_type_ids = torch.zeros_like(input_ids)
    positions, rope_deltas = backbone.get_rope_index(
        input_ids,
        mm_token_type_ids=mm_token_type_ids,
        image_grid_thw=image_grid_thw,
        attention_mask=attention_mask,
    )
    first = torch.tensor(groups.first, device=input_ids.device)
    image_kwargs = {}
    if pixel_rows is not None:
        image_kwargs["pixel_values"] = torch.cat([pixel_rows[i] for i in groups.first])
        per_sample = torch.split(image_grid_thw, list(num_images))
        image_kwargs["image_grid_thw"] = torch.cat([per_sample[i] for i in groups.first])
    cache = DynamicCache()
    output = backbone(
        input_ids=input_ids[first, :prompt_len],
        attention_mask=attention_mask[first, :prompt_len],
        position_ids=positions[:, first, :prompt_len],
        mm_token_type_ids=mm_token_type_ids[first, :prompt_len],
        cache=cache,
        use_cache=True,
        **image_kwargs,
    )
    return GroupPrefill(output, cache, positions, rope_deltas, mm_token_type_ids)


def grouped_logps(
    model,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    completion_length: int,
    groups: PromptGroups,
    pixel_rows: list[torch.Tensor] | None,
    image_grid_thw: torch.Tensor | None,
    num_images: list[int] | None,
    mm_token_type_ids: torch.Tensor | None,
    temperature: float,
    compute_entropy: bool,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Per-token log-probabilities (and entropies) of the last `completion_length` tokens of
    every row, each group's prompt computed once: [rows, completion_length] each."""
    core = model.get_base_model() if hasattr(model, "get_base_model") else model
    backbone = core.model
    prompt_len = input_ids.shape[1] - completion_length
    of_row = torch.tensor(groups.of_row, device=input_ids.device)
    prompt = prefill_groups(
        backbone, input_ids, attention_mask, prompt_len, groups, pixel_rows, image_grid_thw,
        num_images, mm_token_type_ids,
    )  # fmt: skip
    last_prompt = prompt.output.last_hidden_state[:, -1:][of_row]  # predicts completion token 1
    rest = backbone(
        input_ids=input_ids[:, prompt_len:-1],
        attention_mask=attention_mask[:, :-1],
        position_ids=prompt.positions[:, :, prompt_len:-1],
        mm_token_type_ids=prompt.mm_token_type_ids[:, prompt_len:-1],
        cache=repeat_cache(prompt.cache, of_row),
        use_cache=True,
    )
    hidden = torch.cat([last_prompt, rest.last_hidden_state], dim=1)
    logits = core.get_output_embeddings()(hidden).float() / temperature
    log_probs = torch.log_softmax(logits, dim=-1)
    labels = input_ids[:, prompt_len:]
    token_logps = log_probs.gather(-1, labels.unsqueeze(-1)).squeeze(-1)
    scored = attention_mask[:, prompt_len:].bool()  # trl scores no padding: 0 there
    entropy = None
    if compute_entropy:
        entropy = (-(log_probs.exp() * log_probs).sum(dim=-1)).masked_fill(~scored, 0.0)
    return token_logps.masked_fill(~scored, 0.0), entropy


def images_per_row(input_ids: torch.Tensor, model) -> list[int]:
    """How many images each row's prompt holds (Qwen3-VL: one vision-start token per image)."""
    core = model.get_base_model() if hasattr(model, "get_base_model") else model
    return (input_ids == core.config.vision_start_token_id).sum(dim=1).tolist()


def generate_sharing_prompts(model, generate, input_ids, attention_mask, **kwargs):
    """`generate(input_ids=..., attention_mask=..., **kwargs)` (the model's own `generate`) with
    each distinct prompt's prefill computed once: every token of it but the last runs through the
    model once per group, its keys and values are repeated for the group's rows, and `generate`
    goes on from there (the last prompt token, then sampling) without the images, whose tokens
    are all in the cache. Inputs other than Qwen3-VL's, or no repeated prompt: plain
    `generate`."""
    known = {"pixel_values", "image_grid_thw", "mm_token_type_ids", "generation_config"}
    pixel_values = kwargs.get("pixel_values")
    image_grid_thw = kwargs.get("image_grid_thw")
    num_images = images_per_row(input_ids, model)
    plain = (
        set(kwargs) - known
        or input_ids.shape[1] < 2
        or (pixel_values is None) != (image_grid_thw is None)
        or (image_grid_thw is not None and sum(num_images) != image_grid_thw.shape[0])
    )
    if plain:
        return generate(input_ids=input_ids, attention_mask=attention_mask, **kwargs)
    pixel_rows = pixel_rows_per_sample(pixel_values, image_grid_thw, num_images)
    groups = prompt_groups(input_ids, attention_mask, pixel_rows)
    if not groups.repeated:
        return generate(input_ids=input_ids, attention_mask=attention_mask, **kwargs)
    core = model.get_base_model() if hasattr(model, "get_base_model") else model
    backbone = core.model
    prompt = prefill_groups(
        backbone, input_ids, attention_mask, input_ids.shape[1] - 1, groups, pixel_rows,
        image_grid_thw, num_images, kwargs.get("mm_token_type_ids"),
    )  # fmt: skip
    backbone.rope_deltas = prompt.rope_deltas  # the positions `generate` continues from
    return generate(
        input_ids=input_ids,
        attention_mask=attention_mask,
        mm_token_type_ids=prompt.mm_token_type_ids,
        cache=repeat_cache(prompt.cache, torch.tensor(groups.of_row, device=input_ids.device)),
        generation_config=kwargs.get("generation_config"),
    )


@contextmanager
def prefill_shared(model) -> Iterator[None]:
    """Within it, `model.generate` is `generate_sharing_prompts` over the model's own."""
    own = model.generate
    model.generate = functools.partial(generate_sharing_prompts, model, own)
    try:
        yield
    finally:
        del model.generate  # the instance attribute: the class's method again


def shared_prompt_trainer(base: type) -> type:
    """`base` (trl's `GRPOTrainer`) with `_get_per_token_logps_and_entropies` computing each
    repeated prompt once (`grouped_logps`); anything it does not handle goes to trl's own."""

    class SharedPromptGRPO(base):
        def _generate_single_turn(self, prompt_ids, images, multimodal_fields, *args, **kwargs):
            model = self.accelerator.unwrap_model(self.model_wrapped)
            own = (
                getattr(self, "use_vllm", False)
                or getattr(self, "use_transformers_continuous_batching", False)
                or self.accelerator.num_processes > 1
                or not supports_grouping(model)
            )
            if own:
                return super()._generate_single_turn(
                    prompt_ids, images, multimodal_fields, *args, **kwargs
                )
            with prefill_shared(model):
                return super()._generate_single_turn(
                    prompt_ids, images, multimodal_fields, *args, **kwargs
                )

        def _get_per_token_logps_and_entropies(
            self,
            model,
            input_ids,
            attention_mask,
            logits_to_keep,
            batch_size=None,
            compute_entropy=False,
            compute_aux_loss=False,
            pixel_values=None,
            image_grid_thw=None,
            num_images=None,
            **kwargs,
        ):
            own = (
                compute_aux_loss
                or self.accelerator.num_processes > 1  # DDP: the wrapper's own forward
                or any(v is not None for k, v in kwargs.items() if k != "mm_token_type_ids")
                or (pixel_values is not None and (image_grid_thw is None or num_images is None))
                or not supports_grouping(self.accelerator.unwrap_model(model))
            )
            pixel_rows = (
                None if own else pixel_rows_per_sample(pixel_values, image_grid_thw, num_images)
            )
            prompt_len = input_ids.shape[1] - logits_to_keep
            groups = None
            if not own and prompt_len > 0 and logits_to_keep > 1:
                groups = prompt_groups(
                    input_ids[:, :prompt_len], attention_mask[:, :prompt_len], pixel_rows
                )
            if groups is None or not groups.repeated:
                return super()._get_per_token_logps_and_entropies(
                    model,
                    input_ids,
                    attention_mask,
                    logits_to_keep,
                    batch_size=batch_size,
                    compute_entropy=compute_entropy,
                    compute_aux_loss=compute_aux_loss,
                    pixel_values=pixel_values,
                    image_grid_thw=image_grid_thw,
                    num_images=num_images,
                    **kwargs,
                )
            with self.accelerator.autocast():
                logps, entropy = grouped_logps(
                    model,
                    input_ids,
                    attention_mask,
                    logits_to_keep,
                    groups,
                    pixel_rows,
                    image_grid_thw,
                    num_images,
                    kwargs.get("mm_token_type_ids"),
                    self.temperature,
                    compute_entropy,
                )
            return logps, entropy, None

    return SharedPromptGRPO
