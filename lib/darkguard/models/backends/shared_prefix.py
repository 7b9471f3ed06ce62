"""Greedy decoding and teacher forcing that compute a batch's shared prompt prefix once.

Every conversation an evaluator judges in one call starts with the same tokens: the system
prompt (with the same guidance block) and the user turn's header, up to the first image. Those
~150-300 tokens are most of a tiny model's prompt, and their keys and values do not depend on
what follows (causal attention). `SharedPrefix` computes them once per distinct prefix (a forward
pass over the prefix alone, kept for later batches), lays each batch out as [prefix][padding][the
rest] instead of the processor's [padding][prefix][the rest], and runs the model over the rest
only, with multimodal RoPE positions computed over the whole prompt as the model would
(`get_rope_index` skips masked tokens, so the padding in the middle changes no position).

The answers are those of `model.generate(do_sample=False)` up to floating-point rounding (the
same arithmetic over other tensor shapes): `tests/test_shared_prefix.py` compares them.
"""

from __future__ import annotations

from collections import OrderedDict

import torch

MIN_PREFIX = 8  # shorter shared prefixes are not worth a second forward pass


class SharedPrefix:
    """Key/value caches of shared prompt prefixes for one Qwen-VL model (at most `keep`)."""

    def __init__(
        self,
        model,
        vision_start_id: int,
        pad_id: int,
        keep: int = 4,
        suppressed: list[int] | None = None,
    ) -> None:
        self.model, self.vision_start_id, self.pad_id = model, vision_start_id, pad_id
        self.keep = keep
        self.suppressed = list(suppressed or [])  # never chosen (`models.vision_tokens`)
        self._kv: OrderedDict[tuple[int, ...], list[tuple[torch.Tensor, torch.Tensor]]] = (
            OrderedDict()
        )

    def prefix_length(self, inputs) -> int:
        """Tokens every row shares before its first image (0: no usable shared prefix)."""
        ids, mask = inputs["input_ids"], inputs["attention_mask"].bool()
        rows = [ids[i][mask[i]] for i in range(ids.shape[0])]
        starts = (rows[0] == self.vision_start_id).nonzero()
        if "pixel_values" not in inputs or not len(starts):
            return 0
        n = int(starts[0])
        if n < MIN_PREFIX or any(len(r) <= n or not torch.equal(r[:n], rows[0][:n]) for r in rows):
            return 0
        return n

    def forward(self, inputs, prefix_len: int, extra: tuple[int, ...] = (), keep: int = 1):
        """The model over the batch's rest (and `extra` tokens after every prompt) on top of the
        cached prefix. Returns the logits of the last `keep` positions, the cache, the attention
        mask and each row's next position."""
        ids, mask = inputs["input_ids"], inputs["attention_mask"]
        types = inputs["mm_token_type_ids"]
        batch = ids.shape[0]
        pads = (mask == 0).sum(dim=1).tolist()
        ids, mask, types = (_prefix_first(t, pads, prefix_len) for t in (ids, mask, types))
        if extra:
            more = torch.tensor([list(extra)] * batch, dtype=ids.dtype, device=ids.device)
            ids = torch.cat([ids, more], dim=1)
            mask = torch.cat([mask, torch.ones_like(more, dtype=mask.dtype)], dim=1)
            types = torch.cat([types, torch.zeros_like(more, dtype=types.dtype)], dim=1)
        positions, _ = self._core().model.get_rope_index(
            ids,
            mm_token_type_ids=types,
            image_grid_thw=inputs.get("image_grid_thw"),
            attention_mask=mask,
        )
        cache = self._cache(tuple(ids[0, :prefix_len].tolist()), batch)
        out = self.model(
            input_ids=ids[:, prefix_len:],
            attention_mask=mask,
            position_ids=positions[:, :, prefix_len:],
            pixel_values=inputs["pixel_values"],
            image_grid_thw=inputs.get("image_grid_thw"),
            mm_token_type_ids=types[:, prefix_len:],
            cache=cache,
            use_cache=True,
            logits_to_keep=keep,
        )
        next_position = positions.amax(dim=(0, 2)) + 1
        return out.logits, cache, mask, next_position

    @torch.inference_mode()
    def generate(self, inputs, prefix_len: int, max_new: int, eos_ids: set[int]) -> list[list]:
        """Greedy continuation of every row, as `generate(do_sample=False,
        suppress_tokens=self.suppressed)` returns it: the tokens up to and including an
        end-of-sequence token, padding after it."""
        logits, cache, mask, position = self.forward(inputs, prefix_len)
        batch = mask.shape[0]
        done = torch.zeros(batch, dtype=torch.bool, device=mask.device)
        eos = torch.tensor(sorted(eos_ids), device=mask.device)
        out: list[torch.Tensor] = []
        suppressed = torch.tensor(self.suppressed, dtype=torch.long, device=mask.device)
        for step in range(max_new):
            token = logits[:, -1, :].index_fill(-1, suppressed, float("-inf")).argmax(dim=-1)
            token = torch.where(done, torch.full_like(token, self.pad_id), token)
            out.append(token)
            done |= torch.isin(token, eos)
            if bool(done.all()) or step == max_new - 1:
                break
            mask = torch.cat([mask, mask.new_ones((batch, 1))], dim=1)
            logits = self.model(
                input_ids=token[:, None],
                attention_mask=mask,
                position_ids=position.view(1, batch, 1).expand(3, batch, 1),
                cache=cache,
                use_cache=True,
                logits_to_keep=1,
            ).logits
            position = position + 1
        return torch.stack(out, dim=1).tolist()

    def _cache(self, prefix: tuple[int, ...], batch: int):
        """A fresh cache holding the prefix's keys and values for `batch` rows."""
        from transformers import DynamicCache

        if prefix not in self._kv:
            self._kv[prefix] = self._prefix_kv(prefix)
            while len(self._kv) > self.keep:
                self._kv.popitem(last=False)
        self._kv.move_to_end(prefix)
        cache = DynamicCache()
        for layer, (k, v) in enumerate(self._kv[prefix]):
            cache.update(k.expand(batch, -1, -1, -1), v.expand(batch, -1, -1, -1), layer)
        return cache

    def _prefix_kv(self, prefix: tuple[int, ...]) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """Keys and values of every layer over the prefix alone (text: positions 0..n-1 on
        every RoPE axis, as `get_rope_index` numbers text)."""
        from transformers import DynamicCache

        ids = torch.tensor([list(prefix)], device=self.model.device)
        positions = torch.arange(len(prefix), device=ids.device).view(1, 1, -1).expand(3, 1, -1)
        cache = DynamicCache()
        self.model(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            position_ids=positions,
            cache=cache,
            use_cache=True,
            logits_to_keep=1,
        )
        return [(layer.keys.clone(), layer.values.clone()) for layer in cache.layers]

    def _core(self):
        """The Qwen-VL model under a LoRA wrapper, if any."""
        get = getattr(self.model, "get_base_model", None)
        return get() if get else self.model


def _prefix_first(t: torch.Tensor, pads: list[int], n: int) -> torch.Tensor:
    """Each left-padded row [padding][prefix][rest] as [prefix][padding][rest]."""
    rows = [
        torch.cat([row[p : p + n], row[:p], row[p + n :]]) for row, p in zip(t, pads, strict=True)
    ]
    return torch.stack(rows)
