"""Does the evaluator follow the guidance block's content, or only react to extra prompt text?
The Stage-2 guidance check: the same clicks judged with no guidance, the experience, the experience
with its advised labels rotated, and unrelated text of the same length."""

from __future__ import annotations

import re

from darkguard.training.dude.stage2 import PoolJudge

PERMUTED = {"1": "-1", "-1": "0", "0": "1"}


def permute_labels(experience: str) -> str:
    """The experience with every rule's advised label rotated (1 -> -1 -> 0 -> 1): the same
    words and length, opposite advice."""

    def swap(match: re.Match) -> str:
        return f"judge such clicks {PERMUTED[match.group(1)]}"

    return re.sub(r"judge such clicks (-1|0|1)", swap, experience)


def unrelated_text(n_words: int) -> str:
    """Neutral filler of about `n_words` words (no advice)."""
    sentence = "The page layout uses a header, a content area and a footer."
    words = (sentence + " ") * (n_words // 12 + 1)
    return " ".join(words.split()[:n_words])


def guidance_check(judge: PoolJudge, clicks: list[dict], experience: str) -> list[dict]:
    """Does the evaluator follow the experience's content or only react to extra prompt text?
    Pass rate and share of decisions changed (vs no experience) for: no experience, the final
    experience, the same experience with its advised labels rotated, and unrelated text of the
    same length."""
    variants = {
        "no experience": "",
        "final experience": experience,
        "advised labels rotated": permute_labels(experience),
        "unrelated text, same length": unrelated_text(len(experience.split())),
    }
    base = judge.labels(clicks, "")
    rows = []
    for name, text in variants.items():
        labels = base if not text else judge.labels(clicks, text)
        right = sum(p == c["label"] for p, c in zip(labels, clicks, strict=True))
        changed = sum(a != b for a, b in zip(labels, base, strict=True))
        rows.append(
            {
                "guidance": name,
                "pass_rate": round(right / len(clicks), 4),
                "decisions_changed": round(changed / len(clicks), 4),
            }
        )
    return rows
