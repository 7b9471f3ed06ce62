"""Click generation (paper 3.2.1, App. D): hand-computed cases and properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from darkguard.ruc.clicks import ClickGenerationError, boundary_point_outside, sample_clicks
from darkguard.ruc.schema import click_label, contains


def rec(correct, dark=None, w=1000, h=800, rid="r1") -> dict:
    r = {"id": rid, "image_width": w, "image_height": h, "correct_box": {"bbox": correct}}
    if dark is not None:
        r["dark_box"] = {"bbox": dark}
    return r


@pytest.mark.parametrize(
    ("correct", "dark", "expected"),
    [
        # normal sample: benign centroid + one null click, nothing else
        ([100, 100, 200, 140], None, [("benign_centroid", 150.0, 120.0, 1)]),
        # disjoint boxes: deceptive click at the dark centroid
        (
            [100, 100, 200, 140],
            [500, 300, 700, 400],
            [("benign_centroid", 150.0, 120.0, 1), ("deceptive_centroid", 600.0, 350.0, -1)],
        ),
        # dark overlay encompassing the correct box: centroid (150,120) lies inside the correct
        # box, so the click moves to the nearest dark boundary point outside it: top edge y=90
        (
            [100, 100, 200, 140],
            [80, 90, 220, 160],
            [("benign_centroid", 150.0, 120.0, 1), ("deceptive_boundary", 150.0, 90.0, -1)],
        ),
        # overlap where the dark centroid is already outside the correct box
        (
            [100, 100, 200, 140],
            [180, 100, 400, 140],
            [("benign_centroid", 150.0, 120.0, 1), ("deceptive_centroid", 290.0, 120.0, -1)],
        ),
    ],
)
def test_hand_computed_clicks(correct, dark, expected) -> None:
    clicks = sample_clicks(rec(correct, dark), n_null=1, seed=42)
    got = [(c.rule, c.x, c.y, c.label) for c in clicks if c.rule != "null_uniform"]
    assert got == expected
    nulls = [c for c in clicks if c.rule == "null_uniform"]
    assert len(nulls) == 1 and nulls[0].label == 0


def test_n_null_clicks_are_exactly_n_and_labelled_zero() -> None:
    clicks = sample_clicks(rec([0, 0, 100, 100], [200, 200, 300, 300]), n_null=5, seed=42)
    nulls = [c for c in clicks if c.rule == "null_uniform"]
    assert len(nulls) == 5  # the reference code returns n+1 and labels them -1
    assert {c.label for c in nulls} == {0}
    assert len({c.click_id for c in clicks}) == len(clicks)


def test_null_clicks_depend_on_seed_and_id_only() -> None:
    a = sample_clicks(rec([0, 0, 100, 100], rid="x"), 3, 42)
    b = sample_clicks(rec([0, 0, 100, 100], rid="x"), 3, 42)
    c = sample_clicks(rec([0, 0, 100, 100], rid="y"), 3, 42)
    assert a == b
    assert [(k.x, k.y) for k in a] != [(k.x, k.y) for k in c]


def test_dark_box_inside_correct_box_has_no_deceptive_click() -> None:
    with pytest.raises(ClickGenerationError, match=r"record r1: field 'dark_box\.bbox'"):
        sample_clicks(rec([0, 0, 500, 500], [100, 100, 200, 200]), 1, 42)


def test_boxes_covering_the_image_have_no_null_region() -> None:
    with pytest.raises(ClickGenerationError, match="no null region"):
        sample_clicks(rec([0, 0, 1000, 800]), 1, 42)


def test_boundary_point_tie_break() -> None:
    # (9, 0), (9, 10), (91, 0) and (91, 10) are all nearest to (50, 5): smaller (y, x) wins.
    assert boundary_point_outside([0, 0, 100, 10], [10, -5, 90, 15], (50, 5)) == (9.0, 0.0)
    assert boundary_point_outside([10, 10, 20, 20], [0, 0, 30, 30], (15, 15)) is None


boxes = st.tuples(
    st.integers(0, 900), st.integers(0, 700), st.integers(5, 400), st.integers(5, 300)
).map(lambda t: [t[0], t[1], min(1000, t[0] + t[2]), min(800, t[1] + t[3])])


@settings(max_examples=300, deadline=None)
@given(boxes, boxes, st.integers(0, 3), st.integers(0, 10_000))
def test_click_properties(correct, dark, n_null, seed) -> None:
    r = rec(correct, dark)
    try:
        clicks = sample_clicks(r, n_null, seed)
    except ClickGenerationError:
        # only when the dark box lies inside the correct box, or the boxes cover the image
        inside = all(contains(correct, x, y) for x in dark[::2] for y in dark[1::2])
        assert inside or n_null > 0
        return
    for c in clicks:
        assert click_label(c.x, c.y, correct, dark) == c.label
        if c.label == 1:  # benign: inside the correct box
            assert contains(correct, c.x, c.y)
        elif c.label == -1:  # deceptive: inside the dark box, outside the correct box
            assert contains(dark, c.x, c.y) and not contains(correct, c.x, c.y)
        else:  # null: outside both boxes, inside the image
            assert not contains(correct, c.x, c.y) and not contains(dark, c.x, c.y)
            assert 0 <= c.x < 1000 and 0 <= c.y < 800
    moved = [c for c in clicks if c.rule == "deceptive_boundary"]
    for c in moved:  # the overlap rule puts the click on the dark box's boundary
        assert c.x in (dark[0], dark[2]) or c.y in (dark[1], dark[3])
    assert sum(c.rule == "null_uniform" for c in clicks) == n_null
