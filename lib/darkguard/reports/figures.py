"""Figures shared by the stages: saving deterministic PNGs and annotated RUC screenshots."""

from __future__ import annotations

import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from PIL import Image, ImageDraw

from darkguard import paths
from darkguard.ruc import schema

COLORS = {1: (22, 163, 74), -1: (220, 38, 38), 0: (37, 99, 235)}


def save_figure(fig: plt.Figure, name: str, directory: Path | None = None) -> Path:
    """Save as PNG without volatile metadata (byte-stable across reruns on one machine)."""
    directory = Path(directory or paths.figures_dir())
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100, metadata={"Software": None}, bbox_inches="tight")
    return path


def annotate(image: Image.Image, record: dict, clicks: list[dict]) -> Image.Image:
    """Boxes (green: correct, red: deceptive) and clicks (by label) drawn on a screenshot."""
    img = image.convert("RGB")
    draw = ImageDraw.Draw(img)
    draw.rectangle(schema.correct_bbox(record), outline=COLORS[1], width=5)
    if schema.dark_bbox(record) is not None:
        draw.rectangle(schema.dark_bbox(record), outline=COLORS[-1], width=5)
    for c in clicks:
        x, y, r = c["x"], c["y"], 11
        draw.ellipse(
            [x - r, y - r, x + r, y + r], fill=COLORS[c["label"]], outline=(0, 0, 0), width=2
        )
    return img


def pick_examples(records: list[dict], n: int) -> list[dict]:
    """One Normal page, then one page per deception category, in id order, until `n`."""
    by_cat: dict[str, list[dict]] = {}
    for r in sorted(records, key=lambda r: str(r["id"])):
        by_cat.setdefault(str(r.get("category")), []).append(r)
    cats = [schema.NORMAL_CATEGORY, *schema.DECEPTION_CATEGORIES]
    cats += sorted(set(by_cat) - set(cats))
    picked, depth = [], 0
    while len(picked) < n and any(len(v) > depth for v in by_cat.values()):
        for c in cats:
            if len(picked) < n and len(by_cat.get(c, [])) > depth:
                picked.append(by_cat[c][depth])
        depth += 1
    return picked


def examples_figure(records: list[dict], clicks: list[dict], data_root: Path, n: int) -> plt.Figure:
    """Grid of annotated examples (like paper Appendix I)."""
    by_id: dict[str, list[dict]] = {}
    for c in clicks:
        by_id.setdefault(c["sample_id"], []).append(c)
    chosen = pick_examples(records, n)
    cols = 2 if len(chosen) > 1 else 1
    rows = -(-len(chosen) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(8 * cols, 5.2 * rows), squeeze=False)
    for ax in axes.flat:
        ax.axis("off")
    for ax, r in zip(axes.flat, chosen, strict=False):
        with Image.open(data_root / r["image_path"]) as img:
            ax.imshow(annotate(img, r, by_id.get(str(r["id"]), [])))
        title = f"{r['id']} · {r.get('domain', '')} · {r.get('category')}\n"
        title += "\n".join(textwrap.wrap("Task: " + schema.task_text(r), 80)[:2])
        ax.set_title(title, fontsize=10, loc="left")
    fig.suptitle(
        "RUC examples: green = correct box / benign click, red = deceptive box / click, "
        "blue = null click",
        fontsize=12,
    )
    fig.tight_layout()
    return fig


def thumbnail_jpeg(path: Path, width: int = 1000, quality: int = 80) -> bytes:
    """A small deterministic JPEG of a figure, for embedding in executed notebooks."""
    import io

    with Image.open(path) as img:
        img = img.convert("RGB")
        img.thumbnail((width, width * 4))
        buf = io.BytesIO()
        img.save(buf, format="JPEG", quality=quality, optimize=True)
    return buf.getvalue()
