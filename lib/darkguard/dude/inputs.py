"""What the evaluator sees (paper 3.1): the screenshot with the click marked, the task and the
click coordinates; plus optional observation aids (a zoomed crop around the click, OCR text under
the click)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

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


def mark_click(image: Image.Image, x: float, y: float) -> Image.Image:
    """A copy of the screenshot with a red circle and a dot at the click."""
    img = image.convert("RGB")
    draw = ImageDraw.Draw(img)
    r = max(10, round(min(img.size) / 60))
    draw.ellipse([x - r, y - r, x + r, y + r], outline=(255, 0, 0), width=max(3, r // 4))
    draw.ellipse([x - 2, y - 2, x + 2, y + 2], fill=(255, 0, 0))
    return img


def fit_pixels(image: Image.Image, max_pixels: int | None, factor: int = 32) -> Image.Image:
    """Resize as Qwen's processor would (`smart_resize`: multiples of 32, at most `max_pixels`),
    so that an image resized here passes the processor unchanged."""
    if not max_pixels:
        return image
    from transformers.models.qwen2_vl.image_processing_qwen2_vl import smart_resize

    h, w = smart_resize(
        image.height,
        image.width,
        factor=factor,
        min_pixels=factor * factor * 4,
        max_pixels=max_pixels,
    )
    return image if (w, h) == image.size else image.resize((w, h), Image.Resampling.BICUBIC)


def zoom_crop(image: Image.Image, x: float, y: float, size: int) -> Image.Image:
    """A size x size crop centred on the click (shifted to stay inside the image)."""
    w, h = image.size
    left = int(min(max(0, x - size / 2), max(0, w - size)))
    top = int(min(max(0, y - size / 2), max(0, h - size)))
    return image.crop((left, top, min(w, left + size), min(h, top + size)))


@lru_cache(maxsize=1)
def _ocr_engine():
    from rapidocr import RapidOCR

    return RapidOCR()


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
    result = _ocr_engine()(np.array(image.convert("RGB").crop(box)))
    if result.txts is None:
        return ""
    lines = []
    for text, quad in zip(result.txts, result.boxes, strict=True):
        cx = box[0] + float(np.mean(quad[:, 0]))
        cy = box[1] + float(np.mean(quad[:, 1]))
        lines.append(((cx - x) ** 2 + (cy - y) ** 2, text))
    return " | ".join(t for _, t in sorted(lines))


def evaluator_conversation(
    image: Image.Image,
    task: str,
    x: float,
    y: float,
    experience: str | None = None,
    aids: ObservationAids = PAPER_INPUTS,
    max_pixels: int | None = None,
) -> Conversation:
    """The evaluator's input; the system prompt is rebuilt per call (paper 5.1).

    Coordinates in the text stay those of the original screenshot; `max_pixels` only shrinks the
    images, exactly as the model's processor would.
    """
    marked = mark_click(image, x, y)
    parts: list[dict] = [{"type": "image", "image": fit_pixels(marked, max_pixels)}]
    notes = []
    if aids.zoom:
        crop = zoom_crop(marked, x, y, aids.zoom_size)
        parts.append({"type": "image", "image": fit_pixels(crop, max_pixels)})
        notes.append("The second image is a zoomed view around the click.")
    if aids.ocr:
        notes.append(f"Text near the click: {ocr_near_click(image, x, y, aids.ocr_radius)}")
    w, h = image.size
    parts.append(
        {"type": "text", "text": prompts.evaluator_user(task, x, y, w, h, "\n".join(notes))}
    )
    return [
        {"role": "system", "content": prompts.evaluator_system(experience)},
        {"role": "user", "content": parts},
    ]
