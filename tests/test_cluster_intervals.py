"""Intervals and paired tests of clustered outcomes (WebDecept's scenarios are all-or-nothing over
the same purchases): the cluster bootstrap, the effective number of independent outcomes, the
sign test over clusters."""

from __future__ import annotations

import pytest

from darkguard.metrics.intervals import (
    cluster_bootstrap,
    cluster_interval,
    cluster_sign_test,
    effective_n,
    mcnemar,
    wilson,
)

# 7 clusters of 6 outcomes, all-or-nothing: 3 clusters all 1, 4 all 0 (42 episodes, 7 outcomes)
ALL_OR_NOTHING = {f"c{i}": [int(i < 3)] * 6 for i in range(7)}
# 100 independent outcomes, 30 of them 1
SINGLETONS = {f"t{i:03d}": [int(i < 30)] for i in range(100)}


def _width(interval: tuple[float, float]) -> float:
    return interval[1] - interval[0]


def test_the_bootstrap_interval_contains_the_rate() -> None:
    for clusters, rate in ((ALL_OR_NOTHING, 100 * 3 / 7), (SINGLETONS, 30.0)):
        low, high = cluster_bootstrap(clusters)
        assert low < rate < high


def test_all_or_nothing_clusters_widen_the_interval_beyond_wilson() -> None:
    low, high = cluster_bootstrap(ALL_OR_NOTHING)
    assert (low, high) == (14.3, 85.7)  # 1 and 6 of the 7 clusters at the 2.5 / 97.5 percentiles
    assert _width((low, high)) > 2 * _width(wilson(18, 42))


def test_singleton_clusters_give_an_interval_of_wilsons_width() -> None:
    boot, exact = cluster_bootstrap(SINGLETONS), wilson(30, 100)
    assert abs(_width(boot) - _width(exact)) < 0.2 * _width(exact)
    assert abs(boot[0] - exact[0]) < 3 and abs(boot[1] - exact[1]) < 3


def test_effective_n_counts_clusters_when_they_are_all_or_nothing() -> None:
    assert abs(effective_n(ALL_OR_NOTHING) - 7) <= 1.5
    assert effective_n(SINGLETONS) == pytest.approx(100, abs=10) and effective_n(SINGLETONS) <= 100
    # no variance to estimate from: N
    assert effective_n({"a": [0, 0], "b": [0]}) == 3.0
    assert effective_n({"a": [1, 1], "b": [1]}) == 3.0
    assert effective_n({"a": [0, 1, 1]}) == 3.0  # one cluster: every resample is the same


def test_the_bootstrap_is_deterministic_and_follows_the_seed() -> None:
    mixed = {"a": [1, 0, 1], "b": [0, 0], "c": [1], "d": [0, 1, 1, 1], "e": [0]}
    first = (cluster_bootstrap(mixed), effective_n(mixed))
    assert first == (cluster_bootstrap(mixed), effective_n(mixed))
    # clusters are drawn in sorted key order: the mapping's order does not matter
    assert cluster_bootstrap(dict(reversed(mixed.items()))) == first[0]
    low, high = first[0]
    assert low < 100 * 7 / 13 < high and 5 < first[1] < 13
    assert cluster_bootstrap(mixed, seed=1) != cluster_bootstrap(mixed, seed=2)


def test_the_sign_test_counts_clusters_and_drops_ties() -> None:
    base = {f"s{i}": [1, 1, 0] for i in range(7)}
    other = {f"s{i}": [0, 0, 0] for i in range(5)} | {"s5": [1, 0, 1], "s6": [1, 1, 1]}
    # 5 lower, s5 tied (2 of 3 each), s6 higher
    assert cluster_sign_test(base, other) == (1, 5, mcnemar(1, 5))
    assert cluster_sign_test(base, other)[2] == 0.219
    lower = {f"s{i}": [0, 0, 0] for i in range(7)}
    five = {k: v for k, v in base.items() if k < "s5"}
    assert cluster_sign_test(five, {k: lower[k] for k in five}) == (0, 5, 0.0625)
    # means, not counts: 1 of 2 against 2 of 4 is a tie
    assert cluster_sign_test({"a": [1, 0]}, {"a": [1, 1, 0, 0]}) == (0, 0, 1.0)


def test_empty_or_malformed_input_is_refused_clearly() -> None:
    with pytest.raises(ValueError, match="no clusters"):
        cluster_bootstrap({})
    with pytest.raises(ValueError, match="no clusters"):
        effective_n({})
    with pytest.raises(ValueError, match="cluster 'b' has no outcomes"):
        cluster_bootstrap({"a": [1], "b": []})
    with pytest.raises(ValueError, match="must be 0 or 1"):
        cluster_bootstrap({"a": [2]})
    with pytest.raises(ValueError, match="draws must be positive"):
        cluster_bootstrap({"a": [1]}, draws=0)
    with pytest.raises(ValueError, match="no clusters"):
        cluster_sign_test({}, {})
    with pytest.raises(ValueError, match="same clusters"):
        cluster_sign_test({"a": [1]}, {"b": [1]})


def test_clusters_that_agree_still_get_an_interval_of_their_outcomes() -> None:
    """Every cluster at the same rate: the bootstrap alone has zero width; the printed interval
    holds the Wilson interval at the effective number of outcomes."""
    agree = {f"s{i}": [1, 1, 0] for i in range(5)}  # 10 of 15, every scenario 2 of 3
    assert cluster_bootstrap(agree) == (66.7, 66.7)
    assert cluster_interval(agree) == wilson(10, effective_n(agree))
    none = {f"s{i}": [0] * 6 for i in range(5)}
    assert cluster_interval(none) == wilson(0, 30) and cluster_interval(none)[1] > 10


def test_the_clustered_interval_is_never_narrower_than_the_bootstrap() -> None:
    for clusters in (ALL_OR_NOTHING, SINGLETONS):
        low, high = cluster_interval(clusters)
        b_low, b_high = cluster_bootstrap(clusters)
        assert low <= b_low and high >= b_high
