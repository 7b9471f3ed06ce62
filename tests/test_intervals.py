"""Wilson intervals and the exact McNemar test against values computed by hand."""

from __future__ import annotations

import pytest

from darkguard.metrics.intervals import interval_text, mcnemar, wilson


def test_wilson_matches_the_textbook_values():
    # 8 of 10: the Wilson 95% interval is [0.490, 0.943]
    assert wilson(8, 10) == (49.0, 94.3)
    assert wilson(0, 10) == (0.0, 27.8)
    assert wilson(10, 10) == (72.2, 100.0)
    assert wilson(0, 0) == (0.0, 0.0)
    assert interval_text(8, 10) == "[49.0, 94.3]"


def test_wilson_narrows_with_more_episodes():
    low_small, high_small = wilson(5, 10)
    low_big, high_big = wilson(50, 100)
    assert high_big - low_big < high_small - low_small


def test_mcnemar_exact_two_sided():
    assert mcnemar(0, 0) == 1.0
    # 6 discordant pairs all one way: 2 * (1/2)^6 = 0.03125
    assert mcnemar(6, 0) == pytest.approx(0.0312, abs=1e-4)
    assert mcnemar(0, 6) == mcnemar(6, 0)
    assert mcnemar(3, 3) == 1.0
    # 10 vs 2: 2 * P(X <= 2 | n=12, 1/2) = 2 * 79/4096
    assert mcnemar(10, 2) == float(f"{2 * 79 / 4096:.3g}")
    assert 0 < mcnemar(50, 0) < 1e-14  # a tiny p stays visible
