"""Import a copy of the public RUC release (placed under data/raw/ruc/) into a build folder."""

from __future__ import annotations

import shutil
from pathlib import Path

from darkguard.ruc import schema
from darkguard.ruc.validate import validate_dir


def import_release(raw_dir: Path, out_dir: Path) -> list[dict]:
    """Validate the release, copy its images (and local HTML) and return normalized records.

    Records keep every original field; `*.norm` boxes are added where missing.
    """
    raw_dir, out_dir = Path(raw_dir), Path(out_dir)
    report = validate_dir(raw_dir)
    report.raise_for_issues()
    records = []
    for original in sorted(report.records, key=lambda r: str(r["id"])):
        record = dict(original)
        w, h = record["image_width"], record["image_height"]
        for key in ("correct_box", "dark_box"):
            box = record.get(key)
            if box and "norm" not in box:
                record[key] = {**box, "norm": schema.normalize(box["bbox"], w, h)}
        _copy(raw_dir / record["image_path"], out_dir / record["image_path"])
        url = record.get("url")
        if isinstance(url, str) and not url.startswith(("http:", "https:")):
            src = raw_dir / url
            if src.is_file():
                _copy(src, out_dir / url)
        records.append(record)
    return records


def _copy(src: Path, dst: Path) -> None:
    if dst.is_file() and dst.stat().st_size == src.stat().st_size:
        return
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)
