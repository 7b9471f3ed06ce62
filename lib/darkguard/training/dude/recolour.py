"""Colour augmentation of the evaluator's warm-up: a share of the train clicks is shown on a
recoloured screenshot (hue rotated, lightness inverted, or grey), so that a small evaluator
learns what a deceptive control is rather than which colours one style family gives it. The
click marker is drawn after the change, so it keeps its red."""

from __future__ import annotations

import random
from collections.abc import Callable

from PIL import Image, ImageOps

from darkguard import cache
from darkguard.defenses.dude.inputs import (
    Screenshot,
    click_radius,
    fit_pixels,
    mark_click,
    zoom_box,
)

Change = Callable[[Image.Image], Image.Image]
KINDS = ("hue", "invert", "grey")


def rotate_hue(image: Image.Image, shift: int) -> Image.Image:
    """`image` with its hue rotated by `shift` / 256 of a turn."""
    h, s, v = image.convert("HSV").split()
    h = h.point(lambda value: (value + shift) % 256)
    return Image.merge("HSV", (h, s, v)).convert("RGB")


def invert_lightness(image: Image.Image) -> Image.Image:
    """`image` with light and dark swapped and hues kept (a light theme turned dark)."""
    return rotate_hue(ImageOps.invert(image.convert("RGB")), 128)


def grey(image: Image.Image) -> Image.Image:
    return ImageOps.grayscale(image).convert("RGB")


def change_of(kind: str, shift: int) -> Change:
    """The recolouring named `kind` (`KINDS`); `shift` is the hue rotation of `hue`."""
    if kind == "hue":
        return lambda image: rotate_hue(image, shift)
    if kind == "invert":
        return invert_lightness
    if kind == "grey":
        return grey
    raise ValueError(f"unknown recolouring {kind!r} (known: {KINDS})")


def drawn_change(seed: int, click_id: str, rate: float) -> Change | None:
    """The click's recolouring, drawn from its id and the seed: None for a share 1 - `rate`,
    else one of `KINDS` in equal shares (a hue rotation of 1/8 to 7/8 of a turn)."""
    rng = random.Random(f"{seed}:recolour:{click_id}")
    if rng.random() >= rate:
        return None
    return change_of(rng.choice(KINDS), rng.randint(32, 224))


class Recoloured(Screenshot):
    """A screenshot shown recoloured: the resized copy and the zoomed crop pass through `change`
    before the click is marked; the OCR text (read by the screenshot's identity) stays the
    original's."""

    def __init__(self, shot: Screenshot, change: Change) -> None:
        self.__dict__.update(shot.__dict__)
        self.fitted = change(shot.fitted)
        self._change = change

    def zoomed(self, x: float, y: float, size: int) -> Image.Image:
        box = zoom_box(self.size, x, y, size)
        crop = cache.cropped(self._path, box) if self._image is None else self._image.crop(box)
        radius = click_radius(self.size)
        marked = mark_click(self._change(crop), x - box[0], y - box[1], radius)
        return fit_pixels(marked, self.max_pixels)
