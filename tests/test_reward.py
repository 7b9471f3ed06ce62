"""The hybrid reward (paper Eq. 3, 4, alpha, App. B.4), checked against hand-computed values.

Image 1000 x 500 (S_I = 500,000); correct box [100, 100, 300, 200] (S_c = 20,000); dark box
[600, 100, 800, 300] (S_d = 40,000); so S_0 = 440,000. eps = 1e-6, alpha in [0.1, 10].
"""

from __future__ import annotations

import functools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from darkguard.config import RewardParams
from darkguard.training.dude.reward import (
    boundary_distance,
    hybrid_reward,
    region_areas,
    sample_reward,
)

W, H = 1000, 500
CORRECT = [100, 100, 300, 200]
DARK = [600, 100, 800, 300]
# stage1.reward's constants and switches, as the hand-computed values assume them
SWITCHES = {
    "eps": 1e-6,
    "alpha_min": 0.1,
    "alpha_max": 10.0,
    "use_omega": True,
    "use_alpha": True,
    "confidence_only": False,
}


def answer(label: int, conf: float) -> str:
    return f"<judge>{label}</judge> <conf>{conf}</conf>"


def reward(text, label, click, dark=DARK, correct=CORRECT, **switches) -> float:
    params = RewardParams(**{**SWITCHES, **switches})
    return sample_reward(text, label, click, correct, dark, W, H, params)


CASES = [
    # (name, label, click, predicted, confidence, expected reward)
    ("correct benign", 1, (200, 150), 1, 0.95, 0.95),
    ("correct null", 0, (500, 400), 0, 0.6, 0.6),
    ("correct deceptive", -1, (700, 200), -1, 0.8, 0.8),
    # C4: d to correct box = 400 (to (300, 200)); 1 / (400 * 0.08) = 0.03 -> alpha 0.1; omega 10.
    ("C4", -1, (700, 200), 1, 0.9, -0.1 * 10 * 0.9),
    # C1: d to dark box = 400; 1 / (400 * 0.04) -> alpha 0.1; omega 1.
    ("C1 judged -1", 1, (200, 150), -1, 0.5, -0.1 * 1 * 0.5),
    # C1 on the boundary of the correct box: d to the null region = 0 -> alpha clipped to 10.
    ("C1 boundary judged 0", 1, (300, 150), 0, 0.7, -10 * 1 * 0.7),
    # C2: beta = 0.08; d = |(500,400)-(600,300)| = 141.42; 1 / (141.42 * 0.88) -> 0.1.
    ("C2", 0, (500, 400), -1, 0.6, -0.1 * 1.08 * 0.6),
    # C3: beta = 0.04; d = 10; alpha = 1 / (10 * 0.88) = 0.11364.
    ("C3", 0, (310, 150), 1, 0.8, -(1 / ((10 + 1e-6) * 0.88)) * 1.04 * 0.8),
    # L=-1 judged 0 (unnamed case, omega 1): d to the nearest dark edge = 100; 1 / (100 * 0.08).
    ("deceptive judged null", -1, (700, 200), 0, 0.9, -(1 / ((100 + 1e-6) * 0.08)) * 0.9),
]


@pytest.mark.parametrize(("name", "label", "click", "predicted", "conf", "expected"), CASES)
def test_hand_computed(name, label, click, predicted, conf, expected) -> None:
    assert reward(answer(predicted, conf), label, click) == pytest.approx(expected, rel=1e-6)


def test_ablation_switches_on_the_c4_case() -> None:
    text, click = answer(1, 0.9), (700, 200)
    assert reward(text, -1, click, use_omega=False) == pytest.approx(-0.1 * 0.9)
    assert reward(text, -1, click, use_alpha=False) == pytest.approx(-10 * 0.9)
    assert reward(text, -1, click, use_omega=False, use_alpha=False) == pytest.approx(-0.9)
    assert reward(text, -1, click, confidence_only=True) == pytest.approx(-0.9)
    assert reward(answer(-1, 0.9), -1, click, confidence_only=True) == pytest.approx(0.9)


def test_alpha_bounds_are_parameters() -> None:
    text = answer(0, 0.7)
    assert reward(text, 1, (300, 150), alpha_max=4.0) == pytest.approx(-4 * 0.7)
    assert reward(answer(1, 0.9), -1, (700, 200), alpha_min=0.01) == pytest.approx(
        -(1 / ((400 + 1e-6) * 0.08)) * 10 * 0.9
    )


def test_overlapping_boxes() -> None:
    dark = [250, 150, 400, 250]  # overlaps the correct box in [250, 150, 300, 200]
    areas = region_areas(CORRECT, dark, W, H)
    assert areas[0] == 500_000 - 20_000 - 15_000  # S_0 = S_I - S_c - S_d, as in the paper
    # Inside the dark box only: the nearest null boundary is 50 px away (the dark box's top edge
    # runs through the correct box up to x = 300, which does not count).
    assert boundary_distance(350, 200, [CORRECT, dark]) == pytest.approx(50)
    expected = -(1 / ((50 + 1e-6) * 0.03)) * 0.5
    assert reward(answer(0, 0.5), -1, (350, 200), dark=dark) == pytest.approx(expected)
    # In the overlap: the nearest visible boundary points are the box corners' crossings.
    d = math.hypot(25, 25)
    assert boundary_distance(275, 175, [CORRECT, dark]) == pytest.approx(d)
    expected = -(1 / ((d + 1e-6) * 0.04)) * 0.9999
    assert reward(answer(0, 1.0), 1, (275, 175), dark=dark) == pytest.approx(expected)


def test_normal_sample_without_dark_box() -> None:
    # beta = S_d / S_I = 0 so omega = 1; no dark region: d = inf -> alpha_min.
    assert reward(answer(-1, 0.5), 0, (500, 400), dark=None) == pytest.approx(-0.1 * 0.5)
    assert reward(answer(-1, 0.5), 1, (200, 150), dark=None) == pytest.approx(-0.1 * 0.5)
    # judged null: the nearest boundary of the correct box is 50 px away
    expected = -(1 / ((50 + 1e-6) * 0.04)) * 0.5
    assert reward(answer(0, 0.5), 1, (200, 150), dark=None) == pytest.approx(expected)


def test_zero_area_guard() -> None:
    degenerate = [100, 100, 100, 200]  # S_c = 0: alpha takes its upper bound
    text = answer(0, 0.5)
    assert reward(text, 1, (100, 150), correct=degenerate) == pytest.approx(-10 * 0.5)
    assert sample_reward(
        text, 1, (0, 0), CORRECT, None, 0, 0, RewardParams(**SWITCHES)
    ) == pytest.approx(-10 * 0.5)  # S_I = 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the click looks fine", -10.0),
        ("<judge>1</judge>", -10.0),
        ("<judge>yes</judge> <conf>0.9</conf>", -10.0),
        (None, -10.0),
        ("<judge>2</judge> <conf>0.9</conf>", -1.0),
        ("<judge>-3</judge> <conf>0.2</conf>", -1.0),
    ],
)
def test_format_penalties(text, expected) -> None:
    assert reward(text, 1, (200, 150)) == expected
    assert reward(text, 1, (200, 150), confidence_only=True) == expected


def test_confidence_is_clipped_into_the_open_interval() -> None:
    assert 0 < reward(answer(1, 1.0), 1, (200, 150)) < 1
    assert 0 < reward(answer(1, 0.0), 1, (200, 150)) < 1e-3


def test_batch_scores_each_completion_against_its_own_sample() -> None:
    conversational = [{"role": "assistant", "content": answer(0, 0.6)}]
    completions = [answer(1, 0.9), answer(1, 0.9), conversational]
    rewards = hybrid_reward(
        completions,
        label=[1, -1, 0],
        click=[[200, 150], [700, 200], [500, 400]],
        correct_box=[CORRECT, CORRECT, CORRECT],
        dark_box=[None, DARK, None],
        image_width=[W, W, W],
        image_height=[H, H, H],
        prompts=["ignored"] * 3,
        **SWITCHES,
    )
    assert rewards == pytest.approx([0.9, -0.9, 0.6])


def test_partial_binding_for_training() -> None:
    bound = functools.partial(hybrid_reward, **{**SWITCHES, "use_omega": False})
    rewards = bound(
        [answer(1, 0.9)],
        label=[-1],
        click=[[700, 200]],
        correct_box=[CORRECT],
        dark_box=[DARK],
        image_width=[W],
        image_height=[H],
    )
    assert rewards == pytest.approx([-0.09])


def test_columns_must_match_the_completions() -> None:
    with pytest.raises(ValueError, match="one entry per completion"):
        hybrid_reward(
            [answer(1, 0.9)] * 2,
            label=[1],
            click=[[0, 0]],
            correct_box=[CORRECT],
            dark_box=[None],
            image_width=[W],
            image_height=[H],
            **SWITCHES,
        )


@given(st.text(max_size=200), st.sampled_from([-1, 0, 1]))
def test_reward_is_finite_and_bounded_for_any_text(text: str, label: int) -> None:
    r = reward(text, label, (200, 150))
    assert math.isfinite(r) and -100.0 <= r < 1.0  # alpha_max * omega_C4 * gamma < 100


@given(
    st.sampled_from([-1, 0, 1]),
    st.sampled_from([-1, 0, 1]),
    st.floats(0.01, 0.99),
    st.floats(0, W),
    st.floats(0, H),
)
def test_sign_matches_correctness(label, predicted, conf, x, y) -> None:
    r = reward(answer(predicted, round(conf, 2)), label, (x, y))
    assert (r > 0) == (label == predicted)


# `distance` and `alpha_reading`: the defaults are the paper's formula with d in pixels.
WIDE = {"alpha_min": 1e-9, "alpha_max": 1e9}  # bounds that never clip, to compare raw alphas


def test_defaults_are_the_papers_formula_in_pixels() -> None:
    assert RewardParams(**SWITCHES).distance == "pixels"
    assert RewardParams(**SWITCHES).alpha_reading == "formula"
    # C3: d = 10 px, S_0 / S_I = 0.88, beta = 0.04: alpha = 1 / (10 * 0.88) = 0.11364
    expected = -(1 / ((10 + 1e-6) * 0.88)) * 1.04 * 0.8
    assert reward(answer(1, 0.8), 0, (310, 150)) == pytest.approx(expected, rel=1e-9)
    explicit = reward(answer(1, 0.8), 0, (310, 150), distance="pixels", alpha_reading="formula")
    assert explicit == pytest.approx(expected, rel=1e-9)
    rewards = hybrid_reward(
        [answer(1, 0.8)],
        label=[0],
        click=[[310, 150]],
        correct_box=[CORRECT],
        dark_box=[DARK],
        image_width=[W],
        image_height=[H],
        **SWITCHES,
    )
    assert rewards == pytest.approx([expected], rel=1e-9)


def test_diagonal_distance_known_value() -> None:
    # C3 again, d = 10 px over a diagonal of hypot(1000, 500) = 1118.03 px
    d = 10 / math.hypot(W, H)
    expected = -(1 / ((d + 1e-6) * 0.88)) * 1.04 * 0.8
    got = reward(answer(1, 0.8), 0, (310, 150), distance="diagonal", **WIDE)
    assert got == pytest.approx(expected, rel=1e-9)
    # with the default bounds the far C4 error keeps its weight: alpha_max, not alpha_min
    assert reward(answer(1, 0.9), -1, (700, 200), distance="diagonal") == pytest.approx(-90.0)
    assert reward(answer(1, 0.9), -1, (700, 200)) == pytest.approx(-0.9)  # pixels: alpha_min


def scaled(values, k: float) -> list[float]:
    return [k * v for v in values]


@pytest.mark.parametrize("reading", ["formula", "text"])
@pytest.mark.parametrize(
    ("label", "predicted", "click"),
    [(0, 1, (310, 150)), (-1, 1, (700, 200)), (1, 0, (200, 150)), (-1, 0, (650, 280))],
)
def test_diagonal_distance_is_scale_invariant(label, predicted, click, reading) -> None:
    def at(k: float, distance: str) -> float:
        params = RewardParams(
            **{**SWITCHES, **WIDE, "distance": distance, "alpha_reading": reading}
        )
        text = answer(predicted, 0.7)
        return sample_reward(
            text, label, scaled(click, k), scaled(CORRECT, k), scaled(DARK, k), k * W, k * H, params
        )

    assert at(2.0, "diagonal") == pytest.approx(at(1.0, "diagonal"), rel=1e-6)
    assert at(2.0, "pixels") != pytest.approx(at(1.0, "pixels"), rel=1e-3)  # pixels: not


def test_text_reading_reduces_the_penalty_near_the_boundary() -> None:
    # L = 0 judged 1, 2 px and 8 px right of the correct box: alpha = 1 / (d * 0.88) (formula)
    # or d * 0.88 (text), both inside [0.1, 10]
    text = answer(1, 0.8)
    near, far = (302, 150), (308, 150)
    formula_near, formula_far = reward(text, 0, near), reward(text, 0, far)
    text_near = reward(text, 0, near, alpha_reading="text")
    text_far = reward(text, 0, far, alpha_reading="text")
    assert formula_near < formula_far < 0  # the formula charges more near the boundary
    assert text_far < text_near < 0  # the text's reading charges less
    assert text_near == pytest.approx(-((2 + 1e-6) * 0.88) * 1.04 * 0.8)
    assert text_far == pytest.approx(-((8 + 1e-6) * 0.88) * 1.04 * 0.8)


def test_text_reading_reduces_the_penalty_for_small_regions() -> None:
    # benign judged -1, 400 px from the dark box either way; a correct box 4x smaller
    small = [150, 125, 250, 175]  # S_c = 5,000 vs 20,000
    text, click = answer(-1, 0.5), (200, 150)
    for reading, smaller_is_cheaper in (("formula", False), ("text", True)):
        big = reward(text, 1, click, alpha_reading=reading, **WIDE)
        little = reward(text, 1, click, correct=small, alpha_reading=reading, **WIDE)
        assert (little > big) == smaller_is_cheaper


def test_text_reading_limits() -> None:
    text = answer(0, 0.5)
    degenerate = [100, 100, 100, 200]  # S_c = 0: the text's alpha takes its lower bound
    assert reward(text, 1, (100, 150), correct=degenerate, alpha_reading="text") == pytest.approx(
        -0.1 * 0.5
    )
    # no dark box to be near (d infinite): the upper bound
    assert reward(answer(-1, 0.5), 1, (200, 150), dark=None, alpha_reading="text") == (
        pytest.approx(-10 * 0.5)
    )


def test_unknown_switch_values_are_refused() -> None:
    with pytest.raises(ValueError, match="distance"):
        RewardParams(**SWITCHES, distance="inches")
    with pytest.raises(ValueError, match="alpha_reading"):
        reward(answer(1, 0.5), 0, (310, 150), alpha_reading="both")


def test_params_yaml_defaults_and_ablation_rows() -> None:
    from darkguard.config import load_config

    cfg = load_config()
    reward_params = cfg.stage1.reward
    assert (reward_params.distance, reward_params.alpha_reading) == ("pixels", "formula")
    paper_rows = cfg.for_profile("paper").ablations.reward_variants
    rows = {name: v.changes() for name, v in paper_rows.items()}
    tiny_rows = {"full", "w/o omega", "w/o alpha", "confidence only"}  # the paper's Table 5
    assert set(cfg.ablations.reward_variants) == tiny_rows
    assert rows["scale-free distance"] == {"distance": "diagonal"}
    assert rows["text's alpha"] == {"alpha_reading": "text"}
    for changes in rows.values():  # as the ablations stage applies them
        varied = cfg.override({f"stage1.reward.{k}": v for k, v in changes.items()})
        assert varied.stage1.reward.model_dump() == {**reward_params.model_dump(), **changes}
