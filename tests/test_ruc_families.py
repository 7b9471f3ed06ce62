"""RUC-synth style families: disjoint looks and wording, held-out families kept out of train."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from darkguard.config import load_params
from darkguard.ruc.split import hold_out, stratified_split
from darkguard.ruc.synth.families import FAMILIES, mixed_family
from darkguard.ruc.synth.spec import make_page, plan_pages
from darkguard.ruc.synth.style import FONTS
from darkguard.ruc.synth.wording import FAMILIES_WITH_BANKS, BankError, bank, check_bank, phrases

RUC = load_params()["data"]
FAM = RUC["families"]


@pytest.fixture(scope="module")
def plans():
    comp = RUC["composition"]
    families = (FAM["train"], FAM["heldout"], FAM["heldout_share"])
    return plan_pages(comp["normal"], comp["deceptive"], RUC["domains"], 42, RUC["split"], families)


def test_every_family_has_a_valid_bank() -> None:
    assert set(FAMILIES) == set(FAMILIES_WITH_BANKS)
    for family in FAMILIES:
        assert bank(family)


def test_families_share_no_phrase_palette_or_font() -> None:
    for a, b in itertools.combinations(sorted(FAMILIES), 2):
        assert not phrases(a) & phrases(b), (a, b, sorted(phrases(a) & phrases(b))[:5])
        assert not set(FAMILIES[a].palettes) & set(FAMILIES[b].palettes), (a, b)
        assert not set(FAMILIES[a].fonts) & set(FAMILIES[b].fonts), (a, b)


def test_a_malformed_bank_is_named() -> None:
    broken = dict(bank("plain"))
    broken["fear"] = [("Your device is at risk {time}", "Scan")]
    with pytest.raises(BankError, match=r"broken\.fear\[0\]\[0\].*placeholders"):
        check_bank("broken", broken)
    missing = {k: v for k, v in bank("plain").items() if k != "cues"}
    with pytest.raises(BankError, match="missing \\['cues'\\]"):
        check_bank("missing", missing)


def test_heldout_family_never_trains_and_fills_its_share(plans) -> None:
    records = [
        {"id": p.id, "type": p.type, "category": p.category, "family": p.family} for p in plans
    ]
    splits = hold_out(stratified_split(records, RUC["split"], 42), FAM["heldout"])
    assert {r["family"] for r in splits["train"]} == set(FAM["train"])
    for name in ("valid", "test"):
        assert {r["family"] for r in splits[name]} == set(FAM["train"])
        assert {r["family"] for r in splits[f"heldout_{name}"]} == set(FAM["heldout"])
        total = len(splits[name]) + len(splits[f"heldout_{name}"])
        assert abs(len(splits[f"heldout_{name}"]) - FAM["heldout_share"] * total) <= 4
    counts = Counter(r["family"] for r in splits["train"])
    assert max(counts.values()) - min(counts.values()) <= 4  # training families dealt evenly


def test_hold_out_refuses_a_held_out_page_in_train() -> None:
    splits = {"train": [{"id": "a", "family": "bold"}], "valid": [], "test": []}
    with pytest.raises(ValueError, match="held-out families in train"):
        hold_out(splits, ["bold"])


def test_a_page_speaks_its_family(plans) -> None:
    for family in FAMILIES:
        plan = next(p for p in plans if p.family == family and p.category == "Normal")
        spec = make_page(plan, RUC["viewports"], 42)
        assert spec.meta["family"] == family
        others = set().union(*(phrases(f) for f in FAMILIES if f != family))
        own = phrases(family)
        # the task comes from the family's own templates, and its card actions too
        labels = {a[0].lower() for d in bank(family)["actions"].values() for a in d}
        assert any(label in spec.html.lower() for label in labels)
        assert not any(
            f">{label}<" in spec.html.lower() for label in others - own if "{" not in label
        )


def test_unknown_or_overlapping_families_are_refused(tmp_path) -> None:
    from darkguard.config.sections import Families

    with pytest.raises(ValueError, match="both trained on and held out"):
        Families(train=["plain", "bold"], heldout=["bold"], heldout_share=0.5, mix_rate=0.0)
    with pytest.raises(ValueError, match="heldout_share"):
        Families(train=["plain"], heldout=["bold"], heldout_share=0.0, mix_rate=0.0)
    with pytest.raises(ValueError, match="mix_rate"):
        Families(train=["plain", "soft"], heldout=[], heldout_share=0.0, mix_rate=1.5)


def test_a_mixed_family_takes_each_attribute_from_a_member() -> None:
    members = ["plain", "soft", "dense"]
    fields = [f for f in vars(FAMILIES["plain"]) if f != "name"]
    rng = np.random.default_rng(0)
    mixes = [mixed_family(rng, members) for _ in range(50)]
    for mix in mixes:
        assert mix.name == "plain+soft+dense"
        for field in fields:
            assert getattr(mix, field) in [getattr(FAMILIES[m], field) for m in members], field
    # attributes are drawn one by one: most mixes are no single member
    alike = sum(any(vars(mix) | {"name": m} == vars(FAMILIES[m]) for m in members) for mix in mixes)
    assert alike < 5


def test_mixed_pages_are_train_pages_and_leave_valid_and_test_unchanged() -> None:
    comp = RUC["composition"]
    train, heldout = ["plain", "soft", "dense"], ["bold"]
    args = (comp["normal"], comp["deceptive"], RUC["domains"], 42, RUC["split"])
    pure = plan_pages(*args, (train, heldout, 0.5))
    mixed = plan_pages(*args, (train, heldout, 0.5), mix_rate=0.5)
    splits = stratified_split(
        [{"id": p.id, "type": p.type, "category": p.category} for p in pure], RUC["split"], 42
    )
    train_ids = {str(r["id"]) for r in splits["train"]}
    mixed_ids = {p.id for p in mixed if p.mix}
    assert mixed_ids <= train_ids
    assert abs(len(mixed_ids) - 0.5 * len(train_ids)) < 0.1 * len(train_ids)
    by_id = {p.id: p for p in pure}
    kept = [p for p in mixed if p.id not in mixed_ids]
    assert all(p == by_id[p.id] for p in kept)  # same family, same page
    page = next(p for p in kept if p.id not in train_ids)
    assert make_page(page, RUC["viewports"], 42) == make_page(by_id[page.id], RUC["viewports"], 42)
    own = set().union(*(phrases(f) for f in train))
    held = phrases("bold") - own
    for plan in [p for p in mixed if p.mix][:20]:
        spec = make_page(plan, RUC["viewports"], 42)
        assert spec.family == spec.meta["family"] == "plain+soft+dense"
        assert spec.meta["font"] in {FONTS.index(f) for m in train for f in FAMILIES[m].fonts}
        assert spec.meta["palette"] in {i for m in train for i in FAMILIES[m].palettes}
        assert not any(f">{label}<" in spec.html.lower() for label in held if "{" not in label)
    assert plan_pages(*args, (train, heldout, 0.5), mix_rate=0.0) == pure
