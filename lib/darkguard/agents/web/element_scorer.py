"""The element scorer: which control of a page a user working towards the goal clicks next.

A listwise linear model over per-element features: MiniLM similarities of the goal to the
element's name and context, token overlap, the element's role, prominence relative to the page,
position, whether it sits in a dialog, its toggle state, how often it was already clicked, and the
MiniLM embedding of its name (what a control does, in any wording: "Continue", "Next step",
"Proceed to payment" lie close together). The page's candidates are scored and the agent takes the
best; its weights are learned by imitation of careful users on the clean twins of arena-synth's
`dev` split (`darkguard.training.arena_scorer`), so it knows forward progress and the goal's own
words, never a deceptive pattern: every habit it has (keep defaults, prefer the prominent control)
comes from pages without one.

The weights ship with the package (`element_scorer.json`, written by `darkguard arena
train-scorer`); without them (or without MiniLM) the score is the goal similarity alone.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from darkguard.agents.web.grounding import EMBED_CHARS, Grounder, overlap
from darkguard.envs.arena.observation import Element, PageObservation

WEIGHTS_FILE = Path(__file__).with_name("element_scorer.json")
EMBED_DIM = 384  # MiniLM-L6
ROLE_GROUPS: tuple[tuple[str, frozenset[str]], ...] = (
    ("button", frozenset({"button", "menuitem", "summary"})),
    ("link", frozenset({"link", "tab"})),
    ("toggle", frozenset({"checkbox", "switch"})),
    ("radio", frozenset({"radio", "option"})),
    ("text", frozenset({"textbox", "searchbox", "spinbutton"})),
    ("select", frozenset({"combobox", "listbox"})),
)
DENSE_FEATURES: tuple[str, ...] = (
    "bias",
    "goal_name_cos",
    "goal_context_cos",
    "name_in_goal",
    "goal_in_name",
    "prominence_rel",
    "most_prominent",
    "y_rel",
    "in_dialog",
    "checked",
    "tried",
    "tried_name",
    "name_words",
    "empty_name",
    *(f"role_{name}" for name, _ in ROLE_GROUPS),
    "role_other",
)


@dataclass(frozen=True)
class ScorerWeights:
    """A linear model over `DENSE_FEATURES` followed by the name embedding, and the completion
    model: a logistic model over a bias and the embedding of the page's head (`page_head`)."""

    weights: np.ndarray
    done: np.ndarray
    meta: dict

    def save(self, path: Path | str) -> None:
        doc = {
            "meta": self.meta,
            "features": [*DENSE_FEATURES, f"name_embedding[{EMBED_DIM}]"],
            "weights": [round(float(w), 5) for w in self.weights],
            "done": [round(float(w), 5) for w in self.done],
        }
        Path(path).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path | str = WEIGHTS_FILE) -> ScorerWeights | None:
        path = Path(path)
        if not path.is_file():
            return None
        doc = json.loads(path.read_text(encoding="utf-8"))
        weights = np.asarray(doc["weights"], dtype=np.float64)
        done = np.asarray(doc["done"], dtype=np.float64)
        for name, have, want in (
            ("weights", weights, len(DENSE_FEATURES) + EMBED_DIM),
            ("done", done, 1 + EMBED_DIM),
        ):
            if have.shape != (want,):
                raise ValueError(f"{path}: field {name!r}: {want} numbers, not {have.size}")
        return cls(weights, done, dict(doc.get("meta", {})))


def page_head(obs: PageObservation) -> str:
    """What the completion model reads of a page: its title and the start of its text."""
    return f"{obs.title}. {' '.join(obs.text.split())[:300]}"


def page_features(obs: PageObservation, grounder: Grounder) -> np.ndarray:
    """A bias and the embedding of the page's head (zeros without MiniLM)."""
    head = page_head(obs)
    v = grounder.encode([head]).get(head[:EMBED_CHARS])
    return np.concatenate([[1.0], v if v is not None else np.zeros(EMBED_DIM)])


def _role_group(role: str) -> str:
    return next((name for name, roles in ROLE_GROUPS if role in roles), "other")


def element_features(
    goal: str,
    obs: PageObservation,
    els: Sequence[Element],
    grounder: Grounder,
    tried: Sequence[int] = (),
    tried_name: Sequence[int] = (),
) -> np.ndarray:
    """One row per element: the dense features, then the name's embedding (zeros without
    MiniLM). `tried` / `tried_name`: clicks of the element on this page / of its name anywhere."""
    n = len(els)
    if n == 0:
        return np.zeros((0, len(DENSE_FEATURES) + EMBED_DIM))
    names = [e.name.strip() or e.text.strip() for e in els]
    contexts = [e.context.strip()[:EMBED_CHARS] for e in els]
    vectors = grounder.encode([goal, *names, *contexts])
    g = vectors.get(goal[:EMBED_CHARS])

    def cos(text: str) -> float:
        v = vectors.get(text[:EMBED_CHARS]) if text else None
        return float(g @ v) if g is not None and v is not None else 0.0

    top = max((e.prominence for e in els), default=0.0) or 1.0
    bottom = max((e.box[1] + e.box[3] for e in els), default=0) or 1
    dense = np.zeros((n, len(DENSE_FEATURES)))
    embed = np.zeros((n, EMBED_DIM))
    column = {name: i for i, name in enumerate(DENSE_FEATURES)}
    for i, (el, name, ctx) in enumerate(zip(els, names, contexts, strict=True)):
        row = {
            "bias": 1.0,
            "goal_name_cos": cos(name),
            "goal_context_cos": cos(ctx),
            "name_in_goal": overlap(name, goal),
            "goal_in_name": overlap(goal, f"{name} {ctx}"),
            "prominence_rel": el.prominence / top,
            "most_prominent": float(el.prominence >= top),
            "y_rel": (el.box[1] + el.box[3] / 2) / bottom,
            "in_dialog": float(el.in_dialog),
            "checked": float(bool(el.state.get("checked") or el.state.get("pressed"))),
            "tried": min(tried[i] if i < len(tried) else 0, 2) / 2,
            "tried_name": min(tried_name[i] if i < len(tried_name) else 0, 3) / 3,
            "name_words": min(len(name.split()), 12) / 12,
            "empty_name": float(not name),
            f"role_{_role_group(el.role)}": 1.0,
        }
        for key, value in row.items():
            dense[i, column[key]] = value
        v = vectors.get(name[:EMBED_CHARS]) if name else None
        if v is not None:
            embed[i] = v
    return np.hstack([dense, embed])


class ElementScorer:
    """Scores a page's candidate elements for the goal (higher: click it next)."""

    def __init__(self, grounder: Grounder, weights: ScorerWeights | None = None) -> None:
        self.grounder = grounder
        self.weights = weights if weights is not None else ScorerWeights.load()

    def scores(
        self,
        goal: str,
        obs: PageObservation,
        els: Sequence[Element],
        tried: Sequence[int] = (),
        tried_name: Sequence[int] = (),
    ) -> np.ndarray:
        feats = element_features(goal, obs, els, self.grounder, tried, tried_name)
        if self.weights is None:  # untrained: the goal's similarity, less what was tried
            col = DENSE_FEATURES.index
            return (
                feats[:, col("goal_name_cos")]
                + feats[:, col("goal_in_name")]
                - feats[:, col("tried")]
            )
        return feats @ self.weights.weights

    def done(self, obs: PageObservation) -> float:
        """The completion model's probability that the page shows the task done (0 untrained)."""
        if self.weights is None:
            return 0.0
        z = float(page_features(obs, self.grounder) @ self.weights.done)
        return 1.0 / (1.0 + np.exp(-z))
