"""Page specifications: which pages RUC-synth builds, and each page's HTML and metadata."""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass

import numpy as np

from darkguard.ruc.clicks import sample_rng
from darkguard.ruc.schema import NORMAL_CATEGORY
from darkguard.ruc.split import stratified_split
from darkguard.ruc.synth.content import domain_copy
from darkguard.ruc.synth.families import FAMILIES, Family, mixed_family
from darkguard.ruc.synth.page import Page, text_w
from darkguard.ruc.synth.patterns import apply_deception, apply_normal
from darkguard.ruc.synth.style import FONTS, PALETTES, sample_style
from darkguard.ruc.synth.wording import bank, mixed_bank

MAX_BANNER = 116  # tallest banner slot a pattern may add, plus its gap


@dataclass(frozen=True)
class PlannedPage:
    id: str
    domain: str
    category: str
    family: str = "plain"
    mix: tuple[str, ...] = ()  # training families each attribute is drawn from (mixed page)

    @property
    def type(self) -> str:
        return "Normal" if self.category == NORMAL_CATEGORY else "Deception"


@dataclass(frozen=True)
class PageSpec:
    id: str
    domain: str
    type: str
    category: str
    family: str
    task: str
    width: int
    height: int
    html: str
    meta: dict

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.html.encode()).hexdigest()


def plan_pages(
    normal: int,
    deceptive: dict[str, int],
    domains: list[str],
    seed: int,
    split: dict[str, float] | None = None,
    families: tuple[list[str], list[str], float] = (["plain"], [], 0.0),
    mix_rate: float = 0.0,
) -> list[PlannedPage]:
    """Every page of the build: categories x domains balanced, ids in a seeded order, and each
    page's style family.

    `families` is (training families, held-out families, held-out share). Pages the stratified
    split (`split`, the same call `build_ruc` makes on the rendered records) puts in `train`
    take a training family; of the `valid` and `test` pages of each category, the held-out
    share (rounded) take a held-out family and the others a training family. Families are dealt
    in turn over a seeded order, so each gets an equal share. A seeded `mix_rate` of the `train`
    pages are mixed (`PlannedPage.mix`): each look attribute and each wording key drawn from an
    independently chosen training family (`make_page`), so no style goes with one family's words.
    """
    slots = []
    for category, n in [(NORMAL_CATEGORY, normal), *sorted(deceptive.items())]:
        slots += [(domains[i % len(domains)], category) for i in range(n)]
    order = np.random.default_rng(seed).permutation(len(slots))
    width = max(4, len(str(len(slots))))
    plans = [PlannedPage(f"syn-{k + 1:0{width}d}", *slots[i]) for k, i in enumerate(order)]
    train, heldout, share = families
    if split is None or (len(train) == 1 and not heldout):
        return [dataclasses.replace(p, family=train[0]) for p in plans]
    parts = stratified_split(
        [{"id": p.id, "type": p.type, "category": p.category} for p in plans], split, seed
    )
    rng = np.random.default_rng([seed, 7919])
    family_of: dict[str, str] = {}
    for name, members in parts.items():
        for category in sorted({str(r["category"]) for r in members}):
            ids = [str(r["id"]) for r in members if r["category"] == category]
            ids = [ids[i] for i in rng.permutation(len(ids))]
            n_out = round(share * len(ids)) if name != "train" and heldout else 0
            for k, page_id in enumerate(ids[:n_out]):
                family_of[page_id] = heldout[k % len(heldout)]
            start = int(rng.integers(len(train)))
            for k, page_id in enumerate(ids[n_out:]):
                family_of[page_id] = train[(start + k) % len(train)]
    mixed = _mixed_train_pages(parts["train"], train, mix_rate, seed)
    return [
        dataclasses.replace(p, family=family_of[p.id], mix=tuple(train) if p.id in mixed else ())
        for p in plans
    ]


def _mixed_train_pages(
    members: list[dict], train: list[str], mix_rate: float, seed: int
) -> set[str]:
    """Ids of the `train` pages drawn as mixed families: a seeded `mix_rate` of them (none with
    one training family, where a mix is that family)."""
    if mix_rate <= 0 or len(train) < 2:
        return set()
    draws = np.random.default_rng([seed, 104729]).random(len(members))
    return {str(r["id"]) for r, u in zip(members, draws, strict=True) if u < mix_rate}


def _layout(
    rng: np.random.Generator, width: int, height: int, font_size: int, button_h: int, family: Family
) -> dict:
    sidebar = [None, "left", "right"][int(rng.choice(3, p=list(family.sidebar_p)))]
    sidebar_w = int(rng.integers(200, 281))
    pad, gap = int(rng.choice(family.pads)), int(rng.choice(family.gaps))
    header_h, footer_h = int(rng.choice(family.header_h)), int(rng.choice([40, 48]))
    content_w = width - 2 * pad - (sidebar_w + gap if sidebar else 0)
    cols = [c for c in (2, 3, 4, 5) if 210 <= (content_w - (c - 1) * gap) / c <= 440]
    n_cols = int(rng.choice(cols))
    min_card = 24 + int(font_size * 2.7) + 2 * int(font_size * 1.5) + button_h + 24 + 40
    avail = height - footer_h - pad - (header_h + pad) - MAX_BANNER
    rows = 2 if (avail - gap) // 2 >= min_card and rng.random() < 0.7 else 1
    return dict(
        sidebar=sidebar,
        sidebar_w=sidebar_w,
        pad=pad,
        gap=gap,
        header_h=header_h,
        footer_h=footer_h,
        cols=n_cols,
        rows=rows,
    )


def make_page(plan: PlannedPage, viewports: list[list[int]], seed: int) -> PageSpec:
    """The deterministic page of `plan` (depends only on the seed, the page id and its style
    family, whose looks and wording bank it is drawn from)."""
    rng = sample_rng(seed, plan.id)
    width, height = (int(v) for v in viewports[int(rng.integers(len(viewports)))])
    if plan.mix:
        mix_rng = sample_rng(seed, f"{plan.id}:mix")
        family = mixed_family(mix_rng, list(plan.mix))
        words = mixed_bank(mix_rng, list(plan.mix))
    else:
        family, words = FAMILIES[plan.family], bank(plan.family)
    style = sample_style(rng, family)
    layout = _layout(rng, width, height, style.font_size, style.button_h, family)
    copy = domain_copy(plan.domain, layout["cols"] * layout["rows"], rng, words)
    page = Page(width=width, height=height, style=style, copy=copy, rng=rng, words=words, **layout)
    nav_room = width - 2 * page.pad - 190 - int(min(320, width * 0.2)) - 160
    nav, used = [], 0
    for name in copy.nav:  # keep only the navigation links that fit the header
        used += text_w(name, style.font_size, 8) + 14
        if used <= nav_room:
            nav.append(name)
    page.copy = dataclasses.replace(copy, nav=nav)
    page.target = int(rng.integers(page.cols * page.rows))
    if plan.type == "Normal":
        variant = apply_normal(page, rng)
    else:
        variant = apply_deception(page, plan.category, rng)
    meta = {
        "family": family.name,
        "variant": variant,
        "font": FONTS.index(style.font),
        "palette": PALETTES.index(style.palette),
        "sidebar": layout["sidebar"] or "none",
        "grid": [page.cols, page.rows],
    }
    return PageSpec(
        plan.id,
        plan.domain,
        plan.type,
        plan.category,
        family.name,
        page.task,
        width,
        height,
        page.html(),
        meta,
    )
