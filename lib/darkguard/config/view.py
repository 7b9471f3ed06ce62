"""Read-only views of the config: a stage reads only the dotted keys it declares (its `PARAMS`,
which dvc.yaml lists too); reading any other key raises `InputError` naming it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

# darkguard.config imports this module after it has defined Config
from darkguard.config import Config
from darkguard.config.sections import PER_PROFILE_SECTIONS, SECTIONS, Params, field_kind
from darkguard.io import InputError


def _under(key: str, prefix: str) -> bool:
    return key == prefix or key.startswith(prefix + ".")


def _meet(a: frozenset[str], b: frozenset[str]) -> frozenset[str]:
    """The keys declared by both sets (the narrower of two nested keys)."""
    return frozenset(x for x in a if any(_under(x, y) for y in b)) | frozenset(
        y for y in b if any(_under(y, x) for x in a)
    )


def _kinds(obj: Any) -> dict[str, str]:
    if isinstance(obj, Config):
        return {n: "profile" if n in PER_PROFILE_SECTIONS else "plain" for n in SECTIONS}
    if isinstance(obj, Params):
        kinds = {n: field_kind(info) for n, info in type(obj).model_fields.items()}
        return kinds | dict.fromkeys(obj.model_extra or {}, "plain")
    return {}


def _child_key(path: str, name: str, kind: str, profile: str) -> str:
    if kind == "seed":
        return "base.seed"
    key = f"{path}.{name}" if path else name
    return f"{key}.{profile}" if kind == "profile" else key


class _View:
    """A read-only view of a `Config` (or of one of its models at `path`) that lets code read
    the declared dotted keys only."""

    __slots__ = ("_keys", "_obj", "_path", "_profile")

    def __init__(self, obj: Any, path: str, keys: frozenset[str], profile: str) -> None:
        for name, value in (("_obj", obj), ("_path", path), ("_keys", keys), ("_profile", profile)):
            object.__setattr__(self, name, value)

    def _reads(self, key: str) -> bool:
        return any(_under(key, k) for k in self._keys)

    def _covers(self, value: Any, key: str) -> bool:
        """Every key under `value`, which lies at `key`, is declared."""
        if not isinstance(value, Params):
            return self._reads(key)
        return all(
            (kind != "profile" or self._reads("base.profile"))
            and self._covers(getattr(value, name), _child_key(key, name, kind, self._profile))
            for name, kind in _kinds(value).items()
        )

    def _refuse(self, what: str) -> InputError:
        declared = ", ".join(sorted(self._keys))
        return InputError(f"params: {what} (the stage's PARAMS: {declared})")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        kinds = _kinds(self._obj)
        if name in kinds:
            key = _child_key(self._path, name, kinds[name], self._profile)
            if kinds[name] == "profile" and not self._reads("base.profile"):
                raise self._refuse(f"'{key}' depends on 'base.profile', which is not declared")
            if not self._reads(key) and not any(_under(k, key) for k in self._keys):
                raise self._refuse(f"'{key}' is read but not declared")
            value = getattr(self._obj, name)
            if self._covers(value, key):
                return value
            if isinstance(value, Params):
                return _View(value, key, self._keys, self._profile)
            raise self._refuse(f"all of '{key}' is read but only part of it is declared")
        attr = getattr(type(self._obj), name, None)
        if isinstance(self._obj, Params) and isinstance(attr, property):
            return attr.fget(self)
        where = self._path or "params.yaml"
        raise self._refuse(f"'{name}' of '{where}' needs every key under it declared")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a params view is read-only")

    def __reduce__(self) -> tuple:
        """Pickled as what it views and the keys it lets through (jobs in other processes)."""
        return (_View, (self._obj, self._path, self._keys, self._profile))

    def override(self, values: Mapping[str, Any]) -> Config:
        """`Config.override` of the viewed config, viewed with the same keys."""
        if not isinstance(self._obj, Config):
            raise TypeError("override: not a view of the whole config")
        config = self._obj.override(values)
        return cast(Config, _View(config, "", self._keys, config.base.profile))

    def __repr__(self) -> str:
        return f"view({self._path or 'params'}, {sorted(self._keys)})"


def view(cfg: Config, keys: Iterable[str]) -> Config:
    """`cfg` restricted to the dotted `keys` (a stage's `PARAMS`): reading another key raises
    `InputError` naming it. A view of a view reads only what both declare."""
    keys = frozenset(keys)
    if isinstance(cfg, _View):
        if not isinstance(cfg._obj, Config):
            raise TypeError("view: not a view of the whole config")
        return cast(Config, _View(cfg._obj, "", _meet(keys, cfg._keys), cfg._profile))
    return cast(Config, _View(cfg, "", keys, cfg.base.profile))
