"""What the evaluator sees (paper 3.1): the screenshot with the click marked, the task and the
click coordinates; plus optional observation aids (a zoomed crop around the click, OCR text under
the click)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from darkguard import cache
from darkguard.agents.perception import ocr_engine
from darkguard.cache import fit_pixels
from darkguard.models import prompts
from darkguard.models.backends import Conversation


@dataclass(frozen=True)
class ObservationAids:
    """Optional inputs beyond the paper's (all off in the paper's setting)."""

    zoom: bool = False
    ocr: bool = False
    zoom_size: int = 320  # side of the square crop around the click, in screenshot pixels
    ocr_radius: int = 90  # half-width of the region read by OCR around the click


PAPER_INPUTS = ObservationAids()  # screenshot + task + coordinates only


def click_radius(size: tuple[int, int]) -> int:
    """Radius of the click marker on a screenshot of `size` (width, height)."""
    return max(10, round(min(size) / 60))


def mark_click(
    image: Image.Image, x: float, y: float, radius: int | None = None, scale: float = 1.0
) -> Image.Image:
    """A copy of the screenshot with a red circle and a dot at the click.

    To mark a resized copy, pass the original screenshot's marker `radius` and `scale` (copy pixels
    per screenshot pixel) with the click already scaled.
    """
    img = image.convert("RGB")
    draw = ImageDraw.Draw(img)
    r0 = click_radius(img.size) if radius is None else radius
    r, width, dot = r0 * scale, max(1, round(max(3, r0 // 4) * scale)), max(1.0, 2 * scale)
    draw.ellipse([x - r, y - r, x + r, y + r], outline=(255, 0, 0), width=width)
    draw.ellipse([x - dot, y - dot, x + dot, y + dot], fill=(255, 0, 0))
    return img


class Screenshot:
    """A decoded screenshot and its copy resized for the processor, shared by every click judged
    on it (decoding and resizing once per page, not once per click). `from_file` takes resized
    copies from the screenshot cache (`darkguard.cache`: this process's, then the disk's) and
    decodes the full image only when an aid needs it."""

    def __init__(self, image: Image.Image, max_pixels: int | None) -> None:
        self._image: Image.Image | None = image.convert("RGB")
        self._path: Path | None = None
        self.size: tuple[int, int] = self._image.size
        self.fitted = fit_pixels(self._image, max_pixels)
        self.max_pixels = max_pixels
        self.scale = self.fitted.width / self.size[0]

    @classmethod
    def from_file(cls, path: str | Path, max_pixels: int | None) -> Screenshot:
        """The screenshot in `path`; its resized copy comes from the process's cache when the
        same file (path, size, modification time) was read before with the same cap, else from
        the disk cache when a file with the same bytes was."""
        path = Path(path)
        shot = cls.__new__(cls)
        shot._image, shot._path = None, path
        shot.fitted, shot.size = cache.fitted(path, max_pixels)
        shot.max_pixels = max_pixels
        shot.scale = shot.fitted.width / shot.size[0]
        return shot

    @property
    def image(self) -> Image.Image:
        """The full-resolution screenshot (decoded on first use)."""
        if self._image is None:
            self._image = cache.decoded(self._path)
        return self._image

    def marked(self, x: float, y: float) -> Image.Image:
        """The resized screenshot with the click marked."""
        radius = click_radius(self.size)
        return mark_click(self.fitted, x * self.scale, y * self.scale, radius, self.scale)

    def zoomed(self, x: float, y: float, size: int) -> Image.Image:
        """The marked crop around the click, resized for the processor."""
        crop, (left, top) = zoom_crop(self.image, x, y, size)
        radius = click_radius(self.size)
        return fit_pixels(mark_click(crop, x - left, y - top, radius), self.max_pixels)


def zoom_crop(
    image: Image.Image, x: float, y: float, size: int
) -> tuple[Image.Image, tuple[int, int]]:
    """A size x size crop centred on the click (shifted to stay inside the image) and its
    top-left corner in the image."""
    w, h = image.size
    left = int(min(max(0, x - size / 2), max(0, w - size)))
    top = int(min(max(0, y - size / 2), max(0, h - size)))
    return image.crop((left, top, min(w, left + size), min(h, top + size))), (left, top)


def ocr_near_click(image: Image.Image, x: float, y: float, radius: int) -> str:
    """Text read by PP-OCR (rapidocr, models inside the wheel) in a band around the click,
    nearest line first."""
    w, h = image.size
    box = (
        max(0, int(x - 2 * radius)),
        max(0, int(y - radius / 2)),
        min(w, int(x + 2 * radius)),
        min(h, int(y + radius / 2)),
    )
    result = ocr_engine()(np.array(image.convert("RGB").crop(box)))
    if result.txts is None:
        return ""
    lines = []
    for text, quad in zip(result.txts, result.boxes, strict=True):
        cx = box[0] + float(np.mean(quad[:, 0]))
        cy = box[1] + float(np.mean(quad[:, 1]))
        lines.append(((cx - x) ** 2 + (cy - y) ** 2, text))
    return " | ".join(t for _, t in sorted(lines))


def evaluator_conversation(
    image: Image.Image | Screenshot,
    task: str,
    x: float,
    y: float,
    experience: str | None = None,
    aids: ObservationAids = PAPER_INPUTS,
    max_pixels: int | None = None,
) -> Conversation:
    """The evaluator's input; the system prompt is rebuilt per call (paper 5.1).

    Coordinates in the text stay those of the original screenshot; `max_pixels` only shrinks the
    images, exactly as the model's processor would (a `Screenshot` carries its own cap).
    """
    shot = image if isinstance(image, Screenshot) else Screenshot(image, max_pixels)
    parts: list[dict] = [{"type": "image", "image": shot.marked(x, y)}]
    notes = []
    if aids.zoom:
        parts.append({"type": "image", "image": shot.zoomed(x, y, aids.zoom_size)})
        notes.append("The second image is a zoomed view around the click.")
    if aids.ocr:
        notes.append(f"Text near the click: {ocr_near_click(shot.image, x, y, aids.ocr_radius)}")
    w, h = shot.size
    parts.append(
        {"type": "text", "text": prompts.evaluator_user(task, x, y, w, h, "\n".join(notes))}
    )
    return [
        {"role": "system", "content": prompts.evaluator_system(experience)},
        {"role": "user", "content": parts},
    ]
