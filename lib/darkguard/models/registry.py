"""Resolve a model SPEC (a name from params.yaml's `models.<profile>`, or a model folder)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from darkguard import paths
from darkguard.io import InputError
from darkguard.models.spec import ModelSpec

if TYPE_CHECKING:
    from darkguard.config import Config


def resolve_spec(spec: str | None, role: str, cfg: Config) -> ModelSpec:
    """The model for `role` ("evaluator" or "agent") under the profile of `cfg`.

    `spec` None -> the profile's `default_<role>`; a name in `models.<profile>` -> that entry
    (relative `data/...` paths follow `paths.resolve`); an existing folder -> an `hf` model.
    """
    profile = cfg.base.profile
    table = cfg.models.entries
    name = spec or cfg.models.default(role)
    if name is None:
        raise InputError(f"params.yaml: models.{profile}: no default_{role}; pass a SPEC")
    if name in table:
        values = table[name].spec_values()
        if values.get("backend", "hf") == "hf" and values.get("path", "").startswith("data/"):
            values["path"] = str(paths.resolve(values["path"]))
            if not Path(values["path"]).is_dir():
                raise InputError(
                    f"params.yaml: models.{profile}.{name}.path: model folder "
                    f"{values['path']} not found"
                )
        return ModelSpec.from_dict(name, values)
    if Path(name).is_dir():
        return ModelSpec(name=Path(name).name, backend="hf", path=str(Path(name).resolve()))
    choices = sorted(table)
    raise InputError(
        f"model SPEC {name!r}: not a model of profile '{profile}' {choices} and not a model folder"
    )
