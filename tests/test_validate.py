"""The validator: one test per kind of bad input, each message naming file, record and field."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from darkguard.cli import main
from darkguard.ruc.validate import ValidationError, validate_dir
from tests.conftest import edit_records


def only_issue(directory: Path):
    report = validate_dir(directory)
    assert not report.ok
    return report.issues


def assert_named(issues, file: str, record: str, field: str, words: str) -> None:
    text = [str(i) for i in issues]
    match = [i for i in issues if (i.file, i.record, i.field) == (file, record, field)]
    assert match, f"no issue for {file}/{record}/{field} in {text}"
    assert any(words in i.message for i in match), text
    assert all(file in t and record in t and field in t for t in map(str, match))


def test_fixture_is_valid(release: Path) -> None:
    report = validate_dir(release)
    assert report.ok, report.issues
    assert len(report.records) == 5
    assert set(report.files) == {"full.json", "train.json", "eval.json"}


@pytest.mark.parametrize(
    "field", ["id", "type", "image_path", "correct_box", "messages", "image_width"]
)
def test_missing_field(release: Path, field: str) -> None:
    edit_records(release, "full.json", lambda rs: rs[1].pop(field))
    record = "?" if field == "id" else "2"
    assert_named(only_issue(release), "full.json", record, field, "missing")


def test_unknown_type(release: Path) -> None:
    edit_records(release, "full.json", lambda rs: rs[0].update(type="Phishing"))
    assert_named(only_issue(release), "full.json", "1", "type", "unknown type 'Phishing'")


def test_box_outside_image(release: Path) -> None:
    edit_records(
        release, "full.json", lambda rs: rs[0]["correct_box"].update(bbox=[1000, 700, 1100, 760])
    )
    assert_named(only_issue(release), "full.json", "1", "correct_box.bbox", "outside")


def test_x2_not_greater_than_x1(release: Path) -> None:
    edit_records(
        release, "full.json", lambda rs: rs[2]["dark_box"].update(bbox=[700, 460, 700, 580])
    )
    assert_named(only_issue(release), "full.json", "3", "dark_box.bbox", "x2 > x1")


def test_y2_not_greater_than_y1(release: Path) -> None:
    edit_records(
        release, "full.json", lambda rs: rs[2]["correct_box"].update(bbox=[600, 540, 720, 500])
    )
    assert_named(only_issue(release), "full.json", "3", "correct_box.bbox", "y2 > y1")


def test_missing_image_file(release: Path) -> None:
    (release / "images" / "4.png").unlink()
    issues = only_issue(release)
    # Every file that lists record 4 reports it.
    assert_named(issues, "full.json", "4", "image_path", "not found")
    assert_named(issues, "eval.json", "4", "image_path", "not found")


def test_image_size_differs(release: Path) -> None:
    Image.new("RGB", (800, 600)).save(release / "images" / "5.png")
    assert_named(only_issue(release), "full.json", "5", "image_width", "800x600")


def test_duplicate_ids(release: Path) -> None:
    edit_records(release, "full.json", lambda rs: rs.append(dict(rs[0])))
    assert_named(only_issue(release), "full.json", "1", "id", "duplicate")


def test_unreadable_json(release: Path) -> None:
    (release / "eval.json").write_text('[{"id": 2,,}]')
    assert_named(only_issue(release), "eval.json", "-", "<file>", "unreadable JSON")


def test_deception_without_dark_box(release: Path) -> None:
    edit_records(release, "full.json", lambda rs: rs[3].pop("dark_box"))
    assert_named(only_issue(release), "full.json", "4", "dark_box", "required")


def test_split_record_not_in_full(release: Path) -> None:
    edit_records(release, "train.json", lambda rs: rs[0].update(id=99))
    assert_named(only_issue(release), "train.json", "99", "id", "not in full.json")


def test_empty_directory(tmp_path: Path) -> None:
    issues = only_issue(tmp_path)
    assert "no record file" in issues[0].message


def test_raise_lists_every_issue(release: Path) -> None:
    edit_records(release, "full.json", lambda rs: (rs[0].update(type="X"), rs[1].pop("id")))
    with pytest.raises(ValidationError) as info:
        validate_dir(release).raise_for_issues()
    assert "record 1: field 'type'" in str(info.value)
    assert "field 'id': missing" in str(info.value)


def test_cli_validate(release: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["ruc", "validate", str(release)]) == 0
    out = capsys.readouterr().out
    assert "5 records" in out and "Deception=3" in out and "Normal=2" in out
    edit_records(release, "full.json", lambda rs: rs[0].update(type="X"))
    assert main(["ruc", "validate", str(release)]) == 1
    assert "full.json: record 1: field 'type'" in capsys.readouterr().err
