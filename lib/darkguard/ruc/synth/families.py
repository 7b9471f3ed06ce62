"""Style families of RUC-synth: independent looks (palettes, type, shapes, layout, wording).

A family bundles everything a page's look is drawn from: colour schemes, fonts and type scale,
component shapes (corner radius, button height and border, capitals), layout grid (sidebar,
header, padding, gaps) and its own wording bank (`wording/`). Families share no palette, no
font and no phrasing, so a family held out of training (`data.families.heldout`) shows a model
pages unlike any it was trained on. A mixed family (`mixed_family`) draws each attribute from
an independently chosen training family: looks no single family has, for training pages only.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np


@dataclass(frozen=True)
class Family:
    name: str
    palettes: tuple[int, ...]  # indices into style.PALETTES
    fonts: tuple[str, ...]
    font_sizes: tuple[int, int]  # inclusive range
    radii: tuple[int, ...]
    button_h: tuple[int, int]  # inclusive range
    border_w: int  # button border width (px)
    weight: int  # button font weight
    shadow_rate: float
    uppercase_rate: float
    sidebar_p: tuple[float, float, float]  # none / left / right
    header_h: tuple[int, ...]
    pads: tuple[int, ...]
    gaps: tuple[int, ...]


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family(
            "plain",
            palettes=(0, 2, 9),
            fonts=("Liberation Sans", "DejaVu Sans"),
            font_sizes=(13, 15),
            radii=(2, 4, 6, 8),
            button_h=(32, 40),
            border_w=1,
            weight=600,
            shadow_rate=0.5,
            uppercase_rate=0.1,
            sidebar_p=(0.4, 0.3, 0.3),
            header_h=(56, 64, 72),
            pads=(16, 24, 32),
            gaps=(12, 16, 20),
        ),
        Family(
            "soft",
            palettes=(1, 6, 7),
            fonts=("Liberation Serif", "DejaVu Serif"),
            font_sizes=(14, 16),
            radii=(14, 18, 22),
            button_h=(38, 46),
            border_w=1,
            weight=500,
            shadow_rate=0.9,
            uppercase_rate=0.0,
            sidebar_p=(0.6, 0.2, 0.2),
            header_h=(72, 80),
            pads=(24, 32),
            gaps=(16, 20),
        ),
        Family(
            "dense",
            palettes=(4, 10, 11),
            fonts=("Liberation Sans Narrow", "DejaVu Sans Condensed"),
            font_sizes=(12, 14),
            radii=(0, 2, 3),
            button_h=(28, 34),
            border_w=1,
            weight=700,
            shadow_rate=0.2,
            uppercase_rate=0.3,
            sidebar_p=(0.2, 0.5, 0.3),
            header_h=(48, 56),
            pads=(12, 16),
            gaps=(8, 12),
        ),
        Family(
            "bold",
            palettes=(3, 5, 8),
            fonts=("Liberation Mono", "DejaVu Sans Mono", "DejaVu Serif Condensed"),
            font_sizes=(14, 16),
            radii=(0, 10),
            button_h=(40, 48),
            border_w=2,
            weight=800,
            shadow_rate=0.0,
            uppercase_rate=0.7,
            sidebar_p=(0.5, 0.1, 0.4),
            header_h=(64, 88),
            pads=(20, 28),
            gaps=(14, 24),
        ),
    )
}


def mixed_family(rng: np.random.Generator, members: list[str]) -> Family:
    """A family whose every attribute (palettes, fonts, type scale, shapes, layout) is that of a
    member drawn independently per attribute, named after the members joined by `+`."""
    chosen = [FAMILIES[name] for name in members]
    drawn = {
        f.name: getattr(chosen[int(rng.integers(len(chosen)))], f.name)
        for f in fields(Family)
        if f.name != "name"
    }
    return Family(name="+".join(members), **drawn)


def check_families(names: list[str]) -> None:
    """A clear error naming the parameter for a family that `FAMILIES` does not define."""
    from darkguard.io import InputError

    for name in names:
        if name not in FAMILIES:
            raise InputError(
                f"params.yaml data.families: unknown style family {name!r} "
                f"(known: {sorted(FAMILIES)})"
            )
