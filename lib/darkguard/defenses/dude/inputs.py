"""What the evaluator sees (paper 3.1): the screenshot with the click marked, the task and the
click coordinates; plus optional observation aids (a native-resolution crop around the click, the
OCR text under the click: `click_text`, in lower case with `fold_case`; how much it reads like
the task: `task_match`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from PIL import Image, ImageDraw

from darkguard import cache
from darkguard.cache import fit_pixels
from darkguard.defenses.dude.click_text import click_lines, text_under
from darkguard.defenses.dude.task_match import match_note, prefetch, task_match
from darkguard.models import prompts
from darkguard.models.backends import Conversation


@dataclass(frozen=True)
class ObservationAids:
    """Optional inputs beyond the paper's (all off in the paper's setting)."""

    zoom: bool = False  # a second image: the square crop around the click
    ocr: bool = False  # the text under the click, read from a crop around it (`click_text`)
    zoom_size: int = 128  # side of the crop, screenshot pixels (128: native under a 128^2 cap)
    fold_case: bool = False  # the text under the click in lower case ("CART IT" reads as "cart it")
    task_match: bool = False  # how much that text reads like the task (`task_match`; with ocr)


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

    @cached_property
    def digest(self) -> str:
        """The screenshot's identity in caches: its file's bytes, else its pixels (computed once:
        a gate asks for it at every click on the page)."""
        if self._path is not None:
            return cache.content_digest(*cache.file_key(self._path))[:40]
        assert self._image is not None
        pixels = hashlib.sha1(self._image.tobytes())
        pixels.update(f"{self.size}".encode())
        return pixels.hexdigest()

    def text_under(self, x: float, y: float) -> str:
        """The OCR text under the click ("" when none)."""
        return text_under(prefetch_text([(self, x, y)])[0], x, y)

    @property
    def image(self) -> Image.Image:
        """The full-resolution screenshot (a file's: decoded when used, kept by the bounded
        memory cache, not by this object)."""
        if self._image is None:
            return cache.decoded(self._path)
        return self._image

    def marked(self, x: float, y: float) -> Image.Image:
        """The resized screenshot with the click marked."""
        radius = click_radius(self.size)
        return mark_click(self.fitted, x * self.scale, y * self.scale, radius, self.scale)

    def zoomed(self, x: float, y: float, size: int) -> Image.Image:
        """The marked crop around the click, resized for the processor (a file's crop from the
        screenshot cache: `cache.cropped`)."""
        box = zoom_box(self.size, x, y, size)
        crop = cache.cropped(self._path, box) if self._image is None else self._image.crop(box)
        radius = click_radius(self.size)
        return fit_pixels(mark_click(crop, x - box[0], y - box[1], radius), self.max_pixels)


def zoom_box(
    image_size: tuple[int, int], x: float, y: float, size: int
) -> tuple[int, int, int, int]:
    """The size x size box (left, top, right, bottom) centred on the click, shifted to stay
    inside an image of `image_size`."""
    w, h = image_size
    left = int(min(max(0, x - size / 2), max(0, w - size)))
    top = int(min(max(0, y - size / 2), max(0, h - size)))
    return left, top, min(w, left + size), min(h, top + size)


def zoom_crop(
    image: Image.Image, x: float, y: float, size: int
) -> tuple[Image.Image, tuple[int, int]]:
    """A size x size crop centred on the click (shifted to stay inside the image) and its
    top-left corner in the image."""
    box = zoom_box(image.size, x, y, size)
    return image.crop(box), (box[0], box[1])


def prefetch_text(views: list[tuple[Screenshot, float, float]]) -> list:
    """The OCR lines around each (screenshot, x, y) click, the unread ones read at once."""
    return click_lines([(s.digest, x, y, lambda s=s: s.image) for s, x, y in views])


def prefetch_aids(views: list[tuple[Screenshot, str, float, float]], aids: ObservationAids) -> None:
    """Read at once what the aids need for many (screenshot, task, x, y) clicks: the OCR text
    under each click, and the sentence embeddings of the tasks and texts the match compares."""
    if not aids.ocr:
        return
    prefetch_text([(s, x, y) for s, _, x, y in views])
    if aids.task_match:
        prefetch([t for _, t, _, _ in views] + [s.text_under(x, y) for s, _, x, y in views])


def ocr_note(text: str) -> str:
    """How the text under the click is put to the evaluator."""
    return f'Text under the click: "{text}"' if text else "Text under the click: none"


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
        text = shot.text_under(x, y)
        notes.append(ocr_note(text.lower() if aids.fold_case else text))
        if aids.task_match:
            notes.append(match_note(task_match(task, text)))
    w, h = shot.size
    parts.append(
        {"type": "text", "text": prompts.evaluator_user(task, x, y, w, h, "\n".join(notes))}
    )
    return [
        {"role": "system", "content": prompts.evaluator_system(experience)},
        {"role": "user", "content": parts},
    ]
