"""The only place where project paths are defined.

`DARKGUARD_DATA` and `DARKGUARD_REPORTS` relocate the data and report folders (tests use them so
that re-executing a notebook never overwrites pipeline outputs); `DARKGUARD_CACHE` moves (or, set
to `off`, disables) the caches derived from built data.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PARAMS_FILE = ROOT / "params.yaml"
NOTEBOOKS = ROOT / "notebooks"


def data_dir() -> Path:
    """Root of built data (`data/`), or `$DARKGUARD_DATA`."""
    return Path(os.environ.get("DARKGUARD_DATA", ROOT / "data"))


def reports_dir() -> Path:
    """Root of report outputs (`reports/`), or `$DARKGUARD_REPORTS`."""
    return Path(os.environ.get("DARKGUARD_REPORTS", ROOT / "reports"))


def tables_dir() -> Path:
    return reports_dir() / "tables"


def figures_dir() -> Path:
    return reports_dir() / "figures"


def metrics_dir() -> Path:
    return reports_dir() / "metrics"


def cache_dir() -> Path | None:
    """Caches derived from built data (`data/cache/`), or `$DARKGUARD_CACHE`; None when that is
    `off`. Entries are content-addressed, so relocated data folders share one cache."""
    value = os.environ.get("DARKGUARD_CACHE", "")
    if value.lower() == "off":
        return None
    return Path(value) if value else ROOT / "data" / "cache"


def resolve(path: str | Path) -> Path:
    """Resolve a params path: `data/...` and `reports/...` follow the relocations above,
    other relative paths are taken from the repository root."""
    p = Path(path)
    if p.is_absolute():
        return p
    if p.parts and p.parts[0] == "data":
        return data_dir().joinpath(*p.parts[1:])
    if p.parts and p.parts[0] == "reports":
        return reports_dir().joinpath(*p.parts[1:])
    return ROOT / p


def display(path: Path) -> str:
    """A path as users see it in outputs: relative to its data/reports/repository root."""
    path = Path(path)
    for root, name in ((data_dir(), "data"), (reports_dir(), "reports"), (ROOT, "")):
        try:
            rel = path.resolve().relative_to(Path(root).resolve())
        except ValueError:
            continue
        return str(Path(name) / rel) if name else str(rel)
    return str(path)


def slug(label: str) -> str:
    """A file name for a display label: lower case, every other character than letters and
    digits an underscore (`w/o omega` -> `w_o_omega`)."""
    return "".join(ch if ch.isalnum() else "_" for ch in label.lower()).strip("_")
