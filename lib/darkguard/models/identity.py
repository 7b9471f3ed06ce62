"""What identifies a model independently of where its files lie: its spec without local paths,
plus the content hash of local weights and adapters."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

from darkguard.models.spec import ModelSpec


def spec_identity(spec: ModelSpec) -> dict:
    """The spec's fields, local `path` / `adapter` folders replaced by their weights' hash."""
    fields = {k: v for k, v in dataclasses.asdict(spec).items() if k not in ("path", "adapter")}
    for key in ("path", "adapter"):
        value = getattr(spec, key)
        fields[key] = weights_hash(Path(value)) if value and Path(value).is_dir() else value
    return fields


def weights_hash(folder: Path) -> str:
    """sha256 over the folder's `*.safetensors` files (names and bytes)."""
    digest = hashlib.sha256()
    for file in sorted(Path(folder).glob("*.safetensors")):
        digest.update(file.name.encode() + file.read_bytes())
    return digest.hexdigest()
