"""trl's datasets with fast-encoded images hold what `Dataset.from_list` holds
(`models.trl_data`)."""

from __future__ import annotations

import numpy as np
from datasets import Dataset
from PIL import Image

from darkguard.models.trl_data import trl_dataset


def _rows() -> list[dict]:
    rng = np.random.default_rng(0)
    page = Image.fromarray(rng.integers(0, 255, (96, 160, 3), dtype=np.uint8))
    crop = Image.fromarray(rng.integers(0, 255, (128, 128, 3), dtype=np.uint8))
    gray = Image.new("L", (32, 32), 7)
    prompt = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "Go."}]}]
    first = {"prompt": prompt, "images": [page, crop], "label": 1, "area": 0.25}
    return [first, {**first, "label": -1}, first, {**first, "images": [gray, page]}]


def test_the_dataset_holds_the_same_rows_columns_and_pixels() -> None:
    rows = _rows()
    want, got = Dataset.from_list(rows), trl_dataset(rows)
    assert got.features == want.features and list(got.features) == list(want.features)
    assert len(got) == len(want) == 4
    for a, b in zip(want, got, strict=True):
        assert {k: v for k, v in a.items() if k != "images"} == {
            k: v for k, v in b.items() if k != "images"
        }
        for x, y in zip(a["images"], b["images"], strict=True):
            assert (x.mode, x.size) == (y.mode, y.size)
            assert np.array_equal(np.asarray(x), np.asarray(y))


def test_rows_without_images_go_as_they_are() -> None:
    rows = [{"prompt": "Hello", "completion": " there"}]
    assert trl_dataset(rows).to_list() == rows
