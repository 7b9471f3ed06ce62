"""Scale augmentation of the evaluator's warm-up: a share of the train clicks is shown with the
zoomed view taken over a wider or narrower square around the click (resized to the same cap), so
that a small evaluator sees controls, type and spacing at sizes other than its training style
families' (a held-out family's buttons may be taller, its type larger)."""

from __future__ import annotations

import random

from PIL import Image

from darkguard.defenses.dude.inputs import Screenshot

FACTORS = (0.75, 1.25, 1.5)  # side of the zoomed square, relative to the aid's `zoom_size`


def drawn_factor(seed: int, click_id: str, rate: float) -> float | None:
    """The click's zoom factor, drawn from its id and the seed: None for a share 1 - `rate`, else
    one of `FACTORS` in equal shares."""
    rng = random.Random(f"{seed}:rescale:{click_id}")
    if rng.random() >= rate:
        return None
    return rng.choice(FACTORS)


class Rescaled(Screenshot):
    """A screenshot (or a recoloured one) whose zoomed view covers `factor` times the square;
    the page image, the marker and the OCR text are the original's."""

    def __init__(self, shot: Screenshot, factor: float) -> None:
        self.__dict__.update(shot.__dict__)
        self._inner = shot
        self.factor = factor

    def zoomed(self, x: float, y: float, size: int) -> Image.Image:
        return self._inner.zoomed(x, y, max(16, round(size * self.factor)))
