"""Model specs: `{backend, name, path, ...generation settings}`, from params.yaml or a path."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from darkguard.io import InputError
from darkguard.models.parsing import CONVENTIONS

BACKENDS = ("hf", "openai", "offline")


@dataclass(frozen=True)
class ModelSpec:
    """How to load and call one model. Decoding is greedy (temperature 0), as in the paper."""

    name: str
    backend: str = "hf"
    path: str | None = None  # hf: hub id or local folder; openai: the served model name
    adapter: str | None = None  # hf: a peft LoRA adapter folder applied on top of `path`
    dtype: str = "float32"
    device: str = "cpu"
    batch_size: int = 8
    max_new_tokens: int = 64
    max_pixels: int | None = None  # image-size cap (pixels) applied by the processor
    coordinates: str = "pixels"  # pixels | normalized | relative1000 (agent outputs)
    base_url: str | None = None  # openai: e.g. http://127.0.0.1:8000/v1
    api_key_env: str | None = None  # openai: the environment variable holding the key
    timeout_s: float = 60.0
    max_retries: int = 4
    concurrency: int = 8  # openai: requests of one call in flight at once

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise InputError(f"model '{self.name}': backend {self.backend!r} not in {BACKENDS}")
        if self.coordinates not in CONVENTIONS:
            raise InputError(
                f"model '{self.name}': coordinates {self.coordinates!r} not in {CONVENTIONS}"
            )
        if self.backend in ("hf", "openai") and not self.path:
            raise InputError(f"model '{self.name}': field 'path' is required for {self.backend}")
        if self.concurrency < 1:
            raise InputError(f"model '{self.name}': field 'concurrency' must be at least 1")
        if self.backend == "openai" and not self.base_url:
            raise InputError(f"model '{self.name}': field 'base_url' is required for openai")

    @classmethod
    def from_dict(cls, name: str, values: dict[str, Any]) -> ModelSpec:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise InputError(f"model '{name}': unknown field(s) {unknown}")
        return cls(name=name, **{k: v for k, v in values.items() if k != "name"})
