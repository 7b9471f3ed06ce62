"""Box geometry and the ground-truth label of a click (paper Eq. 2, 6)."""

from __future__ import annotations

import pytest

from darkguard.ruc.schema import area, click_label, normalize, task_text

CORRECT, DARK = [100, 100, 200, 150], [150, 120, 400, 300]


@pytest.mark.parametrize(
    ("x", "y", "label"),
    [
        (120, 110, 1),  # inside the correct box only
        (175, 130, 1),  # inside both: the correct box wins (Eq. 2 order)
        (300, 200, -1),  # inside the dark box only
        (100, 100, 1),  # on the correct box's corner: boxes are closed
        (400, 300, -1),  # on the dark box's far corner
        (50, 50, 0),  # null region
        (401, 300, 0),  # just outside the dark box
    ],
)
def test_click_label(x, y, label) -> None:
    assert click_label(x, y, CORRECT, DARK) == label


def test_click_label_without_dark_box() -> None:
    assert click_label(300, 200, CORRECT, None) == 0


def test_normalize_and_area() -> None:
    assert normalize([0, 0, 512, 384], 1024, 768) == [0.0, 0.0, 0.5, 0.5]
    assert area([10, 10, 20, 30]) == 200
    assert area([20, 10, 10, 30]) == 0


def test_task_text_reads_string_and_parts() -> None:
    assert task_text({"messages": [{"role": "user", "content": "Do it."}]}) == "Do it."
    parts = [{"type": "image"}, {"type": "text", "text": "Click here."}]
    assert task_text({"messages": [{"role": "user", "content": parts}]}) == "Click here."
    assert task_text({"messages": []}) == ""
