"""Shared fixtures: a copy of the public-release-format fixture, and relocated output folders."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "ruc_release"


@pytest.fixture
def release(tmp_path: Path) -> Path:
    """A writable copy of the small RUC release fixture (train/eval/full JSON + images/)."""
    dst = tmp_path / "ruc_release"
    shutil.copytree(FIXTURE, dst)
    return dst


def edit_records(directory: Path, name: str, edit) -> None:
    """Apply `edit(records)` to `<directory>/<name>` in place."""
    path = directory / name
    records = json.loads(path.read_text())
    edit(records)
    path.write_text(json.dumps(records, indent=2))


@pytest.fixture
def workdirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """Relocate data/ and reports/ into a temporary folder for the test."""
    data, reports = tmp_path / "data", tmp_path / "reports"
    monkeypatch.setenv("DARKGUARD_DATA", str(data))
    monkeypatch.setenv("DARKGUARD_REPORTS", str(reports))
    return data, reports


TINY_CORPUS = [
    "You are a click evaluator. <judge>-1</judge> <conf>0.85</conf>",
    *(f"Task: add item {i} to the cart." for i in range(50)),
]


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """A tiny random-weight Qwen3-VL folder (built offline in a few seconds)."""
    from darkguard.models import prompts
    from darkguard.models.tiny.architecture import TinySize, build_tiny

    corpus = [prompts.EVALUATOR_SYSTEM, prompts.AGENT_SYSTEM, *TINY_CORPUS]
    return build_tiny(
        tmp_path_factory.mktemp("tiny"),
        corpus,
        TinySize(),
        vocab_size=600,
        max_pixels=128 * 128,
        seed=42,
    )
