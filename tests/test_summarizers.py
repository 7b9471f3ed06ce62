"""Stage-2 summarizers: the offline default and the model-backed one (scripted backend)."""

from __future__ import annotations

import json

from PIL import Image

from darkguard.ruc import schema
from darkguard.ruc.clicks import generate_clicks
from darkguard.training.dude.summarizers import (
    ModelSummarizer,
    OfflineSummarizer,
    click_band,
    under_click,
)


def cases(release, predicted: int) -> list[dict]:
    records = {str(r["id"]): r for r in json.loads((release / "full.json").read_text())}
    clicks, _ = generate_clicks(list(records.values()), 1, 42)
    out = []
    for c in clicks:
        r = records[c["sample_id"]]
        out.append(
            {
                **c,
                "image_path": r["image_path"],
                "task": schema.task_text(r),
                "predicted": predicted if predicted != c["label"] else None,
            }
        )
    return out


def test_click_band_and_under_click() -> None:
    assert click_band(10, 10, 900, 600) == "top left"
    assert click_band(450, 599, 900, 600) == "bottom centre"
    assert click_band(900, 300, 900, 600) == "middle right"
    image = Image.new("RGB", (100, 100), (255, 255, 255))
    image.paste((200, 30, 30), (40, 40, 60, 60))
    assert under_click(image, 50, 50) == "a coloured control"
    assert under_click(image, 10, 10) == "plain page"


def test_offline_summarizer_is_deterministic_and_weighs_persistence(release) -> None:
    batch = [c for c in cases(release, 0) if c["label"] != 0]
    summarizer = OfflineSummarizer(release)
    kappa = [1] * len(batch)
    first = summarizer.summarize(batch, kappa, "")
    assert first == summarizer.summarize(batch, kappa, "")
    lines = first.splitlines()
    assert all(line.startswith("- Clicks on ") for line in lines)
    assert any(
        "judged ineffective (0) but were legitimate (1): judge such clicks 1" in x for x in lines
    )
    # the most persistent kind of mistake comes first
    deceptive = [i for i, c in enumerate(batch) if c["label"] == -1]
    heavy = [50 if i in deceptive else 1 for i in range(len(batch))]
    assert "were deceptive (-1)" in summarizer.summarize(batch, heavy, "").splitlines()[0]


def test_offline_summarizer_keeps_older_rules_about_other_mistakes(release) -> None:
    batch = [c for c in cases(release, 1) if c["label"] == 0][:2]
    old = "- Old rule that clicks were deceptive (-1): judge such clicks -1.\n- Unrelated note."
    new = OfflineSummarizer(release).summarize(batch, [1, 1], old)
    lines = new.splitlines()
    assert "were ineffective (0): judge such clicks 0" in lines[0]
    assert lines[1:] == old.splitlines()
    replaced = OfflineSummarizer(release).summarize(batch, [1, 1], lines[0])
    assert replaced.count("judge such clicks 0") == 1


class EchoBackend:
    max_pixels = 128 * 128

    def __init__(self) -> None:
        self.seen = []

    def generate(self, conversations, max_new_tokens=None):
        self.seen += conversations
        return ["  - New rule.  "]


def test_model_summarizer_sends_the_case_format_with_screenshots(release) -> None:
    batch = cases(release, 1)[:2]
    backend = EchoBackend()
    out = ModelSummarizer(backend, release, max_words=123).summarize(batch, [3, 1], "Old rule.")
    assert out == "- New rule."
    system, user = backend.seen[0]
    assert "under 123 words" in system["content"]
    texts = "".join(p["text"] for p in user["content"] if p["type"] == "text")
    assert "Current experience:\nOld rule." in texts
    assert f"Case ID: {batch[0]['click_id']}" in texts and "Persistence Count: 3" in texts
    assert "<image>" not in texts
    assert sum(p["type"] == "image" for p in user["content"]) == 2
