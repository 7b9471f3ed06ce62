"""RUC benchmark tables: composition (paper Table 1), sources (Table 9), resolutions (Table 11),
box areas (Table 12), split (Table 13) and the Stage-1 clicks."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from darkguard.reports.paper import DUDE_RUC_SOURCES, DUDE_RUC_SPLIT, DUDE_RUC_TOTALS
from darkguard.ruc import schema
from darkguard.ruc.split import HELDOUT_SPLITS, SPLITS


def dataset_label(source: str) -> str:
    return "RUC-synth" if source == "synth" else "RUC release"


def composition(records: list[dict]) -> pd.DataFrame:
    """Paper Table 1: pages per domain x category, with totals."""
    cats = [schema.NORMAL_CATEGORY, *schema.DECEPTION_CATEGORIES]
    extra = sorted({str(r.get("category")) for r in records} - set(cats))
    cats += extra
    domains = sorted({str(r.get("domain", "unknown")) for r in records})
    count = Counter((str(r.get("domain", "unknown")), str(r.get("category"))) for r in records)
    rows = []
    for d in domains:
        row = {"Domain": d, **{c: count[(d, c)] for c in cats}}
        rows.append(row)
    df = pd.DataFrame(rows, columns=["Domain", *cats])
    df["Deceptive total"] = df[[c for c in cats if c != schema.NORMAL_CATEGORY]].sum(axis=1)
    df["Total"] = df[cats].sum(axis=1)
    total = {"Domain": "Total", **{c: int(df[c].sum()) for c in df.columns[1:]}}
    paper = {
        "Domain": "paper RUC (reference)",
        schema.NORMAL_CATEGORY: DUDE_RUC_TOTALS["Normal"],
        "Deceptive total": DUDE_RUC_TOTALS["Deception"],
        "Total": sum(DUDE_RUC_TOTALS.values()),
    }
    out = pd.concat([df, pd.DataFrame([total, paper])], ignore_index=True)
    return out.astype(object).where(out.notna(), "")


def sources(records: list[dict], source: str) -> pd.DataFrame:
    """Paper Table 9: where the pages come from, ours and then the paper's (reference)."""
    n = Counter(r["type"] for r in records)
    ours = (
        "procedural generator, rendered in Chromium"
        if source == "synth"
        else "public RUC release (data/raw/ruc)"
    )
    rows = [(dataset_label(source), t, ours, n[t]) for t in schema.TYPES]
    rows += [("paper RUC (reference)", t, s, k) for t, s, k in DUDE_RUC_SOURCES]
    return pd.DataFrame(rows, columns=["Dataset", "Subset", "Source", "Pages"])


def _stats(values: np.ndarray) -> dict[str, float]:
    return {
        "mean": round(float(values.mean()), 1),
        "median": round(float(np.median(values)), 1),
        "std": round(float(values.std()), 1),
        "min": round(float(values.min()), 1),
        "max": round(float(values.max()), 1),
    }


def resolution(records: list[dict]) -> pd.DataFrame:
    """Paper Table 11: screenshot width/height statistics."""
    rows = []
    for key in ("image_width", "image_height"):
        v = np.array([r[key] for r in records], dtype=float)
        rows.append({"Dimension": key.removeprefix("image_"), **_stats(v)})
    px = np.array([r["image_width"] * r["image_height"] for r in records], dtype=float) / 1e6
    rows.append({"Dimension": "megapixels", **{k: round(v, 3) for k, v in _stats(px).items()}})
    return pd.DataFrame(rows)


def resolution_counts(records: list[dict]) -> pd.DataFrame:
    c = Counter(f"{r['image_width']}x{r['image_height']}" for r in records)
    return pd.DataFrame(
        sorted(c.items(), key=lambda kv: (-kv[1], kv[0])), columns=["Resolution", "Pages"]
    )


def box_areas(records: list[dict]) -> tuple[pd.DataFrame, float]:
    """Paper Table 12: box areas (px^2), correct vs deceptive; returns the ratio of mean areas."""
    correct_all = np.array([schema.area(schema.correct_bbox(r)) for r in records])
    dec = [r for r in records if schema.dark_bbox(r) is not None]
    correct_dec = np.array([schema.area(schema.correct_bbox(r)) for r in dec])
    dark = np.array([schema.area(schema.dark_bbox(r)) for r in dec])
    rows = [
        {"Box": "correct (all pages)", "n": len(correct_all), **_stats(correct_all)},
        {"Box": "correct (deceptive pages)", "n": len(correct_dec), **_stats(correct_dec)},
        {"Box": "deceptive", "n": len(dark), **_stats(dark)},
    ]
    ratio = float(dark.mean() / correct_all.mean()) if len(dark) else float("nan")
    return pd.DataFrame(rows), round(ratio, 3)


def split_table(splits: dict[str, list[dict]]) -> pd.DataFrame:
    """Paper Table 13: split sizes, ours beside the paper's; a valid or test count includes
    the held-out style family's pages, also given on their own."""
    rows = []
    for name in SPLITS:
        members = splits[name] + splits.get(f"heldout_{name}", [])
        n = Counter(r["type"] for r in members)
        pn, pd_ = DUDE_RUC_SPLIT[name]
        rows.append(
            {
                "Split": name,
                "Normal": n["Normal"],
                "Deceptive": n["Deception"],
                "Total": len(members),
                "of which held-out family": len(splits.get(f"heldout_{name}", [])),
                "Normal (paper)": pn,
                "Deceptive (paper)": pd_,
                "Total (paper)": pn + pd_,
            }
        )
    df = pd.DataFrame(rows)
    total = {"Split": "total", **{c: int(df[c].sum()) for c in df.columns[1:]}}
    return pd.concat([df, pd.DataFrame([total])], ignore_index=True)


def split_by_category(splits: dict[str, list[dict]]) -> pd.DataFrame:
    cats = sorted({str(r.get("category")) for s in splits.values() for r in s})
    names = [s for s in (*SPLITS, *HELDOUT_SPLITS) if s in splits]
    rows = [
        {"Category": c, **{s: sum(str(r.get("category")) == c for r in splits[s]) for s in names}}
        for c in cats
    ]
    return pd.DataFrame(rows)


def family_table(splits: dict[str, list[dict]], heldout: list[str]) -> pd.DataFrame:
    """Pages per style family and split: the training families in train / valid / test, the
    held-out ones only in heldout_valid / heldout_test, and the mixed training pages (family
    `a+b+c`: each attribute from one of them; `data.families.mix_rate`) only in train."""
    names = [s for s in (*SPLITS, *HELDOUT_SPLITS) if s in splits]
    families = sorted({str(r.get("family")) for s in splits.values() for r in s})
    rows = [
        {
            "Family": f,
            "Role": "held out" if f in heldout else "training, mixed" if "+" in f else "training",
            **{s: sum(str(r.get("family")) == f for r in splits[s]) for s in names},
        }
        for f in families
    ]
    return pd.DataFrame(rows)


def click_table(clicks: dict[str, list[dict]]) -> pd.DataFrame:
    """Stage-1 clicks per split, by generation rule and label (paper 3.2.1, App. D)."""
    rules = ["benign_centroid", "deceptive_centroid", "deceptive_boundary", "null_uniform"]
    rows = []
    for name in SPLITS:
        c = Counter(x["rule"] for x in clicks[name])
        labels = Counter(x["label"] for x in clicks[name])
        rows.append(
            {
                "Split": name,
                **{r: c[r] for r in rules},
                "L=1": labels[1],
                "L=-1": labels[-1],
                "L=0": labels[0],
                "Total": len(clicks[name]),
            }
        )
    return pd.DataFrame(rows)
