"""RUC-synth page generation (no browser): plan, determinism, markup, no giveaway features."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from darkguard.config import load_params
from darkguard.ruc.schema import DECEPTION_CATEGORIES
from darkguard.ruc.synth.patterns import PATTERNS
from darkguard.ruc.synth.spec import make_page, plan_pages

RUC = load_params()["data"]
VIEWPORTS = RUC["viewports"]


@pytest.fixture(scope="module")
def plans():
    comp = RUC["composition"]
    families = RUC["families"]
    plan = (families["train"], families["heldout"], families["heldout_share"])
    return plan_pages(comp["normal"], comp["deceptive"], RUC["domains"], 42, RUC["split"], plan)


def test_plan_matches_composition_and_balances_domains(plans) -> None:
    comp = RUC["composition"]
    by_cat = Counter(p.category for p in plans)
    assert by_cat["Normal"] == comp["normal"] == 910
    assert {c: by_cat[c] for c in DECEPTION_CATEGORIES} == comp["deceptive"]
    assert sum(by_cat.values()) == 1407
    for cat in by_cat:
        per_domain = Counter(p.domain for p in plans if p.category == cat)
        assert max(per_domain.values()) - min(per_domain.values()) <= 1
    assert len({p.id for p in plans}) == len(plans)


def test_pages_are_deterministic(plans) -> None:
    for plan in plans[:20]:
        assert make_page(plan, VIEWPORTS, 42).html == make_page(plan, VIEWPORTS, 42).html
    assert make_page(plans[0], VIEWPORTS, 42).html != make_page(plans[0], VIEWPORTS, 7).html


def test_markup_and_tasks(plans) -> None:
    variants = Counter()
    for plan in plans[:400]:
        spec = make_page(plan, VIEWPORTS, 42)
        assert spec.html.count('data-dg="correct"') == 1, spec.id
        assert spec.html.count('data-dg="dark"') == (plan.type == "Deception"), spec.id
        assert spec.task and spec.task.endswith("."), spec.id
        assert [spec.width, spec.height] in VIEWPORTS
        assert "http://" not in spec.html and "https://" not in spec.html  # fully offline
        variants[(plan.category, spec.meta["variant"])] += 1
    for category in DECEPTION_CATEGORIES:  # every pattern of every category occurs
        for name in PATTERNS[category]:
            assert variants[(category, name)] > 0, (category, name)


def test_no_style_feature_gives_the_deceptive_element_away(plans) -> None:
    """Best accuracy of telling dark from correct by the element's button style alone."""
    tag = re.compile(r'<(\w+)([^>]*?)data-dg="(correct|dark)"')
    counts: Counter = Counter()
    for plan in [p for p in plans if p.type == "Deception"][:300]:
        for m in tag.finditer(make_page(plan, VIEWPORTS, 42).html):
            kind = re.search(r"btn-(\w+)", m.group(2))
            counts[(kind.group(1) if kind else m.group(1), m.group(3))] += 1
    kinds = {k for k, _ in counts}
    best = sum(max(counts[(k, "correct")], counts[(k, "dark")]) for k in kinds)
    assert best / sum(counts.values()) < 0.75
