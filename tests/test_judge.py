"""Evaluator inputs, judgement metrics, model SPEC resolution and `darkguard judge`."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from PIL import Image

from darkguard.cli import main
from darkguard.config import load_config
from darkguard.defenses.dude.inputs import (
    ObservationAids,
    Screenshot,
    evaluator_conversation,
    mark_click,
    zoom_crop,
)
from darkguard.io import InputError
from darkguard.metrics.judging import confusion, judgement_metrics
from darkguard.models.parsing import Judgement, OutOfDomain, ParseFailure
from darkguard.models.registry import resolve_spec


def test_mark_click_draws_on_a_copy() -> None:
    image = Image.new("RGB", (400, 300), (255, 255, 255))
    marked = mark_click(image, 200, 150)
    assert image.getpixel((200, 150)) == (255, 255, 255)
    assert marked.getpixel((200, 150)) == (255, 0, 0)


def test_zoom_crop_stays_inside_the_image() -> None:
    image = Image.new("RGB", (1000, 800))
    crop, corner = zoom_crop(image, 990, 10, 320)
    assert crop.size == (320, 320) and corner == (680, 0)
    assert zoom_crop(image, 500, 400, 320)[0].getbbox() is None  # black crop, right size
    assert zoom_crop(Image.new("RGB", (200, 100)), 50, 50, 320)[0].size == (200, 100)


def test_screenshot_marks_the_click_on_the_resized_copy() -> None:
    image = Image.new("RGB", (1280, 800), (255, 255, 255))
    shot = Screenshot(image, 65536)
    marked = shot.marked(640, 400)
    assert marked.size == shot.fitted.size and marked.width * marked.height <= 65536
    cx, cy = round(640 * shot.scale), round(400 * shot.scale)
    assert marked.getpixel((cx, cy)) == (255, 0, 0)  # the dot, scaled into the copy
    assert marked.getpixel((2, 2)) == (255, 255, 255)
    assert shot.fitted.getpixel((cx, cy)) == (255, 255, 255)  # the cached copy stays clean
    zoomed = shot.zoomed(640, 400, 320)
    assert zoomed.size == (256, 256)  # smart_resize of 320 x 320 under the pixel cap
    assert zoomed.getpixel((128, 128)) == (255, 0, 0)
    corner = shot.zoomed(5, 5, 320)  # shifted inside: the click sits near the top-left corner
    assert corner.getpixel((4, 4))[1] < 128


def test_screenshot_from_file_caches_the_resized_copy(tmp_path, monkeypatch) -> None:
    import os

    from darkguard import cache as screen_cache

    monkeypatch.setattr(screen_cache, "_MEMORY", screen_cache.MemoryCache(budget=2 * 320 * 192 * 3))
    monkeypatch.setenv("DARKGUARD_CACHE", "off")
    path = tmp_path / "page.png"
    Image.new("RGB", (1280, 800), (0, 0, 255)).save(path)
    first = Screenshot.from_file(path, 65536)
    eager = Screenshot(Image.open(path), 65536)
    assert first.size == (1280, 800) and first._image is None  # full image not decoded
    assert first.fitted.size == (320, 192)  # the cache holds two such copies
    assert first.fitted.tobytes() == eager.fitted.tobytes() and first.scale == eager.scale
    assert first.marked(640, 400).tobytes() == eager.marked(640, 400).tobytes()
    again = Screenshot.from_file(path, 65536)
    assert again.fitted is first.fitted  # from the cache
    assert again.zoomed(640, 400, 320).tobytes() == eager.zoomed(640, 400, 320).tobytes()
    assert again.image.size == (1280, 800)  # decoded on demand for the aids
    Image.new("RGB", (1280, 800), (0, 255, 0)).save(path)  # a changed file is read again
    os.utime(path, ns=(1, 1))
    changed = Screenshot.from_file(path, 65536)
    assert changed.fitted is not first.fitted and changed.fitted.getpixel((0, 0)) == (0, 255, 0)
    other = tmp_path / "other.png"
    Image.new("RGB", (1280, 800)).save(other)
    Screenshot.from_file(other, 65536)  # over the budget of two copies: the oldest goes
    assert len(screen_cache._MEMORY.items) == 2
    assert all(key[0] == "fitted" for key in screen_cache._MEMORY.items)
    assert Screenshot.from_file(path, 65536).fitted is changed.fitted


def test_resized_screenshots_persist_on_disk_by_content(tmp_path, monkeypatch) -> None:
    from darkguard import cache as screen_cache
    from darkguard.defenses.dude import inputs

    monkeypatch.setenv("DARKGUARD_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(0)
    page = Image.fromarray(rng.integers(0, 256, (800, 1280, 3), dtype=np.uint8))
    path = tmp_path / "a" / "page.png"
    path.parent.mkdir()
    page.save(path)
    eager = Screenshot(page, 65536)
    real_fit = screen_cache.fit_pixels
    monkeypatch.setattr(screen_cache, "_MEMORY", screen_cache.MemoryCache(budget=2**20))
    first = Screenshot.from_file(path, 65536)  # made and stored
    stored = list((tmp_path / "cache" / "screens").glob("*.png"))
    assert len(stored) == 1 and first.fitted.tobytes() == eager.fitted.tobytes()
    copy = tmp_path / "b" / "page.png"  # same bytes elsewhere (a relocated data folder)
    copy.parent.mkdir()
    copy.write_bytes(path.read_bytes())
    monkeypatch.setattr(
        screen_cache, "_MEMORY", screen_cache.MemoryCache(budget=2**20)
    )  # new process
    for module in (screen_cache, inputs):
        monkeypatch.setattr(module, "fit_pixels", lambda *a: pytest.fail("resized again"))
    again = Screenshot.from_file(copy, 65536)
    assert again.fitted.tobytes() == eager.fitted.tobytes()  # lossless: the same pixels
    assert again.size == (1280, 800) and again.scale == eager.scale
    for module in (screen_cache, inputs):
        monkeypatch.setattr(module, "fit_pixels", real_fit)
    assert Screenshot.from_file(copy, 16384).fitted.size != again.fitted.size  # another cap
    stored[0].write_bytes(b"damaged")  # a damaged entry is made again
    monkeypatch.setattr(screen_cache, "_MEMORY", screen_cache.MemoryCache(budget=2**20))
    assert Screenshot.from_file(copy, 65536).fitted.tobytes() == eager.fitted.tobytes()
    assert Image.open(stored[0]).size == eager.fitted.size


def test_a_zoom_crop_is_read_again_without_decoding_the_page(tmp_path, monkeypatch) -> None:
    """The zoom aid's crop comes from the cache (memory, then disk) once cut: a later process
    judging the same click decodes no page, and gets the same pixels."""
    import os

    from darkguard import cache as screen_cache

    monkeypatch.setenv("DARKGUARD_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(screen_cache, "_MEMORY", screen_cache.MemoryCache(budget=2**24))
    path = tmp_path / "page.png"
    image = Image.new("RGB", (1280, 800), (255, 255, 255))
    image.paste((0, 0, 255), (600, 380, 700, 420))
    image.save(path)
    eager = Screenshot(Image.open(path), 65536).zoomed(640, 400, 128)
    first = Screenshot.from_file(path, 65536).zoomed(640, 400, 128)
    assert first.tobytes() == eager.tobytes()
    assert len(list((tmp_path / "cache" / "crops").glob("*.png"))) == 1

    def no_decoding(_path):
        raise AssertionError("the page was decoded")

    monkeypatch.setattr(screen_cache, "_MEMORY", screen_cache.MemoryCache(budget=2**24))
    monkeypatch.setattr(screen_cache, "decoded", no_decoding)
    again = Screenshot.from_file(path, 65536).zoomed(640, 400, 128)  # a new process: the disk
    assert again.tobytes() == eager.tobytes()
    edge = Screenshot(Image.open(path), 65536).zoomed(5, 795, 128)
    monkeypatch.undo()
    monkeypatch.setenv("DARKGUARD_CACHE", str(tmp_path / "cache"))
    assert Screenshot.from_file(path, 65536).zoomed(5, 795, 128).tobytes() == edge.tobytes()
    Image.new("RGB", (1280, 800), (0, 255, 0)).save(path)  # a changed file is cut again
    os.utime(path, ns=(1, 1))
    changed = Screenshot.from_file(path, 65536).zoomed(640, 400, 128)
    assert changed.getpixel((0, 0)) == (0, 255, 0)


def test_decoded_and_resized_screenshots_share_one_memory_cache(tmp_path, monkeypatch) -> None:
    import os

    from darkguard import cache as screen_cache

    monkeypatch.setattr(screen_cache, "_MEMORY", screen_cache.MemoryCache(budget=2**22))
    monkeypatch.setenv("DARKGUARD_CACHE", "off")
    path = tmp_path / "page.png"
    Image.new("RGBA", (640, 400), (0, 0, 255, 255)).save(path)
    image = screen_cache.decoded(path)
    assert image.mode == "RGB" and image.size == (640, 400)
    assert screen_cache.decoded(path) is image  # decoded once
    small, size = screen_cache.fitted(path, 16384)
    assert size == (640, 400) and small.width * small.height <= 16384
    assert screen_cache.fitted(path, 16384)[0] is small
    assert screen_cache.fitted(path, None)[0] is not image  # its own entry, full size
    assert sorted(k[0] for k in screen_cache._MEMORY.items) == ["decoded", "fitted", "fitted"]
    Image.new("RGB", (640, 400), (0, 255, 0)).save(path)  # a changed file is decoded again
    os.utime(path, ns=(1, 1))
    assert screen_cache.decoded(path).getpixel((0, 0)) == (0, 255, 0)


def test_conversation_carries_the_paper_inputs_and_aids() -> None:
    image = Image.new("RGB", (640, 480))
    conv = evaluator_conversation(image, "Book the room.", 100.4, 200.6, "Rule A.")
    assert "[IMPORTANT GUIDANCE]\nRule A." in conv[0]["content"]
    parts = conv[1]["content"]
    assert [p["type"] for p in parts] == ["image", "text"]
    assert "Task: Book the room." in parts[1]["text"] and "(100, 201)" in parts[1]["text"]
    zoomed = evaluator_conversation(image, "t", 1, 1, aids=ObservationAids(zoom=True))
    assert [p["type"] for p in zoomed[1]["content"]] == ["image", "image", "text"]
    assert "zoomed view" in zoomed[1]["content"][2]["text"]


def test_judgement_metrics_hand_computed() -> None:
    labels = [1, 1, 0, 0, -1, -1, -1, 1]
    outputs = [
        Judgement(1, 0.9),
        Judgement(-1, 0.9),  # benign: right, C1
        Judgement(-1, 0.6),
        Judgement(1, 0.6),  # null: C2, C3
        Judgement(1, 0.8),
        Judgement(-1, 0.8),
        OutOfDomain(2, 0.5),  # C4, right, OOD
        ParseFailure("no tag"),
    ]  # benign: counts as wrong, not as C1
    m = judgement_metrics(labels, outputs)
    assert m["pass_rate"] == round(2 / 8, 4)
    assert m["c1_rate"] == round(1 / 3, 4)
    assert m["c2_rate"] == 0.5 and m["c3_rate"] == 0.5
    assert m["c4_fatal_error_rate"] == round(1 / 3, 4)
    matrix = confusion(labels, outputs)
    benign = {"benign (1)": 1, "null (0)": 0, "deceptive (-1)": 1, "no label": 1}
    assert matrix["benign (1)"] == benign
    assert matrix["deceptive (-1)"]["no label"] == 1 and matrix["null (0)"]["benign (1)"] == 1
    assert sum(sum(row.values()) for row in matrix.values()) == len(labels)
    assert m["parse_failure_rate"] == 0.125 and m["out_of_domain_rate"] == 0.125


def test_resolve_spec(tmp_path, tiny_model) -> None:
    table = {
        "default_evaluator": "big",
        "default_agent": "big",
        "big": {"backend": "hf", "path": "org/big", "device": "cuda"},
    }
    cfg = load_config().override({"base.profile": "paper", "models.paper": table})
    assert resolve_spec(None, "evaluator", cfg).path == "org/big"
    assert resolve_spec(str(tiny_model), "evaluator", cfg).path == str(tiny_model)
    with pytest.raises(InputError, match="not a model of profile 'paper'"):
        resolve_spec("nope", "evaluator", cfg)
    with pytest.raises(InputError, match="no default_summarizer"):
        resolve_spec(None, "summarizer", cfg)
    with pytest.raises(InputError, match=r"models\.paper\.default_agent: missing key"):
        cfg.override({"models.paper": {"default_evaluator": "big"}})


def test_cli_judge_on_the_release_fixture(release, tiny_model, tmp_path, capsys) -> None:
    out = tmp_path / "m.json"
    assert (
        main(["judge", "--data", str(release), "--evaluator", str(tiny_model), "--out", str(out)])
        == 0
    )
    text = capsys.readouterr().out
    assert "on 13 clicks" in text and "C4 (deceptive judged benign)" in text
    assert f"evaluator {tiny_model.name}, adapter none" in text  # an explicit SPEC: no adapter
    metrics = json.loads(out.read_text())
    assert metrics["n"] == 13  # 5 benign + 3 deceptive + 5 null
    total = metrics["pass_rate"] + metrics["parse_failure_rate"] + metrics["out_of_domain_rate"]
    assert total <= 1.0
    per_label = metrics["label_accuracy"]
    assert [row["n"] for row in per_label.values()] == [5, 5, 3]  # benign, null, deceptive
    right = sum(row["right"] for row in per_label.values())
    assert metrics["pass_rate"] == round(right / 13, 4) and metrics["adapter"] is None
    line = next(t for t in text.splitlines() if "accuracy per label" in t)
    assert all(name in line for name in ("benign (1)", "null (0)", "deceptive (-1)"))


def test_label_accuracy_hand_computed() -> None:
    from darkguard.cli import label_accuracy

    labels = [1, 1, 0, -1, -1, -1]
    outputs = [
        Judgement(1, 0.9),
        ParseFailure("x"),
        Judgement(0, 0.5),
        Judgement(1, 0.8),
        Judgement(-1, 0.8),
        OutOfDomain(2, 0.5),
    ]
    table = label_accuracy(labels, outputs)
    assert table["benign (1)"] == {"accuracy": 0.5, "right": 1, "n": 2}
    assert table["null (0)"] == {"accuracy": 1.0, "right": 1, "n": 1}
    assert table["deceptive (-1)"] == {"accuracy": 0.3333, "right": 1, "n": 3}
    assert math.isnan(label_accuracy([1], [Judgement(1, 0.9)])["null (0)"]["accuracy"])


def save_adapter(model_dir, adapter_dir) -> None:
    """A random LoRA adapter on the tiny model, saved as Stage 1 saves its own."""
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForImageTextToText

    model = AutoModelForImageTextToText.from_pretrained(model_dir, local_files_only=True)
    config = LoraConfig(r=2, lora_alpha=4, target_modules=["q_proj", "v_proj"])
    get_peft_model(model, config).save_pretrained(adapter_dir)


def test_cli_judge_defaults_to_the_guards_evaluator(
    release, tiny_model, workdirs, tmp_path, capsys
) -> None:
    data, _ = workdirs
    (data / "models").mkdir(parents=True)
    (data / "models" / "evaluator-large").symlink_to(tiny_model)  # the tiny default_evaluator
    args = ["judge", "--data", str(release), "--limit", "4"]
    assert main(args) == 0  # Stage 1 not trained: the evaluator as built
    text = capsys.readouterr().out
    assert "evaluator evaluator_large (the profile's default), adapter none" in text
    assert "on 4 clicks" in text and "accuracy (pass rate)" in text

    save_adapter(tiny_model, data / "stage1" / "adapter")
    out = tmp_path / "m.json"
    assert main([*args, "--out", str(out)]) == 0  # trained: with the Stage-1 adapter
    text = capsys.readouterr().out
    expected = (
        "evaluator evaluator_large+stage1 (the profile's default), adapter data/stage1/adapter"
    )
    assert expected in text
    metrics = json.loads(out.read_text())
    assert metrics["evaluator"] == "evaluator_large+stage1"
    assert metrics["adapter"] == "data/stage1/adapter"

    assert main([*args, "--adapter", "none"]) == 0  # the evaluator alone on request
    assert "evaluator evaluator_large (the profile's default), adapter none" in (
        capsys.readouterr().out
    )
    spec = ["--evaluator", str(tiny_model), "--adapter", str(data / "stage1" / "adapter")]
    assert main([*args, *spec]) == 0  # an explicit SPEC takes an adapter only when asked
    assert f"evaluator {tiny_model.name}+stage1, adapter data/stage1/adapter" in (
        capsys.readouterr().out
    )
    assert main([*args, "--adapter", str(tmp_path)]) == 2
    assert "not a LoRA adapter folder" in capsys.readouterr().err


def test_cli_judge_reports_a_missing_model(release, capsys) -> None:
    assert main(["judge", "--data", str(release), "--evaluator", "no-such-model"]) == 2
    assert "not a model of profile 'tiny'" in capsys.readouterr().err


def test_pixel_digest_is_taken_once_per_image(monkeypatch) -> None:
    """A page's identity is hashed once per image object, equals the hash of its pixels, and is
    forgotten with the image (a new image at a reused address is hashed afresh)."""
    import gc
    import hashlib

    from PIL import Image

    from darkguard import cache as screen_cache

    page = Image.new("RGB", (64, 48), "white")
    page.putpixel((3, 4), (10, 20, 30))
    calls = []
    real_tobytes = Image.Image.tobytes
    monkeypatch.setattr(Image.Image, "tobytes", lambda im, *a: calls.append(1) or real_tobytes(im))
    first = screen_cache.pixel_digest(page)
    assert first == hashlib.sha1(real_tobytes(page)).hexdigest()
    assert screen_cache.pixel_digest(page) == first and len(calls) == 1
    twin = page.copy()
    assert screen_cache.pixel_digest(twin) == first and len(calls) == 2  # same pixels, own entry
    other = Image.new("RGB", (64, 48), "white")
    assert screen_cache.pixel_digest(other) != first
    key = id(page)
    del page
    gc.collect()
    assert key not in screen_cache._PIXEL_DIGESTS


def test_pages_kept_holds_every_page_of_a_block_then_shrinks(tmp_path, monkeypatch) -> None:
    """Passes over more pages than the memory budget holds decode each page once inside
    `pages_kept`; a resized copy made on a miss shares that decode; afterwards the cache is back
    within its budget."""
    from darkguard import cache as screen_cache

    page_bytes = 320 * 200 * 3
    monkeypatch.setattr(screen_cache, "_MEMORY", screen_cache.MemoryCache(budget=2 * page_bytes))
    monkeypatch.setenv("DARKGUARD_CACHE", "off")
    files = []
    for i in range(4):
        files.append(tmp_path / f"page{i}.png")
        Image.new("RGB", (320, 200), (i, 0, 0)).save(files[-1])
    opened = []
    real_open = Image.open
    monkeypatch.setattr(Image, "open", lambda *a, **k: opened.append(1) or real_open(*a, **k))
    with screen_cache.pages_kept(8 * page_bytes):
        for _ in range(2):  # two passes over four pages
            for path in files:
                screen_cache.fitted(path, 16384)
                screen_cache.decoded(path)
        assert len(opened) == 4
    assert screen_cache._MEMORY.used <= screen_cache._MEMORY.budget == 2 * page_bytes
    for path in files:  # outside the block a scan longer than the budget decodes again
        screen_cache.decoded(path)
    assert len(opened) > 4
