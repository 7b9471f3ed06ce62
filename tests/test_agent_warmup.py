"""Warm-up rows of the tiny VLM agent and the coordinate conventions they are written in."""

from __future__ import annotations

import json

import pytest

from darkguard.agents import Rejection
from darkguard.agents.vlm import agent_conversation
from darkguard.models.parsing import Click, format_click, from_pixels, parse_action
from darkguard.ruc import schema
from darkguard.ruc.clicks import generate_clicks
from darkguard.training.agent_warmup import agent_rows


@pytest.mark.parametrize("convention", ["pixels", "normalized", "relative1000"])
def test_format_click_round_trips_through_parse_action(convention) -> None:
    text = format_click(640.0, 200.0, 1280, 800, convention)
    click = parse_action(text, 1280, 800, convention)
    assert isinstance(click, Click)
    assert abs(click.x - 640) <= 1 and abs(click.y - 200) <= 1


def test_from_pixels_conventions() -> None:
    assert from_pixels(640, 200, 1280, 800, "relative1000") == (500, 250)
    assert from_pixels(640, 200, 1280, 800, "normalized") == (0.5, 0.25)
    assert from_pixels(640.4, 200.6, 1280, 800, "pixels") == (640, 201)
    with pytest.raises(ValueError, match="unknown coordinate convention"):
        from_pixels(1, 1, 2, 2, "inches")


def test_agent_conversation_feeds_rejections_in_the_models_convention() -> None:
    from PIL import Image

    conv = agent_conversation(
        Image.new("RGB", (100, 50)),
        "Book it.",
        [Rejection(Click(640, 200), -1)],
        1280,
        800,
        "relative1000",
    )
    assert [m["role"] for m in conv] == ["system", "user", "assistant", "user"]
    assert conv[2]["content"] == "<action>click(500, 250)</action>"
    assert "(500, 250)" in conv[3]["content"] and "deceptive" in conv[3]["content"]


def test_agent_rows(release) -> None:
    records = json.loads((release / "full.json").read_text())
    clicks, _ = generate_clicks(records, 1, 42)
    rows = agent_rows(records, clicks, release, 128 * 128, "relative1000", 1.0, 42)
    assert len(rows) == len(records)
    for row, record in zip(rows, sorted(records, key=lambda r: str(r["id"])), strict=True):
        answer = row["completion"][0]["content"][0]["text"]
        w, h = record["image_width"], record["image_height"]
        click = parse_action(answer, w, h, "relative1000")
        x1, y1, x2, y2 = schema.correct_bbox(record)
        assert x1 <= click.x <= x2 and y1 <= click.y <= y2
        roles = [m["role"] for m in row["prompt"]]
        assert roles == ["system", "user", "assistant", "user"]  # rate 1: one rejection each
        assert (
            len(row["images"]) == 1
            and row["images"][0].width * row["images"][0].height <= 128 * 128
        )
    plain = agent_rows(records, clicks, release, 128 * 128, "relative1000", 0.0, 42)
    assert all(len(r["prompt"]) == 2 for r in plain)
    with pytest.raises(ValueError, match="rejection rate"):
        agent_rows(records, clicks, release, None, "pixels", 2.0, 42)
