"""Product pictures as inline SVG (no external resources): a simple drawing per kind of product,
in the product's color, on a soft backdrop."""

from __future__ import annotations

from markupsafe import Markup, escape

from darkguard.envs.arena.apps.store.catalog import Product

# Drawings on a 120 x 120 canvas; {c} is the product color, {d} a darker shade, {l} a light one.
_SHAPES = {
    "bag": '<path d="M34 28h52l8 76H26z" fill="{c}"/><path d="M34 28l6-10h40l6 10z" fill="{d}"/>'
    '<rect x="40" y="52" width="40" height="28" rx="3" fill="{l}"/>',
    "box": '<rect x="26" y="30" width="68" height="70" rx="4" fill="{c}"/>'
    '<rect x="26" y="30" width="68" height="14" fill="{d}"/>'
    '<rect x="38" y="56" width="44" height="24" rx="3" fill="{l}"/>',
    "jar": '<rect x="38" y="22" width="44" height="14" rx="3" fill="{d}"/>'
    '<rect x="30" y="34" width="60" height="68" rx="12" fill="{c}"/>'
    '<rect x="38" y="54" width="44" height="26" rx="3" fill="{l}"/>',
    "can": '<rect x="22" y="30" width="34" height="66" rx="6" fill="{c}"/>'
    '<rect x="64" y="30" width="34" height="66" rx="6" fill="{c}"/>'
    '<rect x="22" y="30" width="76" height="8" fill="{d}"/><rect x="22" y="88" width="76" '
    'height="8" fill="{d}"/>',
    "bottle": '<rect x="50" y="14" width="20" height="14" rx="2" fill="{d}"/>'
    '<path d="M48 28h24l10 16v58a6 6 0 0 1-6 6H44a6 6 0 0 1-6-6V44z" fill="{c}"/>'
    '<rect x="44" y="58" width="32" height="30" rx="3" fill="{l}"/>',
    "tube": '<path d="M44 18h32l-4 12H48z" fill="{d}"/><path d="M40 30h40l-6 78H46z" fill="{c}"/>'
    '<rect x="48" y="52" width="24" height="30" rx="2" fill="{l}"/>',
    "pan": '<circle cx="52" cy="62" r="34" fill="{d}"/><circle cx="52" cy="62" r="26" fill="{c}"/>'
    '<rect x="84" y="56" width="32" height="12" rx="6" fill="{d}"/>',
    "mug": '<rect x="26" y="32" width="54" height="64" rx="8" fill="{c}"/>'
    '<path d="M80 46h10a12 12 0 0 1 0 24H80" fill="none" stroke="{d}" stroke-width="8"/>',
    "soft": '<rect x="18" y="38" width="84" height="50" rx="22" fill="{c}"/>'
    '<path d="M30 52q30 14 60 0" fill="none" stroke="{l}" stroke-width="4"/>',
    "lamp": '<rect x="34" y="96" width="44" height="8" rx="3" fill="{d}"/>'
    '<path d="M56 96L44 56l30-24" fill="none" stroke="{d}" stroke-width="5"/>'
    '<path d="M64 22l30 8-10 22z" fill="{c}"/>',
    "flat": '<rect x="20" y="30" width="80" height="64" rx="6" fill="{c}"/>'
    '<rect x="28" y="38" width="64" height="48" rx="3" fill="{l}"/>',
    "audio": '<path d="M28 70a32 32 0 0 1 64 0" fill="none" stroke="{d}" stroke-width="8"/>'
    '<rect x="20" y="62" width="20" height="32" rx="8" fill="{c}"/>'
    '<rect x="80" y="62" width="20" height="32" rx="8" fill="{c}"/>',
    "device": '<rect x="22" y="24" width="76" height="72" rx="8" fill="{d}"/>'
    '<rect x="28" y="30" width="64" height="58" rx="3" fill="{c}"/>',
    "top": '<path d="M40 24l-24 14 10 20 12-6v52h44V52l12 6 10-20-24-14q-10 10-20 0z" '
    'fill="{c}"/><path d="M50 24q10 10 20 0" fill="none" stroke="{d}" stroke-width="4"/>',
    "shoe": '<path d="M16 84V58l28-6 14 14 36 8a10 10 0 0 1 10 10z" fill="{c}"/>'
    '<rect x="16" y="84" width="88" height="10" rx="4" fill="{d}"/>',
    "legs": '<path d="M36 20h48l4 86H66L60 50l-6 56H32z" fill="{c}"/>'
    '<rect x="36" y="20" width="48" height="8" fill="{d}"/>',
    "ring": '<circle cx="44" cy="64" r="22" fill="none" stroke="{c}" stroke-width="6"/>'
    '<circle cx="78" cy="64" r="22" fill="none" stroke="{d}" stroke-width="6"/>',
    "roll": '<rect x="20" y="44" width="70" height="36" rx="4" fill="{c}"/>'
    '<circle cx="90" cy="62" r="18" fill="{d}"/><circle cx="90" cy="62" r="8" fill="{l}"/>',
    "weight": '<rect x="20" y="40" width="16" height="44" rx="3" fill="{d}"/>'
    '<rect x="84" y="40" width="16" height="44" rx="3" fill="{d}"/>'
    '<rect x="36" y="58" width="48" height="8" fill="{c}"/>',
    "pack": '<rect x="28" y="26" width="64" height="80" rx="16" fill="{c}"/>'
    '<rect x="38" y="66" width="44" height="28" rx="6" fill="{d}"/>'
    '<path d="M44 26q16-16 32 0" fill="none" stroke="{d}" stroke-width="5"/>',
    "tent": '<path d="M14 98L60 26l46 72z" fill="{c}"/><path d="M50 98l10-30 10 30z" fill="{d}"/>',
    "ball": '<circle cx="60" cy="62" r="36" fill="{c}"/>'
    '<path d="M30 42q30 20 0 44M90 42q-30 20 0 44" fill="none" stroke="{l}" stroke-width="4"/>',
    "seat": '<rect x="30" y="30" width="60" height="36" rx="6" fill="{c}"/>'
    '<rect x="26" y="66" width="68" height="12" rx="4" fill="{d}"/>'
    '<path d="M34 78l-6 24M86 78l6 24" stroke="{d}" stroke-width="5"/>',
    "stick": '<rect x="54" y="12" width="12" height="96" rx="6" fill="{c}"/>'
    '<rect x="54" y="12" width="12" height="24" rx="6" fill="{d}"/>',
    "stack": '<rect x="24" y="70" width="72" height="20" rx="3" fill="{d}"/>'
    '<rect x="28" y="50" width="64" height="20" rx="3" fill="{c}"/>'
    '<rect x="32" y="30" width="56" height="20" rx="3" fill="{l}"/>',
}
_KINDS = {
    "towel": "soft",
    "pillow": "soft",
    "board": "flat",
    "earbuds": "audio",
    "headphones": "audio",
    "speaker": "device",
    "plug": "box",
    "cable": "roll",
    "tablet": "device",
    "keyboard": "flat",
    "camera": "device",
    "hoodie": "top",
    "shirt": "top",
    "socks": "shoe",
    "pants": "legs",
    "mat": "roll",
    "dumbbell": "weight",
    "flask": "bottle",
    "backpack": "pack",
    "rope": "roll",
    "chair": "seat",
    "officechair": "seat",
    "tub": "jar",
    "rolls": "stack",
    "kit": "box",
    "toothbrush": "stick",
    "pen": "stick",
    "notebook": "flat",
    "riser": "stack",
    "ream": "box",
    "notes": "stack",
    "stapler": "weight",
}


def _shade(color: str, factor: float) -> str:
    """`color` (#rrggbb) darkened (factor < 1) or lightened toward white (factor > 1)."""
    rgb = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    if factor <= 1:
        mixed = [round(v * factor) for v in rgb]
    else:
        mixed = [round(v + (255 - v) * (factor - 1)) for v in rgb]
    return "#" + "".join(f"{min(255, max(0, v)):02x}" for v in mixed)


def product_svg(product: Product, size: int = 160) -> Markup:
    """The product's picture as an inline SVG with an accessible name."""
    shape = _SHAPES[_KINDS.get(product.kind, product.kind)]
    c = product.color
    drawing = shape.format(c=c, d=_shade(c, 0.65), l=_shade(c, 1.75))
    backdrop = _shade(c, 1.9)
    return Markup(
        f'<svg class="pic" role="img" aria-label="{escape(product.name)}" width="{size}" '
        f'height="{size}" viewBox="0 0 120 120" xmlns="http://www.w3.org/2000/svg">'
        f'<rect width="120" height="120" rx="10" fill="{backdrop}"/>{drawing}</svg>'
    )
