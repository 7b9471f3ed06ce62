"""Guidance blocks for the warm-up, so that a tiny evaluator learns to read Stage-2 experience.

A tiny evaluator warmed up without guidance never saw the `[IMPORTANT GUIDANCE]` block and would
ignore (or be confused by) any experience, making Stage 2 a no-op. Here a share of the warm-up
prompts carries a guidance block in the offline summarizer's wording: 1..n rules in random order.
In a share of the guided prompts one rule describes the click itself (its place on the page, what
lies under it, the task's verb) and advises its true label; every other rule describes another
click whose facts differ. To answer right, the evaluator has to find the rule that matches its
click and follow it, and judge from the screenshot when no rule matches (the Stage-2 experience
and a safety prompt mostly do not speak of the click being judged). A share of the guided
prompts may instead carry text that advises nothing (the train pages' task texts): the evaluator
learns that a block which is not a rule about its click leaves its judgement where it was.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from darkguard import cache
from darkguard.ruc import schema
from darkguard.ruc.clicks import page_order
from darkguard.training.dude.summarizers import click_facts, rule_line

LABELS = (1, 0, -1)
RULE_WORDS = 30  # about the words of one rule in the offline summarizer's wording


def clicks_facts(clicks: list[dict], records: dict[str, dict], data_dir: Path) -> list[dict]:
    """`click_facts` of every click, each screenshot opened once (`page_order`)."""
    facts: list[dict] = [{}] * len(clicks)
    for i in page_order(clicks, records):
        click = clicks[i]
        record = records[click["sample_id"]]
        image = cache.decoded(Path(data_dir) / record["image_path"])
        facts[i] = click_facts(image, click["x"], click["y"], schema.task_text(record))
    return facts


def guidance_texts(
    clicks: list[dict],
    records: dict[str, dict],
    data_dir: Path,
    rate: float,
    max_rules: int,
    seed: int,
    own_rate: float = 1.0,
    distractor_rate: float = 0.0,
    distractors: Sequence[str] = (),
) -> list[str | None]:
    """One guidance text per click (None for the share `1 - rate` without guidance).

    A guided click gets k ~ U{1..max_rules} rules, shuffled: with probability `own_rate` its own
    (a wrong judgement it might make, its true label, a persistence count in 1..5) and k-1 rules
    of other clicks with different facts, otherwise k rules of other clicks only. With
    probability `distractor_rate` a guided click's block is instead about as many words of
    `distractors` (sentences that advise nothing), drawn at random. Deterministic by `seed`."""
    for name, value in (
        ("rate", rate),
        ("own_rate", own_rate),
        ("distractor_rate", distractor_rate),
    ):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"guidance {name} {value} is not in [0, 1]")
    if max_rules < 1:
        raise ValueError(f"max_rules {max_rules} must be at least 1")
    if distractor_rate > 0 and not distractors:
        raise ValueError(f"distractor_rate {distractor_rate} needs distractor sentences")
    rng = random.Random(seed)
    facts = clicks_facts(clicks, records, data_dir) if rate > 0 else []
    texts: list[str | None] = []
    for i, click in enumerate(clicks):
        if rng.random() >= rate:
            texts.append(None)
            continue
        # no draw when no block is a distractor: the seeded stream stays as it was without them
        if distractor_rate > 0 and rng.random() < distractor_rate:
            words = RULE_WORDS * rng.randint(1, max_rules)
            texts.append(_filler(distractors, words, rng))
            continue
        # no draw when every block has one: the seeded stream of own_rate 1 stays as it was
        own = own_rate >= 1.0 or rng.random() < own_rate
        rules = [_rule(click["label"], facts[i], rng)] if own else []
        for _ in range(rng.randint(1, max_rules) - own):
            other = _other_click(i, facts, rng)
            if other is not None:
                rules.append(_rule(clicks[other]["label"], facts[other], rng))
        rng.shuffle(rules)
        texts.append("\n".join(rules) if rules else None)
    return texts


def _filler(sentences: Sequence[str], words: int, rng: random.Random) -> str:
    """Random `sentences`, one per line, until they hold at least `words` words."""
    lines: list[str] = []
    while sum(len(line.split()) for line in lines) < words:
        lines.append(rng.choice(sentences))
    return "\n".join(lines)


def _rule(truth: int, facts: dict, rng: random.Random) -> str:
    wrong = rng.choice([label for label in LABELS if label != truth])
    return rule_line(wrong, truth, facts, rng.randint(1, 5))


def _other_click(i: int, facts: list[dict], rng: random.Random, tries: int = 20) -> int | None:
    """A random other click whose facts differ from click i's (None if none found)."""
    for _ in range(tries):
        j = rng.randrange(len(facts))
        if j != i and facts[j] != facts[i]:
            return j
    return None
