"""The text-under-the-click aid, the warm-up's informative confidence and text nulls, and the
confidence gate (label-token probabilities, its threshold)."""

from __future__ import annotations

import json

import pytest
from PIL import Image, ImageDraw

from darkguard.agents.perception import TextLine
from darkguard.defenses.dude import click_text
from darkguard.defenses.dude.click_text import ClickTextCache, crop_box, text_under
from darkguard.defenses.dude.evaluator import Evaluator
from darkguard.defenses.dude.gate import DudeGate, tune_threshold
from darkguard.defenses.dude.inputs import ObservationAids, Screenshot, evaluator_conversation
from darkguard.defenses.dude.task_match import match_note, task_match
from darkguard.envs import Observation
from darkguard.models.backends.hf import HFBackend, branch_reads, candidate_branches
from darkguard.models.parsing import Click
from darkguard.models.spec import ModelSpec
from darkguard.ruc import schema
from darkguard.training.dude.warmup import hard_nulls, target_confidence

LINES = [TextLine("Sports", (10, 10, 60, 24)), TextLine("Download now", (100, 10, 200, 30))]


def test_text_under_picks_the_line_under_the_click() -> None:
    assert text_under(LINES, 150, 20) == "Download now"
    assert text_under(LINES, 62, 12) == "Sports"  # within the padding
    assert text_under(LINES, 80, 60) == ""


def test_crop_box_is_centred_and_clipped() -> None:
    assert crop_box((1000, 800), 500, 400) == (340, 360, 660, 440)
    assert crop_box((1000, 800), 5, 5) == (0, 0, 320, 80)


def test_cache_reads_once_and_persists(tmp_path, monkeypatch) -> None:
    calls = []

    def fake_reader(crops):
        calls.append(len(crops))
        return [[TextLine("Buy", (o[0], o[1], o[0] + 5, o[1] + 5))] for _, o in crops]

    monkeypatch.setattr(click_text, "read_crops_many", fake_reader)
    image = Image.new("RGB", (400, 300), "white")
    cache = ClickTextCache(tmp_path)
    first = cache.read([(("d1", 100, 100), lambda: image), (("d1", 300, 200), lambda: image)])
    again = cache.read([(("d1", 100, 100), lambda: image)])
    assert calls == [2] and again[0] == first[0]
    fresh = ClickTextCache(tmp_path)  # a new process: from disk
    assert fresh.read([(("d1", 300, 200), lambda: image)]) == [first[1]] and calls == [2]
    (tmp_path / "d1.json").write_text("{broken")
    assert ClickTextCache(tmp_path).get(("d1", 100, 100)) is None  # damaged: read again


def test_ocr_reads_a_drawn_word(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("DARKGUARD_CACHE", str(tmp_path))
    image = Image.new("RGB", (640, 400), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((200, 180, 440, 220), fill=(20, 90, 200))
    draw.text((250, 188), "CONTINUE", fill="white", font_size=22)
    shot = Screenshot(image, 128 * 128)
    assert "CONT" in shot.text_under(320, 200).upper()
    assert shot.text_under(60, 60) == ""
    conv = evaluator_conversation(shot, "t", 320, 200, aids=ObservationAids(zoom=True, ocr=True))
    text = conv[1]["content"][-1]["text"]
    assert "Text under the click:" in text and len(conv[1]["content"]) == 3


def test_fold_case_puts_the_text_under_the_click_in_lower_case(monkeypatch) -> None:
    monkeypatch.setattr(Screenshot, "text_under", lambda self, x, y: "CART IT Now")
    shot = Screenshot(Image.new("RGB", (64, 64), "white"), 64 * 64)

    def note(aids: ObservationAids) -> str:
        return evaluator_conversation(shot, "Buy it.", 9, 9, aids=aids)[1]["content"][-1]["text"]

    assert '"cart it now"' in note(ObservationAids(ocr=True, fold_case=True))
    assert '"CART IT Now"' in note(ObservationAids(ocr=True))
    assert "cart it" not in note(ObservationAids(fold_case=True))  # no OCR: no text


def test_task_match_reads_meaning_not_shared_words(monkeypatch) -> None:
    task = "Put the headphones in my shopping basket."
    same, other = task_match(task, "Add to bag"), task_match(task, "Read our privacy policy")
    assert same is not None and other is not None and same > other  # no word in common
    assert task_match(task, "") is None and match_note(None).endswith("unknown")
    assert match_note(0.3) == "Reads like the task: 0.3" and round(same, 1) == same
    monkeypatch.setattr(Screenshot, "text_under", lambda self, x, y: "Add to bag")
    shot = Screenshot(Image.new("RGB", (64, 64), "white"), 64 * 64)
    aids = ObservationAids(ocr=True, task_match=True)
    text = evaluator_conversation(shot, task, 9, 9, aids=aids)[1]["content"][-1]["text"]
    assert match_note(same) in text
    plain = evaluator_conversation(shot, task, 9, 9, aids=ObservationAids(ocr=True))
    assert "Reads like the task" not in plain[1]["content"][-1]["text"]


def _record(correct, dark=None, size=(1000, 800)) -> dict:
    r = {"image_width": size[0], "image_height": size[1], "correct_box": {"bbox": correct}}
    if dark:
        r["dark_box"] = {"bbox": dark}
    return r


def test_target_confidence_grows_with_the_distance_to_a_label_edge() -> None:
    record = _record([100, 100, 300, 200], [400, 100, 600, 200])
    edge = target_confidence({"x": 100, "y": 150}, record, 0.55, 0.95)
    inside = target_confidence({"x": 200, "y": 150}, record, 0.55, 0.95)
    far_null = target_confidence({"x": 900, "y": 700}, record, 0.55, 0.95)
    assert edge == 0.55 and inside == 0.95 and far_null == 0.95
    near_null = target_confidence({"x": 310, "y": 150}, record, 0.55, 0.95)
    assert 0.55 < near_null < 0.95


def test_hard_nulls_are_text_lines_outside_both_boxes(release, monkeypatch) -> None:
    records = {str(r["id"]): r for r in json.loads((release / "full.json").read_text())}
    clicks = [
        {"sample_id": rid, "click_id": f"{rid}/benign", "x": x, "y": y, "label": 1}
        for rid, r in records.items()
        for x, y in [schema.centroid(schema.correct_bbox(r))]
    ]

    def lines(views):
        return [
            [TextLine("a", (x - 5, y - 5, x + 5, y + 5)), TextLine("b", (1, 1, 9, 9))]
            for _, x, y in views
        ]

    monkeypatch.setattr("darkguard.training.dude.warmup.prefetch_text", lines)
    nulls = hard_nulls(clicks, records, release, 2, seed=42)
    assert nulls and all(n["label"] == 0 for n in nulls)
    for n in nulls:
        r = records[n["sample_id"]]
        label = schema.click_label(n["x"], n["y"], schema.correct_bbox(r), schema.dark_bbox(r))
        assert label == 0 and (n["x"], n["y"]) == (5.0, 5.0)
    assert hard_nulls(clicks, records, release, 0, seed=42) == []


def test_task_picked_hard_nulls_are_the_lines_reading_like_the_task(release, monkeypatch) -> None:
    records = {str(r["id"]): r for r in json.loads((release / "full.json").read_text())}
    rid, record = next(iter(records.items()))
    x, y = schema.centroid(schema.correct_bbox(record))
    clicks = [{"sample_id": rid, "click_id": f"{rid}/benign", "x": x, "y": y, "label": 1}]
    task = schema.task_text(record)
    free = [
        TextLine("zebra lunch menu", (1, 1, 9, 9)),
        TextLine(task, (11, 1, 19, 9)),  # the task's own words, outside both boxes
        TextLine("weather tomorrow", (21, 1, 29, 9)),
    ]
    monkeypatch.setattr("darkguard.training.dude.warmup.prefetch_text", lambda v: [free])
    picked = hard_nulls(clicks, records, release, 1, seed=42, pick="task")
    assert [(n["x"], n["y"], n["label"]) for n in picked] == [(15.0, 5.0, 0)]
    assert len(hard_nulls(clicks, records, release, 2, seed=42, pick="task")) == 2
    with pytest.raises(ValueError, match="pick 'nearest'"):
        hard_nulls(clicks, records, release, 1, seed=42, pick="nearest")


def test_tune_threshold_keeps_fatal_errors_under_the_cap() -> None:
    benign = [0.9, 0.8, 0.7, 0.6]
    deceptive = [0.85, 0.5, 0.2, 0.1]
    nulls = [0.3, 0.2, 0.1, 0.65]
    t = tune_threshold(benign, deceptive + nulls, 0.0, deceptive)
    assert t > 0.85  # no deceptive click may pass
    loose = tune_threshold(benign, deceptive + nulls, 0.25, deceptive)
    assert loose == 0.6  # every benign click through, one deceptive click (1 in 4) too
    assert tune_threshold([], [0.5], 0.0, [0.5]) > 0.5


def test_label_probabilities_and_the_confidence_gate(tiny_model) -> None:
    backend = HFBackend(ModelSpec("tiny", path=str(tiny_model), batch_size=2, max_new_tokens=8))
    branches = candidate_branches(
        backend.tokenizer, [f"<judge>{label}</judge>" for label in (1, 0, -1)]
    )
    assert branches and all(len(nexts) > 1 for nexts in branches.values())
    with pytest.raises(ValueError):
        candidate_branches(backend.tokenizer, ["<judge>1", "<judge>1"])
    evaluator = Evaluator(backend)
    image = Image.new("RGB", (320, 240), "white")
    proposals = [(Observation(image, "Open the Deals section.", False), Click(50, 60), None)] * 3
    shot = Screenshot(image, backend.max_pixels)
    conv = evaluator_conversation(shot, "Open the Deals section.", 50, 60)
    probs, tokens = evaluator.label_probabilities([conv, conv, conv])
    assert len(probs) == 3 and all(abs(sum(p.values()) - 1) < 1e-5 for p in probs)
    assert probs[0] == pytest.approx(probs[2]) and all(t > 0 for t in tokens)
    allow_all = DudeGate(evaluator, threshold=0.0).review_many(proposals)
    reject_all = DudeGate(evaluator, threshold=1.01).review_many(proposals)
    assert all(v.allow for v in allow_all) and not any(v.allow for v in reject_all)
    assert all(v.label in (1, 0, -1) for v in reject_all)


def test_branch_reads_cover_every_branch_point_on_its_longest_path() -> None:
    branches = {(): [1, 2], (1,): [3, 4], (1, 3): [5, 6], (2,): [7, 8]}
    reads = branch_reads(branches)
    assert reads == {(1, 3): [(), (1,), (1, 3)], (2,): [(2,)]}
    assert sorted(p for ps in reads.values() for p in ps) == sorted(branches)


def test_one_pass_label_probabilities_equal_one_pass_per_branch_point(tiny_model) -> None:
    """The distributions read on the way to a longer prefix are those of a forward pass over
    the prompt and each branch prefix alone (teacher forcing, causal attention)."""
    import torch

    backend = HFBackend(ModelSpec("tiny", path=str(tiny_model), batch_size=3, max_new_tokens=8))
    candidates = [f"<judge>{label}</judge>" for label in (1, 0, -1)]
    image = Image.new("RGB", (320, 240), "white")
    shot = Screenshot(image, backend.max_pixels)
    convs = [
        evaluator_conversation(shot, task, x, 60)
        for task, x in (("Open the Deals section.", 50), ("Read the news.", 200), ("Go.", 9))
    ]
    probs, _ = backend._continuation_probs(convs, candidates)
    branches = candidate_branches(backend.tokenizer, candidates)
    assert len(branches) == 2  # "<judge" then ">" | ">-", then "1" | "0": two reads, one pass
    inputs = backend._inputs(convs)
    at = {}
    with torch.inference_mode():
        for prefix, nexts in branches.items():
            last = backend._logits_after(inputs, prefix)[:, -1, :]  # prompt + prefix, alone
            at[prefix] = torch.softmax(last[:, nexts], dim=-1)
    for row, got in enumerate(probs):
        for c, candidate in enumerate(candidates):
            ids = backend.tokenizer(candidate, add_special_tokens=False)["input_ids"]
            want = 1.0
            for k in range(len(ids)):
                if tuple(ids[:k]) in branches:
                    prefix = tuple(ids[:k])
                    want *= float(at[prefix][row, branches[prefix].index(ids[k])])
            assert got[c] == pytest.approx(want, abs=1e-5)
