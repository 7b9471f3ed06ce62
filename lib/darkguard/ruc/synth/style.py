"""Visual styles of RUC-synth pages: palettes, fonts, sizes; and the page stylesheet."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from darkguard.ruc.synth.families import Family

# (background, surface, text, muted, primary, on-primary, accent, on-accent, border)
PALETTES = [
    (
        "#ffffff",
        "#f5f6f8",
        "#1d2330",
        "#6b7280",
        "#2563eb",
        "#ffffff",
        "#f59e0b",
        "#1d2330",
        "#e5e7eb",
    ),
    (
        "#fbfaf7",
        "#ffffff",
        "#222222",
        "#777777",
        "#0f766e",
        "#ffffff",
        "#e11d48",
        "#ffffff",
        "#e7e2d8",
    ),
    (
        "#f4f7fb",
        "#ffffff",
        "#0b1b33",
        "#5b6b80",
        "#1e3a8a",
        "#ffffff",
        "#16a34a",
        "#ffffff",
        "#d6dee9",
    ),
    (
        "#111827",
        "#1f2937",
        "#f3f4f6",
        "#9ca3af",
        "#8b5cf6",
        "#ffffff",
        "#f97316",
        "#111827",
        "#374151",
    ),
    (
        "#fffdf5",
        "#fff7e0",
        "#3b2f1e",
        "#8a7355",
        "#b45309",
        "#ffffff",
        "#0369a1",
        "#ffffff",
        "#f0e2bf",
    ),
    (
        "#ffffff",
        "#fafafa",
        "#111111",
        "#666666",
        "#111111",
        "#ffffff",
        "#dc2626",
        "#ffffff",
        "#dddddd",
    ),
    (
        "#f0fdf4",
        "#ffffff",
        "#14301f",
        "#4b6b57",
        "#15803d",
        "#ffffff",
        "#7c3aed",
        "#ffffff",
        "#cfe8d6",
    ),
    (
        "#fdf2f8",
        "#ffffff",
        "#3d1029",
        "#86506d",
        "#be185d",
        "#ffffff",
        "#0891b2",
        "#ffffff",
        "#f5cfe2",
    ),
    (
        "#0f172a",
        "#16213a",
        "#e2e8f0",
        "#94a3b8",
        "#22c55e",
        "#0f172a",
        "#eab308",
        "#0f172a",
        "#25324d",
    ),
    (
        "#f8fafc",
        "#ffffff",
        "#1e293b",
        "#64748b",
        "#0ea5e9",
        "#ffffff",
        "#ef4444",
        "#ffffff",
        "#e2e8f0",
    ),
    (
        "#fafaf9",
        "#ffffff",
        "#292524",
        "#78716c",
        "#ea580c",
        "#ffffff",
        "#2563eb",
        "#ffffff",
        "#e7e5e4",
    ),
    (
        "#eef2ff",
        "#ffffff",
        "#1e1b4b",
        "#6366f1",
        "#4338ca",
        "#ffffff",
        "#db2777",
        "#ffffff",
        "#c7d2fe",
    ),
]
FONTS = [
    "Liberation Sans",
    "Liberation Serif",
    "DejaVu Sans",
    "DejaVu Serif",
    "Liberation Sans Narrow",
    "Liberation Mono",
    "DejaVu Sans Condensed",
    "DejaVu Sans Mono",
    "DejaVu Serif Condensed",
]
BUTTON_KINDS = ("primary", "accent", "secondary", "ghost", "link")


@dataclass(frozen=True)
class Style:
    palette: tuple[str, ...]
    font: str
    font_size: int
    radius: int
    button_h: int
    shadow: bool
    uppercase_buttons: bool
    border_w: int = 1
    weight: int = 600

    @property
    def names(self) -> dict[str, str]:
        keys = (
            "bg",
            "surface",
            "text",
            "muted",
            "primary",
            "on_primary",
            "accent",
            "on_accent",
            "border",
        )
        return dict(zip(keys, self.palette, strict=True))


def sample_style(rng: np.random.Generator, family: Family) -> Style:
    """A style drawn from `family`'s palettes, fonts, type scale and shapes."""
    lo, hi = family.font_sizes
    blo, bhi = family.button_h
    return Style(
        palette=PALETTES[int(rng.choice(family.palettes))],
        font=str(rng.choice(family.fonts)),
        font_size=int(rng.integers(lo, hi + 1)),
        radius=int(rng.choice(family.radii)),
        button_h=int(rng.integers(blo, bhi + 1)),
        shadow=bool(rng.random() < family.shadow_rate),
        uppercase_buttons=bool(rng.random() < family.uppercase_rate),
        border_w=family.border_w,
        weight=family.weight,
    )


def stylesheet(s: Style) -> str:
    c = s.names
    shadow = "0 1px 3px rgba(0,0,0,.15)" if s.shadow else "none"
    upper = "uppercase" if s.uppercase_buttons else "none"
    return f"""
* {{ box-sizing: border-box; margin: 0; padding: 0; }}
html, body {{ overflow: hidden; }}
body {{ background: {c["bg"]}; color: {c["text"]}; font-family: '{s.font}'; font-size: {s.font_size}px; }}
.box {{ position: absolute; overflow: hidden; }}
.row {{ display: flex; align-items: center; overflow: hidden; }}
.col {{ display: flex; flex-direction: column; overflow: hidden; }}
.clip {{ overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }}
.surface {{ background: {c["surface"]}; border: 1px solid {c["border"]}; border-radius: {s.radius}px; box-shadow: {shadow}; }}
.muted {{ color: {c["muted"]}; }}
a {{ color: inherit; text-decoration: none; }}
.nav a {{ display: inline-flex; align-items: center; flex: none; }}
.btn {{ display: inline-flex; align-items: center; justify-content: center; flex: none; overflow: hidden;
        white-space: nowrap; border-radius: {s.radius}px; font-weight: {s.weight}; cursor: pointer;
        text-transform: {upper}; border: {s.border_w}px solid transparent; font-family: inherit; font-size: inherit; }}
.btn-primary {{ background: {c["primary"]}; color: {c["on_primary"]}; }}
.btn-accent {{ background: {c["accent"]}; color: {c["on_accent"]}; }}
.btn-secondary {{ background: transparent; color: {c["primary"]}; border-color: {c["primary"]}; }}
.btn-ghost {{ background: {c["border"]}; color: {c["text"]}; }}
.btn-link {{ background: transparent; color: {c["muted"]}; text-decoration: underline; font-weight: 400; }}
.thumb {{ border-radius: {s.radius}px; flex: none; }}
input {{ border: 1px solid {c["border"]}; border-radius: {s.radius}px; padding: 0 10px; background: {c["surface"]};
         color: {c["text"]}; font-family: inherit; font-size: inherit; flex: none; }}
.badge {{ display: inline-flex; align-items: center; padding: 0 6px; height: 18px; font-size: 11px; border-radius: 3px;
          background: {c["accent"]}; color: {c["on_accent"]}; flex: none; }}
.shade {{ position: absolute; inset: 0; background: rgba(0,0,0,.45); }}
.dialog {{ background: {c["surface"]}; color: {c["text"]}; border-radius: {s.radius}px; box-shadow: 0 8px 30px rgba(0,0,0,.35); }}
"""
