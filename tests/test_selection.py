"""Selection discipline: the code that trains or chooses (warm-up rows, GRPO, Stage 2, the
gate's threshold) names no test split and no held-out style family's file."""

from __future__ import annotations

import ast
from pathlib import Path

import darkguard

LIB = Path(darkguard.__file__).parent
CHOOSERS = [
    *sorted((LIB / "training").rglob("*.py")),
    LIB / "stages" / "guard_eval" / "threshold.py",
    LIB / "stages" / "stage2_summarize.py",
]
FORBIDDEN = ("test", "heldout")


def split_names(path: Path) -> list[str]:
    """String constants of `path` that name a test split or a held-out family's file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.strip().lower()
            stem = text.split("/")[-1].split(".")[0]
            if stem in FORBIDDEN or stem.startswith("heldout_") or stem.endswith("_test"):
                found.append(node.value)
    return found


def test_no_choosing_code_names_a_test_or_held_out_split() -> None:
    assert len(CHOOSERS) > 5
    leaks = {str(p.relative_to(LIB)): split_names(p) for p in CHOOSERS if split_names(p)}
    assert not leaks


def test_the_check_sees_a_test_split(tmp_path) -> None:
    leaky = tmp_path / "leaky.py"
    leaky.write_text('CLICKS = "clicks/test.jsonl"\nHELD = "heldout_valid.json"\nOK = "valid"\n')
    assert split_names(leaky) == ["clicks/test.jsonl", "heldout_valid.json"]
