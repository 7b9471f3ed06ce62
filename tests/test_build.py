"""The build_ruc stage end to end on a small composition: outputs, resume, interruption, import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from darkguard.config import Config, load_config
from darkguard.io import read_jsonl
from darkguard.ruc.synth import generate as synth_build
from darkguard.ruc.synth import render
from darkguard.ruc.validate import validate_dir
from darkguard.stages import build_ruc

pytestmark = pytest.mark.browser

SMALL = {
    "normal": 10,
    "deceptive": {
        "Coercive Design": 3,
        "Cognitive Manipulation": 3,
        "Contextual Path Spoofing": 3,
        "Emotional Manipulation": 3,
    },
}


def small_config(**changes) -> Config:
    """params.yaml with the small composition, seed 42 and `changes` of the data section."""
    values = {"base.profile": "tiny", "base.seed": 42, "data.composition": SMALL}
    return load_config().override({**values, **{f"data.{k}": v for k, v in changes.items()}})


@pytest.fixture
def count_renders(monkeypatch):
    calls = []
    original = render.PageRenderer.render

    def counting(self, page_id, *args):
        calls.append(page_id)
        return original(self, page_id, *args)

    monkeypatch.setattr(render.PageRenderer, "render", counting)
    return calls


def snapshot(out: Path) -> dict[str, bytes]:
    files = [p for p in out.rglob("*") if p.is_file() and p.name != "run_info.json"]
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(files)}


def test_build_writes_a_valid_benchmark(workdirs, count_renders) -> None:
    build = build_ruc.run(small_config())
    out = build.out_dir
    assert out == workdirs[0] / "ruc"
    assert validate_dir(out).ok
    assert len(count_renders) == 22
    full = json.loads((out / "full.json").read_text())
    assert len(full) == 22 and len(list((out / "websites").glob("*.html"))) == 22
    assert (
        sum(
            len(json.loads((out / f"{s}.json").read_text()))
            for s in ("train", "valid", "test", "heldout_valid", "heldout_test")
        )
        == 22
    )
    record = next(r for r in full if r["type"] == "Deception")
    assert record["url"] == f"websites/{record['id']}.html"
    assert record["domain"] in ("News", "Booking", "Shopping", "Software")
    assert set(record["dark_box"]) == {"bbox", "norm"}
    clicks = read_jsonl(out / "clicks" / "train.jsonl")
    assert {c["label"] for c in clicks} == {-1, 0, 1}
    assert read_jsonl(out / "clicks" / "rejected.jsonl") == []
    run_info = json.loads((out / "run_info.json").read_text())
    assert run_info["params"]["data"]["composition"] == SMALL and "torch" in run_info["packages"]


def test_rebuild_reuses_pages_and_is_byte_identical(workdirs, count_renders) -> None:
    out = build_ruc.run(small_config()).out_dir
    first = snapshot(out)
    count_renders.clear()
    build_ruc.run(small_config())
    assert count_renders == []
    assert snapshot(out) == first


def test_interrupted_build_resumes_to_the_same_result(workdirs, tmp_path, monkeypatch) -> None:
    original = render.PageRenderer.render
    rendered = []

    def crash_after_five(self, page_id, *args):
        if len(rendered) >= 5:
            raise KeyboardInterrupt("simulated interruption")
        rendered.append(page_id)
        return original(self, page_id, *args)

    monkeypatch.setattr(render.PageRenderer, "render", crash_after_five)
    with pytest.raises(KeyboardInterrupt):
        build_ruc.run(small_config())
    out = workdirs[0] / "ruc"
    journaled = [r["id"] for r in read_jsonl(out / "journal.jsonl")]
    # every page rendered before the interruption is journaled (two browsers: 5 or 6 of them)
    assert sorted(journaled) == sorted(rendered) and len(journaled) in (5, 6)
    monkeypatch.setattr(render.PageRenderer, "render", original)
    rerendered = []
    monkeypatch.setattr(
        render.PageRenderer,
        "render",
        lambda self, pid, *a: rerendered.append(pid) or original(self, pid, *a),
    )
    build_ruc.run(small_config())
    assert len(rerendered) == 22 - len(rendered) and not set(rerendered) & set(rendered)
    resumed = snapshot(out)
    monkeypatch.setenv("DARKGUARD_DATA", str(tmp_path / "clean"))
    monkeypatch.setattr(synth_build, "RENDER_WORKERS", 1)  # and one browser renders the same
    assert snapshot(build_ruc.run(small_config()).out_dir) == resumed


def test_composition_change_prunes_stale_pages(workdirs) -> None:
    out = build_ruc.run(small_config()).out_dir
    smaller = {"normal": 4, "deceptive": {"Coercive Design": 1}}
    build = build_ruc.run(small_config(composition=smaller))
    assert len(list((out / "images").glob("*.png"))) == len(build.records) == 5
    assert len(read_jsonl(out / "journal.jsonl")) == 5


def test_release_source_imports_through_the_validator(workdirs, release) -> None:
    build = build_ruc.run(small_config(source="ruc", raw_dir=str(release)))
    assert [r["id"] for r in build.records] == [1, 2, 3, 4, 5]  # nothing dropped
    assert validate_dir(build.out_dir).ok
    assert (build.out_dir / "websites" / "3.html").is_file()
    assert build.records[2]["dark_box"]["norm"] == [0.409956, 0.598958, 0.556369, 0.755208]
    n_clicks = sum(len(v) for v in build.clicks.values())
    assert n_clicks == 5 + 3 + 5  # benign + deceptive + one null each


def test_invalid_release_is_refused(workdirs, release) -> None:
    (release / "images" / "2.png").unlink()
    with pytest.raises(ValueError, match="record 2: field 'image_path'"):
        build_ruc.run(small_config(source="ruc", raw_dir=str(release)))
