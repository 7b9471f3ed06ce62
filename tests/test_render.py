"""Rendering in Chromium: boxes from the DOM, the generator's promises, offline guard."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from darkguard.config import load_params
from darkguard.ruc.synth.generate import MIN_INTERACTIVE, check_measurement
from darkguard.ruc.synth.render import PageRenderer, pixel_box
from darkguard.ruc.synth.spec import make_page, plan_pages

pytestmark = pytest.mark.browser
RUC = load_params()["data"]


@pytest.fixture(scope="module")
def renderer():
    with PageRenderer() as r:
        yield r


def test_pixel_box_covers_and_clips() -> None:
    assert pixel_box([10.2, 5.7, 20.1, 30.0], 100, 100) == [10, 5, 21, 30]
    assert pixel_box([-3, -1, 120, 90], 100, 80) == [0, 0, 100, 80]


def test_pages_render_as_specified(renderer) -> None:
    plans = plan_pages(8, {c: 3 for c in RUC["composition"]["deceptive"]}, RUC["domains"], 3)
    for plan in plans:
        spec = make_page(plan, RUC["viewports"], 3)
        png, m = renderer.render(spec.id, spec.html, spec.width, spec.height)
        check_measurement(spec, m)  # raises on any broken promise
        assert Image.open(io.BytesIO(png)).size == (spec.width, spec.height)
        assert m.interactive >= MIN_INTERACTIVE
        for box in (m.correct, m.dark):
            if box is not None:
                assert 0 <= box[0] < box[2] <= spec.width and 0 <= box[1] < box[3] <= spec.height


def test_boxes_come_from_the_dom(renderer) -> None:
    html = (
        '<body style="margin:0"><button data-dg="correct" style="position:absolute;'
        'left:30px;top:40px;width:100px;height:20px">ok</button>'
        '<a href="#" data-dg="dark" style="position:absolute;left:300px;top:200px;'
        'width:50.5px;height:10px">x</a></body>'
    )
    _, m = renderer.render("t", html, 1024, 768)
    assert m.correct == [30, 40, 130, 60]
    assert m.dark == [300, 200, 351, 210]
    assert m.correct_on_top and m.dark_on_top


def test_requests_to_other_hosts_are_blocked(renderer) -> None:
    before = len(renderer.guard.blocked)
    html = '<body><img src="http://192.0.2.1/x.png"><button data-dg="correct">a</button></body>'
    renderer.render("t", html, 1024, 768)
    assert renderer.guard.blocked[before:] == ["http://192.0.2.1/x.png"]
