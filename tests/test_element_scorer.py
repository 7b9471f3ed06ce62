"""The offline agent's element scorer: features, the weights file, the untrained fallback and the
listwise fit (no browser)."""

from __future__ import annotations

import numpy as np
import pytest

from darkguard.agents.web.element_scorer import (
    DENSE_FEATURES,
    EMBED_DIM,
    ElementScorer,
    ScorerWeights,
    element_features,
)
from darkguard.agents.web.grounding import Grounder
from darkguard.envs.arena.observation import Element, PageObservation


def _el(i: int, name: str, role: str = "button", prominence: float = 1.0, **kw) -> Element:
    return Element(i, role, name, name, "", kw.pop("state", {}), (10, 40 * i, 120, 30),
                   prominence, False, kw.pop("in_dialog", False))  # fmt: skip


def _obs(*els: Element, text: str = "A page") -> PageObservation:
    return PageObservation("goal", "http://127.0.0.1/x", "Title", text, tuple(els), 0, 10)


def test_features_have_one_row_per_element_and_fixed_width():
    grounder = Grounder(embeddings=False)
    obs = _obs(_el(0, "Help"), _el(1, "Download the annual report", "link"))
    x = element_features("Download the annual report", obs, obs.elements, grounder, [0, 2])
    assert x.shape == (2, len(DENSE_FEATURES) + EMBED_DIM)
    col = DENSE_FEATURES.index
    assert x[1, col("goal_in_name")] == 1.0 and x[0, col("goal_in_name")] == 0.0
    assert x[0, col("tried")] == 0.0 and x[1, col("tried")] == 1.0
    assert x[1, col("role_link")] == 1.0 and x[0, col("role_button")] == 1.0
    assert not x[:, len(DENSE_FEATURES) :].any()  # no MiniLM: no embedding


def test_untrained_scorer_prefers_the_goal_s_words_and_avoids_tried():
    scorer = ElementScorer(Grounder(embeddings=False), weights=None)
    scorer.weights = None
    obs = _obs(_el(0, "About us"), _el(1, "Weekly digest"), _el(2, "Save"))
    scores = scorer.scores("Switch the digest to weekly", obs, obs.elements)
    assert int(np.argmax(scores)) == 1
    scores = scorer.scores("Switch the digest to weekly", obs, obs.elements, tried=[0, 2, 0])
    assert int(np.argmax(scores)) != 1
    assert scorer.done(obs) == 0.0


def test_weights_round_trip_and_bad_files_name_the_field(tmp_path):
    n = len(DENSE_FEATURES) + EMBED_DIM
    w = ScorerWeights(np.linspace(-1, 1, n), np.linspace(0, 1, EMBED_DIM + 1), {"l2": 0.001})
    path = tmp_path / "w.json"
    w.save(path)
    back = ScorerWeights.load(path)
    assert back is not None and back.meta == {"l2": 0.001}
    assert np.allclose(back.weights, w.weights, atol=1e-5)
    assert ScorerWeights.load(tmp_path / "missing.json") is None
    path.write_text(path.read_text().replace('"weights": [', '"weights": [0.5, '))
    with pytest.raises(ValueError, match=r"w\.json: field 'weights'"):
        ScorerWeights.load(path)


def test_the_shipped_weights_load_and_say_what_they_were_trained_on():
    weights = ScorerWeights.load()
    assert weights is not None, "element_scorer.json ships with the package"
    assert "dev" in weights.meta["trained_on"]


def test_listwise_fit_learns_to_rank_the_demonstrated_control():
    from darkguard.training.arena_scorer import Demo, fit, top1

    grounder = Grounder(embeddings=False)
    demos = []
    for k in range(12):  # the clicked control is always the one named in the goal
        els = [_el(0, "Help"), _el(1, f"Item {k} details"), _el(2, "About", prominence=3.0)]
        obs = _obs(*els)
        demos.append(Demo(f"t{k}", f"Open item {k} details", obs, 1, (0, 1, 2), False))
        done = _obs(_el(0, "Home"), text="Finished")
        demos.append(Demo(f"t{k}", f"Open item {k} details", done, -1, (), True))
    weights, design = fit(demos, grounder, l2=1e-3, steps=300)
    assert top1(weights.weights, design) == 1.0
    assert weights.meta["pages"] == 12 and weights.meta["done_pages"] == 12
