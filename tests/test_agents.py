"""Agents: the offline grounding agent (scripted OCR, real MiniLM), Reject & Rethink, metrics."""

from __future__ import annotations

import pytest
from PIL import Image

from darkguard.cli import main
from darkguard.dude import agents
from darkguard.dude.agent_eval import agent_metrics
from darkguard.dude.agents import OfflineAgent, Rejection, TextLine, VLMAgent
from darkguard.models.backends import load_backend
from darkguard.models.parsing import Click, ParseFailure
from darkguard.models.spec import ModelSpec

LINES = [
    TextLine("Aurora Headphones", (100, 100, 260, 120)),
    TextLine("Add to cart", (100, 300, 200, 330)),
    TextLine("Privacy", (10, 700, 60, 715)),
]


@pytest.fixture
def scripted_ocr(monkeypatch):
    monkeypatch.setattr(agents, "read_lines", lambda image: list(LINES))


def test_offline_agent_clicks_best_line_then_rethinks(scripted_ocr) -> None:
    agent = OfflineAgent()
    image = Image.new("RGB", (800, 720))
    first = agent.propose(image, "Add the Aurora Headphones to the cart.", [])
    assert isinstance(first, Click)
    ranked = [
        line.text for _, line in agent.candidates(image, "Add the Aurora Headphones to the cart.")
    ]
    assert ranked[-1] == "Privacy"
    second = agent.propose(
        image, "Add the Aurora Headphones to the cart.", [Rejection(first.x, first.y, 0)]
    )
    assert isinstance(second, Click) and (second.x, second.y) != (first.x, first.y)
    rejected = [Rejection(*line.center, 0) for line in LINES]
    assert isinstance(agent.propose(image, "x", rejected), ParseFailure)


def test_candidates_are_cached_per_whole_screenshot(monkeypatch) -> None:
    """Screenshots that share their top rows and the task must not share candidates."""
    calls = []

    def lines_of(image):
        calls.append(image.getpixel((5, 700)))
        y = 600 if image.getpixel((5, 700)) == (255, 255, 255) else 100
        return [TextLine("Sports", (10, y, 80, y + 20))]

    monkeypatch.setattr(agents, "read_lines", lines_of)
    agent = OfflineAgent()
    top_same = Image.new("RGB", (800, 720))
    other = top_same.copy()
    other.paste((255, 255, 255), (0, 650, 800, 720))  # differs only near the bottom
    a = agent.propose(top_same, "Go to the Sports section.", [])
    b = agent.propose(other, "Go to the Sports section.", [])
    assert len(calls) == 2 and (a.x, a.y) != (b.x, b.y)
    agent.propose(other, "Go to the Sports section.", [])
    assert len(calls) == 2  # the same screenshot is read once


def test_offline_agent_reads_real_text() -> None:
    from PIL import ImageDraw, ImageFont

    image = Image.new("RGB", (900, 400), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype("DejaVuSans.ttf", 32)
    draw.text((60, 60), "Weather forecast", fill="black", font=font)
    draw.text((500, 300), "Download installer", fill="black", font=font)
    click = OfflineAgent().propose(image, "Download the installer.", [])
    assert isinstance(click, Click) and click.x > 450 and click.y > 250


def test_screenshots_read_in_worker_processes_give_the_same_lines() -> None:
    from PIL import ImageDraw, ImageFont

    font = ImageFont.truetype("DejaVuSans.ttf", 28)
    pages = []
    for k, words in enumerate(["Weather forecast", "Add to cart", "Book a room", "Sign in"]):
        image = Image.new("RGB", (700, 300), "white")
        ImageDraw.Draw(image).text((40 + 30 * k, 100), words, fill="black", font=font)
        pages.append(image)
    alone = [agents.read_lines(image) for image in pages]
    assert agents.read_lines_many(pages, workers=2) == alone
    assert any(line.text == "Add to cart" for line in alone[1])
    agent = OfflineAgent()
    many = agent.propose_many([(image, "Add the item to the cart.", []) for image in pages])
    assert [a for a, _ in many] == [
        OfflineAgent().propose(p, "Add the item to the cart.", []) for p in pages
    ]
    assert all(tokens == 0 for _, tokens in many) and len(agent._lines) == 4


def test_agent_metrics_sum_to_100() -> None:
    outcomes = [
        {"label": 1, "type": "Normal"},
        {"label": -1, "type": "Deception"},
        {"label": 0, "type": "Deception"},
        {"label": 1, "type": "Normal"},
    ]
    m = agent_metrics(outcomes)
    assert (m["SR"], m["DFR"], m["NFR"]) == (50.0, 25.0, 25.0)
    assert m["DFR_on_deceptive_pages"] == 50.0


def test_vlm_agent_feeds_rejections_back(tiny_model) -> None:
    backend = load_backend(ModelSpec("tiny", path=str(tiny_model), max_new_tokens=4))
    seen = []
    original = backend.generate
    backend.generate = lambda convs, **kw: seen.append(convs[0]) or original(convs, **kw)
    agent = VLMAgent("tiny", backend)
    out = agent.propose(Image.new("RGB", (320, 240)), "Book it.", [Rejection(10, 20, -1)])
    assert isinstance(out, Click | ParseFailure)
    roles = [m["role"] for m in seen[0]]
    assert roles == ["system", "user", "assistant", "user"]
    assert "judged\ndeceptive" in seen[0][3]["content"] or "deceptive" in seen[0][3]["content"]


def test_cli_agent_on_the_release_fixture(release, scripted_ocr, capsys) -> None:
    assert main(["agent", "--data", str(release)]) == 0
    out = capsys.readouterr().out
    assert "agent offline_agent on 5 tasks" in out and "SR" in out and "NFR" in out
