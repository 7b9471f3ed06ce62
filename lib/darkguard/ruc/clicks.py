"""Stage-1 click generation (paper 3.2.1 and Appendix D).

Per sample: a benign click at the centroid of the correct box (L=1); for deceptive samples a
deceptive click at the centroid of the dark box (L=-1), moved to the nearest point of the dark
box's boundary outside the correct box when the centroid falls inside the correct box (D.2);
and `n_null` clicks rejection-sampled uniformly from the null region (L=0, D.3). (The public
reference code labels null clicks -1 and returns n+1 of them; we follow the paper.)
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass

import numpy as np

from darkguard.ruc import schema

MAX_NULL_DRAWS = 100_000


class ClickGenerationError(ValueError):
    """A sample for which a click of some kind cannot exist (named by record id)."""


@dataclass(frozen=True)
class Click:
    sample_id: str
    click_id: str
    x: float
    y: float
    label: int
    rule: str

    def to_dict(self) -> dict:
        return asdict(self)


def sample_rng(seed: int, sample_id: str) -> np.random.Generator:
    """A generator that depends only on the seed and the sample id (not on record order)."""
    digest = int.from_bytes(hashlib.sha256(str(sample_id).encode()).digest()[:8], "big")
    return np.random.default_rng([seed, digest])


def boundary_point_outside(dark: schema.Box, correct: schema.Box, target: tuple[float, float]):
    """Nearest point to `target` on the dark box's boundary that lies outside the correct box.

    The boundary is walked in 1-pixel steps (corners included); ties go to the smaller (y, x).
    Returns None when the whole boundary lies inside the correct box.
    """
    x1, y1, x2, y2 = (float(v) for v in dark)
    xs = np.unique(np.append(np.arange(x1, x2, 1.0), x2))
    ys = np.unique(np.append(np.arange(y1, y2, 1.0), y2))
    pts = np.concatenate(
        [
            np.stack([xs, np.full_like(xs, y1)], 1),
            np.stack([xs, np.full_like(xs, y2)], 1),
            np.stack([np.full_like(ys, x1), ys], 1),
            np.stack([np.full_like(ys, x2), ys], 1),
        ]
    )
    cx1, cy1, cx2, cy2 = correct
    inside = (pts[:, 0] >= cx1) & (pts[:, 0] <= cx2) & (pts[:, 1] >= cy1) & (pts[:, 1] <= cy2)
    pts = pts[~inside]
    if len(pts) == 0:
        return None
    d2 = (pts[:, 0] - target[0]) ** 2 + (pts[:, 1] - target[1]) ** 2
    order = np.lexsort((pts[:, 0], pts[:, 1], d2))
    x, y = pts[order[0]]
    return float(x), float(y)


def sample_clicks(record: dict, n_null: int, seed: int) -> list[Click]:
    """The benign, deceptive and null clicks of one RUC record."""
    rid = str(record["id"])
    correct, dark = schema.correct_bbox(record), schema.dark_bbox(record)
    width, height = int(record["image_width"]), int(record["image_height"])
    clicks = []
    bx, by = schema.centroid(correct)
    clicks.append(Click(rid, f"{rid}/benign", bx, by, 1, "benign_centroid"))
    if dark is not None:
        dx, dy = schema.centroid(dark)
        rule = "deceptive_centroid"
        if schema.contains(correct, dx, dy):
            moved = boundary_point_outside(dark, correct, (dx, dy))
            if moved is None:
                raise ClickGenerationError(
                    f"record {rid}: field 'dark_box.bbox': dark box {dark} lies inside the correct "
                    f"box {correct}; no deceptive click exists"
                )
            (dx, dy), rule = moved, "deceptive_boundary"
        clicks.append(Click(rid, f"{rid}/deceptive", dx, dy, -1, rule))
    rng = sample_rng(seed, rid)
    for i in range(n_null):
        for _ in range(MAX_NULL_DRAWS):
            x, y = int(rng.integers(0, width)), int(rng.integers(0, height))
            if not schema.contains(correct, x, y) and not schema.contains(dark, x, y):
                break
        else:
            raise ClickGenerationError(
                f"record {rid}: field 'correct_box.bbox': no null region found in "
                f"{MAX_NULL_DRAWS} draws (the boxes cover the image)"
            )
        clicks.append(Click(rid, f"{rid}/null{i}", float(x), float(y), 0, "null_uniform"))
    for c in clicks:  # every click carries the label Eq. 2 gives its position
        assert schema.click_label(c.x, c.y, correct, dark) == c.label, c
    return clicks


def generate_clicks(records: list[dict], n_null: int, seed: int) -> tuple[list[dict], list[dict]]:
    """Clicks for all records, and the records for which generation failed (with the reason)."""
    rows, rejected = [], []
    for record in records:
        try:
            rows.extend(c.to_dict() for c in sample_clicks(record, n_null, seed))
        except ClickGenerationError as exc:
            rejected.append({"sample_id": str(record["id"]), "reason": str(exc)})
    return rows, rejected


def page_order(clicks: list[dict], records: dict[str, dict]) -> list[int]:
    """The indices of `clicks` with each screenshot's clicks together (pages in order of first
    appearance, clicks in list order within a page): a pass over a click list that revisits
    pages (train clicks, then the text nulls of the same pages) opens each page once."""
    first: dict[str, int] = {}
    pages = [records[c["sample_id"]]["image_path"] for c in clicks]
    for i, page in enumerate(pages):
        first.setdefault(page, i)
    return sorted(range(len(clicks)), key=lambda i: first[pages[i]])
