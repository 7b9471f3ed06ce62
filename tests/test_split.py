"""The stratified split: paper Table 13 exactly, determinism, and sizes for any composition."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from darkguard.config import load_params
from darkguard.ruc.split import SPLITS, split_sizes, stratified_split

FRACTIONS = {"train": 0.70, "valid": 0.15, "test": 0.15}


def make_records(normal: int, deceptive: dict[str, int]) -> list[dict]:
    records = [{"id": f"n{i}", "type": "Normal", "category": "Normal"} for i in range(normal)]
    for cat, n in deceptive.items():
        records += [{"id": f"{cat}{i}", "type": "Deception", "category": cat} for i in range(n)]
    return records


def by_type(split: list[dict]) -> tuple[int, int]:
    c = Counter(r["type"] for r in split)
    return c["Normal"], c["Deception"]


def test_default_composition_reproduces_table_13() -> None:
    comp = load_params()["data"]["composition"]
    splits = stratified_split(make_records(comp["normal"], comp["deceptive"]), FRACTIONS, 42)
    assert by_type(splits["train"]) == (637, 348)
    assert by_type(splits["valid"]) == (137, 75)
    assert by_type(splits["test"]) == (136, 74)


def test_split_is_deterministic_and_seeded() -> None:
    records = make_records(50, {"A": 20, "B": 13})
    a = stratified_split(records, FRACTIONS, 42)
    b = stratified_split(list(reversed(records)), FRACTIONS, 42)
    c = stratified_split(records, FRACTIONS, 7)
    ids = lambda s: {k: sorted(r["id"] for r in v) for k, v in s.items()}  # noqa: E731
    assert ids(a) == ids(b)
    assert ids(a) != ids(c)


def test_every_category_is_in_every_split() -> None:
    splits = stratified_split(make_records(100, {"A": 40, "B": 30, "C": 20}), FRACTIONS, 42)
    for name in SPLITS:
        assert {r["category"] for r in splits[name]} == {"Normal", "A", "B", "C"}


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2000), st.dictionaries(st.sampled_from("ABCD"), st.integers(0, 300)))
def test_sizes_partition_every_stratum(normal: int, deceptive: dict[str, int]) -> None:
    counts = {"Normal": {"Normal": normal}, "Deception": deceptive or {"A": 0}}
    sizes = split_sizes(counts, FRACTIONS)
    for (rtype, cat), s in sizes.items():
        assert min(s.values()) >= 0
        assert sum(s.values()) == counts[rtype][cat]
    for rtype, cats in counts.items():
        n = sum(cats.values())
        train = sum(s["train"] for (t, _), s in sizes.items() if t == rtype)
        assert train == int(0.7 * n + 0.5 + 1e-9)  # round half up per type
