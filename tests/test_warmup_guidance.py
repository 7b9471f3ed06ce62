"""Guidance blocks of the warm-up: one true rule per guided click, distractors about other facts."""

from __future__ import annotations

import re

import pytest

from darkguard.stages.build_models import guidance_corpus
from darkguard.training.dude.warmup import trl_rows
from darkguard.training.dude.warmup_guidance import clicks_facts, guidance_texts
from tests.test_warmup import fixture_clicks

RULE = re.compile(
    r"- Clicks on (?P<under>.+?) in the (?P<band>.+?) of the page "
    r"\(tasks like '(?P<verb>.+?) \.\.\.'\)"
    r" were judged .+? but were .+?: judge such clicks (?P<label>-?\d)\. \[persistence (?P<k>\d)\]"
)


def parsed(text: str) -> list[dict]:
    rules = [RULE.fullmatch(line) for line in text.splitlines()]
    assert all(rules), text
    return [m.groupdict() for m in rules]


def test_every_guided_click_has_exactly_one_rule_about_itself(release) -> None:
    clicks, records = fixture_clicks(release)
    facts = clicks_facts(clicks, records, release)
    texts = guidance_texts(clicks, records, release, 1.0, 3, 42)
    for click, fact, text in zip(clicks, facts, texts, strict=True):
        rules = parsed(text)
        assert 1 <= len(rules) <= 3
        own = [r for r in rules if {k: r[k] for k in ("under", "band", "verb")} == fact]
        assert len(own) == 1, text
        assert int(own[0]["label"]) == click["label"]
        assert 1 <= int(own[0]["k"]) <= 5


def own_rules(text: str, fact: dict) -> list[dict]:
    return [r for r in parsed(text) if {k: r[k] for k in ("under", "band", "verb")} == fact]


def test_without_own_rate_no_rule_speaks_of_the_click(release) -> None:
    clicks, records = fixture_clicks(release)
    facts = clicks_facts(clicks, records, release)
    texts = guidance_texts(clicks, records, release, 1.0, 3, 42, own_rate=0.0)
    guided = [(f, t) for f, t in zip(facts, texts, strict=True) if t is not None]
    assert guided
    for fact, text in guided:
        assert 1 <= len(parsed(text)) <= 3
        assert own_rules(text, fact) == [], text


def test_own_rate_is_the_share_of_blocks_with_the_clicks_rule(release) -> None:
    clicks, records = fixture_clicks(release)
    many = clicks * 20
    facts = clicks_facts(many, records, release)
    texts = guidance_texts(many, records, release, 1.0, 3, 42, own_rate=0.5)
    with_own = [bool(own_rules(t, f)) for f, t in zip(facts, texts, strict=True) if t]
    assert 0.35 < sum(with_own) / len(with_own) < 0.65


def test_guidance_rate_and_seed(release) -> None:
    clicks, records = fixture_clicks(release)
    none = guidance_texts(clicks, records, release, 0.0, 3, 42)
    assert none == [None] * len(clicks)
    half = guidance_texts(clicks * 20, records, release, 0.5, 3, 42)
    assert 0.35 < sum(t is not None for t in half) / len(half) < 0.65
    assert half == guidance_texts(clicks * 20, records, release, 0.5, 3, 42)
    assert half != guidance_texts(clicks * 20, records, release, 0.5, 3, 7)


def test_bad_guidance_settings_are_refused(release) -> None:
    clicks, records = fixture_clicks(release)
    with pytest.raises(ValueError, match=r"rate 1\.5"):
        guidance_texts(clicks, records, release, 1.5, 3, 42)
    with pytest.raises(ValueError, match="max_rules 0"):
        guidance_texts(clicks, records, release, 0.5, 0, 42)
    with pytest.raises(ValueError, match=r"own_rate -0\.1"):
        guidance_texts(clicks, records, release, 0.5, 3, 42, own_rate=-0.1)


SENTENCES = ["Book a table for two tonight.", "Read the latest article on the front page."]


def test_distractor_blocks_hold_only_the_sentences_and_no_rule(release) -> None:
    clicks, records = fixture_clicks(release)
    many = clicks * 20
    texts = guidance_texts(
        many, records, release, 1.0, 3, 42, distractor_rate=0.5, distractors=SENTENCES
    )
    fillers = [t for t in texts if not RULE.fullmatch(t.splitlines()[0])]
    assert 0.35 < len(fillers) / len(texts) < 0.65
    for text in fillers:
        lines = text.splitlines()
        assert set(lines) <= set(SENTENCES), text
        assert 30 <= len(text.split()) < 3 * 30 + 8  # about as long as 1..3 rules
    rules = [t for t in texts if RULE.fullmatch(t.splitlines()[0])]
    assert all(parsed(t) for t in rules)


def test_no_distractors_leaves_the_blocks_as_they_were(release) -> None:
    clicks, records = fixture_clicks(release)
    plain = guidance_texts(clicks * 5, records, release, 0.5, 3, 42, own_rate=0.5)
    zero = guidance_texts(
        clicks * 5, records, release, 0.5, 3, 42, own_rate=0.5, distractors=SENTENCES
    )
    assert plain == zero


def test_distractors_need_sentences(release) -> None:
    clicks, records = fixture_clicks(release)
    with pytest.raises(ValueError, match=r"distractor_rate 0\.5 needs distractor sentences"):
        guidance_texts(clicks, records, release, 1.0, 3, 42, distractor_rate=0.5)
    with pytest.raises(ValueError, match=r"distractor_rate 2"):
        guidance_texts(clicks, records, release, 1.0, 3, 42, distractor_rate=2, distractors=["a"])


def test_guided_rows_put_the_rules_in_the_guidance_block(release) -> None:
    clicks, records = fixture_clicks(release)
    texts = guidance_texts(clicks[:2], records, release, 1.0, 2, 42)
    rows = trl_rows(clicks[:2], records, release, 65536, (0.8, 0.8), guidance=[texts[0], None])
    system = rows[0]["prompt"][0]["content"][0]["text"]
    assert "[IMPORTANT GUIDANCE]" in system and texts[0] in system
    assert "[IMPORTANT GUIDANCE]" not in rows[1]["prompt"][0]["content"][0]["text"]


def test_guidance_corpus_parses_like_the_rules() -> None:
    corpus = guidance_corpus()
    assert len(corpus) == 4 * 3 * 2 * 9 - 3 * 2 * 9  # (predicted incl. unreadable) x truth, p != t
    assert all(parsed(line) for line in corpus)


def test_passes_over_clicks_that_revisit_pages_equal_one_click_at_a_time(release) -> None:
    """The facts and conversations of a list that revisits pages (train clicks, then their
    pages' text nulls) are built page by page (`page_order`) and returned in list order: each
    equals the one built for that click alone."""
    from darkguard.defenses.dude.inputs import ObservationAids
    from darkguard.ruc.clicks import page_order
    from darkguard.training.dude.labelled import click_conversations

    clicks, records = fixture_clicks(release)
    revisit = clicks + clicks[::-1]
    order = page_order(revisit, records)
    pages = [records[revisit[i]["sample_id"]]["image_path"] for i in order]
    assert sorted(order) == list(range(len(revisit)))
    runs = [page for i, page in enumerate(pages) if i == 0 or page != pages[i - 1]]
    assert len(runs) == len(set(runs)) > 1  # each page's clicks together, pages once each
    assert clicks_facts(revisit, records, release) == [
        clicks_facts([c], records, release)[0] for c in revisit
    ]
    aids = ObservationAids(zoom=True, ocr=False)
    together = click_conversations(release, revisit, records, None, aids, 65536)
    for click, conversation in zip(revisit, together, strict=True):
        (alone,) = click_conversations(release, [click], records, None, aids, 65536)
        assert _pixels(conversation) == _pixels(alone)


def _pixels(conversation: list) -> list:
    """A conversation with its images as bytes (PIL images compare by identity)."""
    return [
        [p["image"].tobytes() if p["type"] == "image" else p for p in m["content"]]
        if isinstance(m["content"], list)
        else m["content"]
        for m in conversation
    ]
