"""Parsers never crash: table-driven cases and hypothesis on arbitrary strings."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from darkguard.models.parsing import (
    CONF_EPS,
    Click,
    FinalAnswer,
    Judgement,
    OutOfDomain,
    ParseFailure,
    format_judgement,
    parse_action,
    parse_judgement,
    to_pixels,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<judge>1</judge> <conf>0.9</conf>", Judgement(1, 0.9)),
        ("<judge>-1</judge><conf>0.75</conf>", Judgement(-1, 0.75)),
        ("<JUDGE> 0 </JUDGE>\n<Conf> .5 </Conf>", Judgement(0, 0.5)),  # case, spaces, ".5"
        ("The button is an ad. <judge>-1</judge> <conf>0.8</conf> Done.", Judgement(-1, 0.8)),
        ("<judge>+1</judge> <conf>1</conf>", Judgement(1, 1 - CONF_EPS)),  # clipped into (0,1)
        ("<judge>1</judge> <conf>0</conf>", Judgement(1, CONF_EPS)),
        ("<judge>0</judge> <conf>0.2</conf> <judge>1</judge> <conf>0.6</conf>", Judgement(1, 0.6)),
        ("<judge>2</judge> <conf>0.7</conf>", OutOfDomain(2, 0.7)),  # reward -1, not -10
        ("<judge>-5</judge> <conf>0.7</conf>", OutOfDomain(-5, 0.7)),
    ],
)
def test_parse_judgement(text, expected) -> None:
    assert parse_judgement(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "1 0.9",
        "<judge>1</judge>",
        "<conf>0.9</conf>",
        "<judge>yes</judge> <conf>0.9</conf>",
        "<judge>1</judge> <conf>high</conf>",
        "<judge>1</judge> <conf>nan</conf>",
        "<judge>1.5</judge> <conf>0.9</conf>",
        "<judge></judge> <conf>0.9</conf>",
        None,
        42,
    ],
)
def test_parse_failures_are_typed(text) -> None:
    assert isinstance(parse_judgement(text), ParseFailure)


def test_format_round_trips() -> None:
    for label in (-1, 0, 1):
        assert parse_judgement(format_judgement(label, 0.85)) == Judgement(label, 0.85)


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_parse_judgement_never_raises(text) -> None:
    out = parse_judgement(text)
    assert isinstance(out, Judgement | OutOfDomain | ParseFailure)
    if isinstance(out, Judgement):
        assert out.label in (-1, 0, 1) and 0 < out.confidence < 1


@settings(max_examples=300, deadline=None)
@given(st.text(), st.sampled_from([-1, 0, 1]), st.floats(0.01, 0.99), st.text())
def test_judgement_found_inside_any_text(before, label, conf, after) -> None:
    text = f"{before} <judge>{label}</judge> <conf>{conf:.3f}</conf>"
    if "<" not in after:  # trailing tags would legitimately override
        text += after
    out = parse_judgement(text)
    assert out == Judgement(label, round(conf, 3)) or "<" in before


@pytest.mark.parametrize(
    ("text", "convention", "expected"),
    [
        ("<action>click(100, 200)</action>", "pixels", Click(100, 200)),
        ("click(x=100, y=200)", "pixels", Click(100, 200)),
        ("Action: click([0.5, 0.25])", "normalized", Click(500, 200)),
        ("click(start_box='(500,250)')", "relative1000", Click(500, 200)),
        ("click(point='<point>250 500</point>')", "relative1000", Click(250, 400)),
        ("first click(1, 1) then, better, click(300.5, 40)", "pixels", Click(300.5, 40)),
        ("<final_answer>done</final_answer>", "pixels", FinalAnswer("done")),
        ("click(10, 10) <final_answer>ok</final_answer>", "pixels", FinalAnswer("ok")),
    ],
)
def test_parse_action(text, convention, expected) -> None:
    assert parse_action(text, 1000, 800, convention) == expected


@pytest.mark.parametrize(
    "text",
    ["", "I will click the button.", "click(1200, 10)", "click(-5, 10)", "tap(10, 10)", None],
)
def test_parse_action_failures(text) -> None:
    assert isinstance(parse_action(text, 1000, 800, "pixels"), ParseFailure)


def test_to_pixels_rejects_unknown_convention() -> None:
    with pytest.raises(ValueError, match="unknown coordinate convention"):
        to_pixels(1, 1, 10, 10, "inches")


@settings(max_examples=500, deadline=None)
@given(st.text(), st.sampled_from(["pixels", "normalized", "relative1000"]))
def test_parse_action_never_raises(text, convention) -> None:
    out = parse_action(text, 1280, 800, convention)
    assert isinstance(out, Click | FinalAnswer | ParseFailure)
    if isinstance(out, Click):
        assert 0 <= out.x <= 1280 and 0 <= out.y <= 800
