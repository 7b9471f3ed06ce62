"""The one screenshot cache: decoded screenshots and their copies resized for a model's processor,
kept between calls so that a page is decoded and resized once per pipeline rather than once per
stage or per click: in memory per process (least recently used, bounded) and, for resized copies,
on disk between processes (`paths.cache_dir()`, content-addressed: the file's bytes, the pixel cap
and the resizing code's versions name the entry; PNG, lossless).

`decoded(path)`, `fitted(path, max_pixels)` and `cropped(path, box)` are the entry points: a crop
around a click (the evaluator's zoom aid) is kept like a resized copy, so that judging a click
again needs neither the page's PNG decoded nor its pixels in memory."""

from __future__ import annotations

import hashlib
import os
import tempfile
import weakref
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import lru_cache
from pathlib import Path

import PIL
from PIL import Image, PngImagePlugin

from darkguard import paths

FORMAT_VERSION = 1  # bump when what is stored changes

Fitted = tuple[Image.Image, tuple[int, int]]  # the resized copy, the original (width, height)


class MemoryCache:
    """Least-recently-used resized screenshots, at most `budget` bytes of pixels in all."""

    def __init__(self, budget: int) -> None:
        self.budget, self.used = budget, 0
        self.items: OrderedDict[tuple, Fitted] = OrderedDict()

    def get(self, key: tuple) -> Fitted | None:
        if key in self.items:
            self.items.move_to_end(key)
            return self.items[key]
        return None

    def put(self, key: tuple, value: Fitted) -> Fitted:
        cost = _bytes(value[0])
        if cost <= self.budget:
            self.items[key] = value
            self.used += cost
            self._shrink()
        return value

    def _shrink(self) -> None:
        while self.used > self.budget:
            _, (old, _) = self.items.popitem(last=False)
            self.used -= _bytes(old)

    @contextmanager
    def raised(self, budget: int) -> Iterator[None]:
        """The budget raised to `budget` bytes for a block that reads the same screenshots in
        several passes (each pass over more pages than the budget holds would decode every page
        again: a least-recently-used cache keeps none of a longer scan), then back (the least
        recently used entries go)."""
        before = self.budget
        self.budget = max(before, budget)
        try:
            yield
        finally:
            self.budget = before
            self._shrink()


_PIXEL_DIGESTS: dict[int, tuple[weakref.ref, str]] = {}


def pixel_digest(image: Image.Image) -> str:
    """SHA-1 of an image's pixels (`tobytes`), computed once per image object: an episode's
    agent and gate ask for the same page's identity at every step, and hashing a 1366x864
    screenshot costs ~7 ms. An observed image is never changed in place (the screenshots the
    environments hand out are this module's shared decoded copies)."""
    key = id(image)
    entry = _PIXEL_DIGESTS.get(key)
    if entry is not None and entry[0]() is image:
        return entry[1]
    digest = hashlib.sha1(image.tobytes()).hexdigest()
    _PIXEL_DIGESTS[key] = (weakref.ref(image, lambda _, key=key: _forget_pixels(key)), digest)
    return digest


def _forget_pixels(key: int) -> None:
    entry = _PIXEL_DIGESTS.get(key)
    if entry is not None and entry[0]() is None:
        del _PIXEL_DIGESTS[key]


def file_key(path: Path) -> tuple[str, int, int]:
    """A file as a memory cache knows it: resolved path, size, modification time."""
    stat = Path(path).stat()
    return str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns


def _bytes(image: Image.Image) -> int:
    return image.width * image.height * len(image.getbands())


class DiskCache:
    """Resized screenshots as PNG files under `root`, named by `entry_name`. Reading a missing
    or damaged entry returns None (it is computed again); writing is atomic and skipped when the
    folder cannot be written."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def entry(self, source: Path, max_pixels: int | None) -> Path:
        return self.root / f"{entry_name(source, max_pixels)}.png"

    def get(self, entry: Path) -> Fitted | None:
        try:
            with Image.open(entry) as img:
                img.load()
                size = tuple(int(v) for v in img.text["original_size"].split("x"))
                return img.convert("RGB"), (size[0], size[1])
        except (OSError, KeyError, ValueError, SyntaxError):
            return None

    def put(self, entry: Path, value: Fitted) -> None:
        image, (width, height) = value
        info = PngImagePlugin.PngInfo()
        info.add_text("original_size", f"{width}x{height}")
        tmp: str | None = None
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=entry.parent, suffix=".part")
            with os.fdopen(fd, "wb") as out:
                image.save(out, format="PNG", pnginfo=info, compress_level=1)
            os.replace(tmp, entry)
        except OSError:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)


def entry_name(source: Path, max_pixels: int | None) -> str:
    """The file's content, the pixel cap and the versions of the code that resizes it."""
    import transformers

    digest = hashlib.sha256(Path(source).read_bytes())
    digest.update(f"|{max_pixels}|{PIL.__version__}|{transformers.__version__}".encode())
    digest.update(f"|{FORMAT_VERSION}".encode())
    return digest.hexdigest()[:40]


def disk_cache() -> DiskCache | None:
    """The disk cache, or None when `DARKGUARD_CACHE=off`."""
    root = paths.cache_dir()
    return None if root is None else DiskCache(root / "screens")


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


def fitted(path: Path, max_pixels: int | None) -> Fitted:
    """The copy of the screenshot in `path` resized for `max_pixels`, and its original size: from
    this process's memory when the same file (path, size, modification time) was read before with
    the same cap, else from the disk cache when a file with the same bytes was, else made."""
    key = ("fitted", *file_key(path), max_pixels)
    cached = _MEMORY.get(key)
    if cached is None:
        cached = _MEMORY.put(key, _fitted_from_disk(Path(path), max_pixels))
    return cached


def decoded(path: Path) -> Image.Image:
    """The screenshot in `path`, decoded (RGB) once per process while it fits the memory."""
    key = ("decoded", *file_key(path))
    cached = _MEMORY.get(key)
    if cached is None:
        with Image.open(path) as img:
            image = img.convert("RGB")
        cached = _MEMORY.put(key, (image, image.size))
    return cached[0]


def cropped(path: Path, box: tuple[int, int, int, int]) -> Image.Image:
    """The `box` (left, top, right, bottom) of the screenshot in `path`: from this process's
    memory, else from the disk cache (a file with the same bytes, the same box), else cut from
    the decoded screenshot and stored in both."""
    key = ("cropped", *file_key(path), box)
    cached = _MEMORY.get(key)
    if cached is None:
        cached = _MEMORY.put(key, _cropped_from_disk(Path(path), box))
    return cached[0]


def _cropped_from_disk(path: Path, box: tuple[int, int, int, int]) -> Fitted:
    root = paths.cache_dir()
    disk = None if root is None else DiskCache(root / "crops")
    entry = disk.root / f"{crop_entry_name(path, box)}.png" if disk else None
    stored = disk.get(entry) if disk and entry else None
    if stored is not None:
        return stored
    crop = decoded(path).crop(box)
    made = crop, crop.size
    if disk and entry:
        disk.put(entry, made)
    return made


def crop_entry_name(source: Path, box: tuple[int, int, int, int]) -> str:
    """The file's content and the box (cropping is exact: no library version enters)."""
    digest = hashlib.sha256(content_digest(*file_key(source)).encode())
    digest.update(f"|{box}|{FORMAT_VERSION}".encode())
    return digest.hexdigest()[:40]


@lru_cache(maxsize=8192)
def content_digest(path: str, size: int, mtime_ns: int) -> str:
    """sha256 of a file's bytes, once per (path, size, modification time) in this process
    (`file_key`)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _fitted_from_disk(path: Path, max_pixels: int | None) -> Fitted:
    """The resized copy of `path` from the disk cache, made (and stored) on a miss; an image
    kept at full size (no cap) is not stored."""
    disk = disk_cache() if max_pixels else None
    entry = disk.entry(path, max_pixels) if disk else None
    stored = disk.get(entry) if disk else None
    if stored is not None:
        return stored
    if max_pixels:  # the decoded page is kept: its text and crops are read next
        image = decoded(path)
    else:  # a full-size copy of its own
        with Image.open(path) as img:
            image = img.convert("RGB")
    made = fit_pixels(image, max_pixels), image.size
    if disk:
        disk.put(entry, made)
    return made


_MEMORY = MemoryCache(budget=1536 * 2**20)  # pixels of decoded and resized screenshots


def pages_kept(budget: int) -> AbstractContextManager[None]:
    """This process's memory cache raised to `budget` bytes for a block (`MemoryCache.raised`)."""
    return _MEMORY.raised(budget)
