"""Stratified train/valid/test split (paper A.6: stratified by category, seed 42, 70/15/15).

Sizes are fixed per record type first (round half up of fraction x count; test takes the rest),
then apportioned to the categories of that type by largest remainder, so that the default
composition reproduces paper Table 13 exactly (train 637+348, valid 137+75, test 136+74)
whatever the split of the 497 deceptive pages across categories.
"""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction

import numpy as np

SPLITS = ("train", "valid", "test")


def _round_half_up(x: Fraction) -> int:
    return math.floor(x + Fraction(1, 2))


def _apportion(counts: dict[str, int], fraction: Fraction, target: int) -> dict[str, int]:
    """Largest-remainder apportionment of `target` over categories with quotas fraction x count."""
    quotas = {c: fraction * n for c, n in counts.items()}
    alloc = {c: math.floor(q) for c, q in quotas.items()}
    order = sorted(counts, key=lambda c: (-(quotas[c] - alloc[c]), c))
    for c in order[: max(0, target - sum(alloc.values()))]:
        alloc[c] += 1
    return alloc


def split_sizes(
    counts_by_type: dict[str, dict[str, int]], fractions: dict[str, float]
) -> dict[tuple[str, str], dict[str, int]]:
    """Number of records per (type, category) stratum in each split."""
    frac = {s: Fraction(str(fractions[s])) for s in SPLITS}
    sizes: dict[tuple[str, str], dict[str, int]] = {}
    for rtype, cats in sorted(counts_by_type.items()):
        n_type = sum(cats.values())
        train = _apportion(cats, frac["train"], _round_half_up(frac["train"] * n_type))
        remaining = {c: cats[c] - train[c] for c in cats}
        valid_target = min(_round_half_up(frac["valid"] * n_type), sum(remaining.values()))
        valid = _apportion(cats, frac["valid"], valid_target)
        for c in cats:  # never allocate more than a stratum holds
            valid[c] = min(valid[c], remaining[c])
        for c in sorted(cats):
            sizes[(rtype, c)] = {
                "train": train[c],
                "valid": valid[c],
                "test": cats[c] - train[c] - valid[c],
            }
    return sizes


def stratified_split(
    records: list[dict], fractions: dict[str, float], seed: int
) -> dict[str, list[dict]]:
    """Split records into train/valid/test, stratified by (type, category), deterministic by seed.

    Records keep their input order inside each split.
    """
    strata: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in records:
        strata[(str(r["type"]), str(r.get("category")))].append(r)
    counts_by_type: dict[str, dict[str, int]] = defaultdict(dict)
    for (rtype, cat), members in strata.items():
        counts_by_type[rtype][cat] = len(members)
    sizes = split_sizes(counts_by_type, fractions)
    rng = np.random.default_rng(seed)
    assignment: dict[str, str] = {}
    for key in sorted(strata):
        ids = sorted(str(r["id"]) for r in strata[key])
        order = rng.permutation(len(ids))
        n_train, n_valid = sizes[key]["train"], sizes[key]["valid"]
        for rank, idx in enumerate(order):
            split = "train" if rank < n_train else "valid" if rank < n_train + n_valid else "test"
            assignment[ids[idx]] = split
    out: dict[str, list[dict]] = {s: [] for s in SPLITS}
    for r in records:
        out[assignment[str(r["id"])]].append(r)
    return out


HELDOUT_SPLITS = ("heldout_valid", "heldout_test")  # a held-out style family's valid / test


def hold_out(splits: dict[str, list[dict]], families: list[str]) -> dict[str, list[dict]]:
    """`splits` with the records of the held-out style `families` moved out of `valid` and
    `test` into `heldout_valid` and `heldout_test` (so everything that tunes on `valid` sees the
    training families only). A held-out family's record in `train` is an error."""
    held = set(families)
    leaked = [str(r["id"]) for r in splits["train"] if r.get("family") in held]
    if leaked:
        raise ValueError(f"records of held-out families in train: {leaked[:5]}")
    out = {"train": splits["train"]}
    for name in ("valid", "test"):
        out[name] = [r for r in splits[name] if r.get("family") not in held]
        out[f"heldout_{name}"] = [r for r in splits[name] if r.get("family") in held]
    return out
