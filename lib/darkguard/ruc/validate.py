"""Validation of RUC-format directories; every problem names file, record id and field."""

from __future__ import annotations

import numbers
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from darkguard.io import InputError, read_json
from darkguard.ruc import schema

# Files a RUC directory may hold: the public release (train/eval/full) and our splits.
RECORD_FILES = (
    "full.json",
    "train.json",
    "eval.json",
    "valid.json",
    "test.json",
    "heldout_valid.json",
    "heldout_test.json",
)


@dataclass(frozen=True)
class Issue:
    file: str
    record: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: record {self.record}: field '{self.field}': {self.message}"


class ValidationError(InputError):
    """Raised with every issue found, one per line."""

    def __init__(self, issues: list[Issue]):
        self.issues = issues
        head = f"{len(issues)} invalid value(s) in RUC data:\n"
        super().__init__(head + "\n".join(f"  {i}" for i in issues))


@dataclass
class ValidationReport:
    directory: Path
    records: list[dict] = field(default_factory=list)
    files: dict[str, list[dict]] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.issues

    def raise_for_issues(self) -> None:
        if self.issues:
            raise ValidationError(self.issues)


def _is_int(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


AddProblem = Callable[[str, str], None]  # (field, message)


def _check_box(
    box_field: str, value: object, width: object, height: object, add: AddProblem
) -> list[float] | None:
    if not isinstance(value, dict) or "bbox" not in value:
        add(box_field, "missing 'bbox'")
        return None
    bbox = value["bbox"]
    name = f"{box_field}.bbox"
    if (
        not isinstance(bbox, list | tuple)
        or len(bbox) != 4
        or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in bbox)
    ):
        add(name, f"expected 4 numbers [x1, y1, x2, y2], got {bbox!r}")
        return None
    x1, y1, x2, y2 = bbox
    if x2 <= x1 or y2 <= y1:
        add(name, f"empty box {list(bbox)}: needs x2 > x1 and y2 > y1")
    if _is_int(width) and _is_int(height) and (x1 < 0 or y1 < 0 or x2 > width or y2 > height):
        add(name, f"box {list(bbox)} lies outside the {width}x{height} image")
    norm = value.get("norm")
    if norm is not None and _is_int(width) and _is_int(height) and width > 0 and height > 0:
        expected = schema.normalize(bbox, width, height)
        if (
            not isinstance(norm, list)
            or len(norm) != 4
            or any(abs(a - b) > 1e-4 for a, b in zip(norm, expected, strict=True))
        ):
            add(f"{box_field}.norm", f"{norm!r} disagrees with bbox/size (expected {expected})")
    return list(bbox)


def validate_record(
    record: object, file: str, directory: Path, add_issue: Callable[[Issue], None]
) -> None:
    """Check one record; report each problem through `add_issue(Issue)`."""
    rid = str(record.get("id", "?")) if isinstance(record, dict) else "?"

    def add(field_name: str, message: str) -> None:
        add_issue(Issue(file, rid, field_name, message))

    if not isinstance(record, dict):
        add("<record>", f"expected an object, got {type(record).__name__}")
        return
    for name in schema.REQUIRED_FIELDS:
        if name not in record:
            add(name, "missing")
    rtype = record.get("type")
    if "type" in record and rtype not in schema.TYPES:
        add("type", f"unknown type {rtype!r} (expected one of {schema.TYPES})")
    width, height = record.get("image_width"), record.get("image_height")
    for name, value in (("image_width", width), ("image_height", height)):
        if name in record and (not _is_int(value) or value <= 0):
            add(name, f"expected a positive integer, got {value!r}")
    if "correct_box" in record:
        _check_box("correct_box", record["correct_box"], width, height, add)
    dark = record.get("dark_box")
    if rtype == "Deception":
        if not dark:
            add("dark_box", "missing (required for Deception records)")
        else:
            _check_box("dark_box", dark, width, height, add)
        if not isinstance(record.get("category"), str) or not record.get("category"):
            add("category", "missing (required for Deception records)")
    elif rtype == "Normal" and dark:
        add("dark_box", "present on a Normal record")
    if "messages" in record and not schema.task_text(record):
        add("messages", "no user message with the task text")
    image_path = record.get("image_path")
    if "image_path" in record:
        _check_image(directory, image_path, width, height, add)


def _check_image(
    directory: Path, image_path: object, width: object, height: object, add: AddProblem
) -> None:
    if not isinstance(image_path, str) or not image_path:
        add("image_path", f"expected a relative path, got {image_path!r}")
        return
    path = directory / image_path
    if not path.is_file():
        add("image_path", f"image file not found: {image_path}")
        return
    try:
        with Image.open(path) as img:
            size = img.size
    except (UnidentifiedImageError, OSError) as exc:
        add("image_path", f"unreadable image {image_path}: {exc}")
        return
    if size != (width, height):
        add(
            "image_width",
            f"image {image_path} is {size[0]}x{size[1]}, record says {width}x{height}",
        )


def validate_records(records: object, file: str, directory: Path) -> list[Issue]:
    """Validate the records of one JSON file (a list of objects)."""
    issues: list[Issue] = []
    if not isinstance(records, list):
        return [Issue(file, "-", "<file>", "expected a JSON list of records")]
    for record in records:
        validate_record(record, file, directory, issues.append)
    ids = Counter(str(r.get("id")) for r in records if isinstance(r, dict) and "id" in r)
    for rid, n in sorted(ids.items()):
        if n > 1:
            issues.append(Issue(file, rid, "id", f"duplicate id ({n} records)"))
    return issues


def validate_dir(directory: Path) -> ValidationReport:
    """Validate every record file of a RUC-format directory.

    The records of the report are `full.json`, or the union of the split files without it.
    """
    directory = Path(directory)
    report = ValidationReport(directory)
    present = [name for name in RECORD_FILES if (directory / name).is_file()]
    if not present:
        report.issues.append(
            Issue(str(directory), "-", "<file>", f"no record file ({', '.join(RECORD_FILES)})")
        )
        return report
    for name in present:
        try:
            records = read_json(directory / name)
        except InputError as exc:
            report.issues.append(Issue(name, "-", "<file>", str(exc)))
            continue
        report.issues.extend(validate_records(records, name, directory))
        if isinstance(records, list):
            report.files[name] = [r for r in records if isinstance(r, dict)]
    if "full.json" in report.files:
        report.records = report.files["full.json"]
        known = {str(r.get("id")) for r in report.records}
        for name, records in report.files.items():
            for r in records:
                if name != "full.json" and str(r.get("id")) not in known:
                    report.issues.append(Issue(name, str(r.get("id")), "id", "not in full.json"))
    else:
        seen: dict[str, dict] = {}
        for records in report.files.values():
            for r in records:
                seen.setdefault(str(r.get("id")), r)
        report.records = list(seen.values())
    return report


def counts(records: list[dict]) -> dict[str, dict[str, int]]:
    """Record counts by type, category and domain."""
    out: dict[str, dict[str, int]] = {}
    for key in ("type", "category", "domain"):
        c = Counter(str(r.get(key) if r.get(key) is not None else "unknown") for r in records)
        out[key] = dict(sorted(c.items()))
    return out


def load_records(directory: Path, file: str = "full.json") -> list[dict]:
    """The records of one record file of a RUC-format directory, validated: a bad record raises
    `ValidationError` naming the file, the record and the field. The one way records are read."""
    directory = Path(directory)
    records = read_json(directory / file)
    issues = validate_records(records, file, directory)
    if issues:
        raise ValidationError(issues)
    return records


def records_by_id(directory: Path, file: str = "full.json") -> dict[str, dict]:
    """`load_records` keyed by record id (as a string)."""
    return {str(r["id"]): r for r in load_records(directory, file)}
