"""The typed tree of params.yaml: one frozen model per section, the profile resolved at load.

`load_config()` reads params.yaml; `Config.from_sections(...)` takes the sections papermill
injected into a notebook. Every key is required (params.yaml is the only source of values) and
unknown keys are refused, each error naming the file and the dotted key. The values params.yaml
gives per profile (`models.<profile>`, `stage1.grpo.<profile>`, ...) are resolved once, for
`base.profile`; the warm-ups and Stage 2's loop take their seed from `base.seed`.

`view(cfg, keys)` is `cfg` restricted to a stage's dotted keys (its `PARAMS`, which dvc.yaml
lists too): reading any other key raises `InputError`.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, cast

import yaml
from pydantic import ValidationError, create_model

from darkguard import paths
from darkguard.config.sections import (
    PER_PROFILE_SECTIONS,
    PROFILES,
    SECTIONS,
    AblationsParams,
    AgentWarmupParams,
    AidsOverride,
    AidsParams,
    ArenaEvalParams,
    ArenaSynthParams,
    BaseParams,
    BuildModelsParams,
    ByProfile,
    Composition,
    DataParams,
    GRPOParams,
    GuardEvalParams,
    LaunchParams,
    LoopParams,
    LoraParams,
    ModelEntry,
    ModelTable,
    ParallelParams,
    Params,
    RewardOverride,
    RewardParams,
    Stage1Params,
    Stage2Params,
    SweepParams,
    TinySizeParams,
    VeerAblationsParams,
    VeerEvalParams,
    VllmParams,
    WarmupParams,
    _Marker,
    field_kind,
)
from darkguard.io import InputError


def load_params(path: Path | None = None) -> dict[str, Any]:
    """Read params.yaml (or `path`) as a dict of sections, unvalidated."""
    path = Path(path or paths.PARAMS_FILE)
    try:
        params = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise InputError(f"{path}: cannot read parameters ({exc})") from None
    if not isinstance(params, dict):
        raise InputError(f"{path}: expected a mapping of sections")
    return params


# the sections as written, and their resolution for one profile


def _is_params(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, Params)


@functools.cache
def as_written(cls: type[Params]) -> type[Params]:
    """`cls` as params.yaml writes it: a per-profile field maps each profile to its value, a
    field from base is absent. `cls` itself when it has neither."""
    fields: dict[str, Any] = {}
    changed = False
    for name, info in cls.model_fields.items():
        kind = field_kind(info)
        if kind == "seed":
            changed = True
            continue
        annotation = info.annotation
        if _is_params(annotation) and as_written(annotation) is not annotation:
            annotation, changed = as_written(annotation), True
        extra = [m for m in info.metadata if not isinstance(m, _Marker)]
        if kind == "profile":  # the field's checks apply to each profile's value
            inner = Annotated[annotation, *extra] if extra else annotation
            annotation, changed, extra = ByProfile[inner], True, []
        fields[name] = (Annotated[annotation, *extra] if extra else annotation, ...)
    if not changed:
        return cls
    decorators = cls.__pydantic_decorators__
    if decorators.field_validators or decorators.model_validators:
        raise TypeError(f"{cls.__name__}: checks of its values go in Annotated validators")
    return create_model(cls.__name__, __base__=Params, __doc__=cls.__doc__, **fields)


def _section_type(name: str) -> type[Params]:
    cls = as_written(SECTIONS[name])
    return ByProfile[cls] if name in PER_PROFILE_SECTIONS else cls


def _resolve(value: Any, cls: type[Params], base: BaseParams) -> Any:
    """A written value of `cls` for the profile and seed of `base`."""
    if as_written(cls) is cls:
        return value
    values = {}
    for name, info in cls.model_fields.items():
        kind = field_kind(info)
        if kind == "seed":
            values[name] = base.seed
            continue
        item = getattr(value, name)
        if kind == "profile":
            item = item[base.profile]
        if _is_params(info.annotation):
            item = _resolve(item, info.annotation, base)
        values[name] = item
    return cls.model_validate(values)


def _key_path(loc: tuple, raw: Any, missing: bool) -> str:
    """The dotted key of an error's location: the keys found in the input (pydantic's union
    member tags are not), and a missing key last."""
    parts, node = [], raw
    for i, part in enumerate(loc):
        if isinstance(node, dict) and part in node:
            parts.append(str(part))
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            parts.append(f"[{part}]")
            node = node[part]
        elif missing and i == len(loc) - 1:
            parts.append(str(part))
    return ".".join(parts).replace(".[", "[")


def _problems(exc: ValidationError, section: str, raw: Any) -> list[str]:
    out = []
    for error in exc.errors():
        path = _key_path(error["loc"], raw, error["type"] == "missing")
        message = {"extra_forbidden": "unknown key", "missing": "missing key"}.get(
            error["type"], error["msg"].removeprefix("Value error, ")
        )
        out.append(f"{section}.{path}: {message}" if path else f"{section}: {message}")
    return out


def _validate(raw: Mapping[str, Any], source: str, complete: bool) -> dict[str, Params]:
    problems = [f"{name}: unknown section" for name in raw if name not in SECTIONS]
    needed = SECTIONS if complete else ("base",)
    problems += [f"{name}: missing section" for name in needed if name not in raw]
    sections = {}
    for name in SECTIONS:
        if name not in raw:
            continue
        try:
            sections[name] = _section_type(name).model_validate(raw[name])
        except ValidationError as exc:
            problems += _problems(exc, name, raw[name])
    if problems:
        raise InputError("\n".join(f"{source}: {p}" for p in dict.fromkeys(problems)))
    return sections


class Config:
    """params.yaml validated, with the profile resolved: `cfg.stage1.grpo` is the GRPO settings
    of `cfg.base.profile`, `cfg.models` its model table, `cfg.build_models.warmup.seed` is
    `cfg.base.seed`. `written(section)` keeps every profile's values."""

    __slots__ = ("_raw", "_resolved", "_written", "source")

    def __init__(
        self, raw: Mapping[str, Any], source: str = "params.yaml", complete: bool = False
    ) -> None:
        """Validate the sections in `raw` (all of them when `complete`; base always)."""
        self.source = source
        self._raw = copy.deepcopy(dict(raw))
        self._written = _validate(self._raw, source, complete)
        base = cast(BaseParams, self._written["base"])
        self._resolved = {
            name: (
                section[base.profile]
                if name in PER_PROFILE_SECTIONS
                else _resolve(section, SECTIONS[name], base)
            )
            for name, section in self._written.items()
        }

    @classmethod
    def from_sections(cls, **sections: Any) -> Config:
        """The tree of some sections, e.g. those papermill injected into a notebook."""
        return cls(sections)

    def _section(self, name: str) -> Any:
        try:
            return self._resolved[name]
        except KeyError:
            raise InputError(f"{self.source}: section '{name}' was not given") from None

    @property
    def base(self) -> BaseParams:
        return self._section("base")

    @property
    def data(self) -> DataParams:
        return self._section("data")

    @property
    def parallel(self) -> ParallelParams:
        return self._section("parallel")

    @property
    def build_models(self) -> BuildModelsParams:
        return self._section("build_models")

    @property
    def models(self) -> ModelTable:
        return self._section("models")

    @property
    def stage1(self) -> Stage1Params:
        return self._section("stage1")

    @property
    def stage2(self) -> Stage2Params:
        return self._section("stage2")

    @property
    def guard_eval(self) -> GuardEvalParams:
        return self._section("guard_eval")

    @property
    def ablations(self) -> AblationsParams:
        return self._section("ablations")

    @property
    def arena_eval(self) -> ArenaEvalParams:
        return self._section("arena_eval")

    @property
    def arena_synth(self) -> ArenaSynthParams:
        return self._section("arena_synth")

    @property
    def veer_eval(self) -> VeerEvalParams:
        return self._section("veer_eval")

    @property
    def veer_ablations(self) -> VeerAblationsParams:
        return self._section("veer_ablations")

    @property
    def sections(self) -> tuple[str, ...]:
        """The sections given."""
        return tuple(self._resolved)

    def written(self, name: str) -> Params:
        """A section as params.yaml writes it (every profile's values)."""
        self._section(name)
        return self._written[name]

    def override(self, values: Mapping[str, Any]) -> Config:
        """A copy with dotted params.yaml keys set to `values`, validated again."""
        raw = copy.deepcopy(self._raw)
        for key, value in values.items():
            *parents, leaf = key.split(".")
            node: Any = raw
            for part in parents:
                node = node.get(part) if isinstance(node, dict) else None
            if not isinstance(node, dict) or leaf not in node:
                raise InputError(f"{self.source}: {key}: no such key")
            node[leaf] = value
        return Config(raw, self.source)

    def for_profile(self, profile: str) -> Config:
        """The same parameters resolved for another profile."""
        return self.override({"base.profile": profile})

    def __repr__(self) -> str:
        return f"Config({self.source}, profile={self.base.profile!r}, {list(self.sections)})"

    def __reduce__(self) -> tuple:
        """Pickled as its params tree, validated again when read back (the validated sections
        are models built at import time, which pickle cannot name)."""
        return (Config, (self._raw, self.source))


def load_config(path: Path | None = None) -> Config:
    """Read and validate the whole params.yaml (or `path`)."""
    path = Path(path or paths.PARAMS_FILE)
    return Config(load_params(path), paths.display(path), complete=True)


from darkguard.config.view import view  # noqa: E402  (the view reads Config)

__all__ = [
    "PROFILES",
    "AblationsParams",
    "AgentWarmupParams",
    "AidsOverride",
    "AidsParams",
    "ArenaEvalParams",
    "ArenaSynthParams",
    "BaseParams",
    "BuildModelsParams",
    "Composition",
    "Config",
    "DataParams",
    "GRPOParams",
    "GuardEvalParams",
    "LaunchParams",
    "LoopParams",
    "LoraParams",
    "ModelEntry",
    "ModelTable",
    "ParallelParams",
    "Params",
    "RewardOverride",
    "RewardParams",
    "Stage1Params",
    "Stage2Params",
    "SweepParams",
    "TinySizeParams",
    "VllmParams",
    "WarmupParams",
    "load_config",
    "load_params",
    "view",
]
