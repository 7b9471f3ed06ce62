"""Typed views of the sections of params.yaml."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from darkguard import paths
from darkguard.io import InputError

PROFILES = ("tiny", "paper")


def load_params(path: Path | None = None) -> dict[str, Any]:
    """Read params.yaml (or `path`) as a dict of sections."""
    path = Path(path or paths.PARAMS_FILE)
    try:
        params = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise InputError(f"{path}: cannot read parameters ({exc})") from None
    if not isinstance(params, dict):
        raise InputError(f"{path}: expected a mapping of sections")
    return params


def _build(cls: type, section: str, values: dict[str, Any]) -> Any:
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(values) - names)
    if unknown:
        raise InputError(f"params.yaml: section '{section}': unknown key(s) {unknown}")
    return cls(**values)


@dataclass(frozen=True)
class BaseParams:
    profile: str = "tiny"
    seed: int = 42

    def __post_init__(self) -> None:
        if self.profile not in PROFILES:
            raise InputError(f"params.yaml: base.profile: {self.profile!r} not in {PROFILES}")

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> BaseParams:
        return _build(cls, "base", values)


@dataclass(frozen=True)
class DataParams:
    source: str = "synth"
    raw_dir: str = "data/raw/ruc"
    out_dir: str = "data/ruc"
    composition: dict[str, Any] = field(default_factory=dict)
    domains: list[str] = field(default_factory=list)
    viewports: list[list[int]] = field(default_factory=list)
    split: dict[str, float] = field(default_factory=dict)
    n_null: int = 1
    examples: int = 6

    def __post_init__(self) -> None:
        if self.source not in ("synth", "ruc"):
            raise InputError(f"params.yaml: data.source: {self.source!r} not in ('synth', 'ruc')")
        if set(self.split) != {"train", "valid", "test"}:
            raise InputError("params.yaml: data.split: needs exactly train, valid, test")
        if abs(sum(self.split.values()) - 1.0) > 1e-9:
            raise InputError("params.yaml: data.split: fractions must sum to 1")
        if self.n_null < 0:
            raise InputError("params.yaml: data.n_null: must be >= 0")
        for vp in self.viewports:
            if len(vp) != 2 or vp[0] < 1024 or vp[1] < 768:
                raise InputError(f"params.yaml: data.viewports: {vp} is not [w>=1024, h>=768]")

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> DataParams:
        return _build(cls, "data", values)

    @property
    def deceptive_counts(self) -> dict[str, int]:
        return dict(self.composition.get("deceptive", {}))

    @property
    def normal_count(self) -> int:
        return int(self.composition.get("normal", 0))
