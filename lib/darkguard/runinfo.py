"""What every run records beside its outputs: package versions and the resolved parameters."""

from __future__ import annotations

import platform
from importlib import metadata
from pathlib import Path
from typing import Any

from darkguard.io import write_json

PACKAGES = (
    "darkguard",
    "torch",
    "torchvision",
    "transformers",
    "trl",
    "peft",
    "playwright",
    "numpy",
    "pandas",
    "pillow",
    "dvc",
    "papermill",
)


def package_versions(names: tuple[str, ...] = PACKAGES) -> dict[str, str]:
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def write_run_info(path: Path, params: dict[str, Any], extra: dict[str, Any] | None = None) -> None:
    """Write `{python, packages, params, ...extra}` as canonical JSON."""
    write_json(
        Path(path),
        {
            "python": platform.python_version(),
            "packages": package_versions(),
            "params": params,
            **(extra or {}),
        },
    )
