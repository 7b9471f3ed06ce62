"""Intervals and paired tests for rates of episodes (exact arithmetic, no float-bit dependence in
what tables print).

- `wilson(k, n)`: the Wilson score interval of a proportion, in percent (95% by default);
- `mcnemar(b, c)`: the exact two-sided McNemar test of paired binary outcomes (b and c are the
  discordant counts: pairs where only the first, or only the second, is 1);
- `cluster_bootstrap(values_by_cluster)`: the 95% percentile interval of a rate whose outcomes
  come in clusters (outcomes of one cluster move together), whole clusters resampled;
- `effective_n(values_by_cluster)`: how many independent outcomes the clustered ones are worth
  (p(1-p) over the bootstrap variance of the rate; at most N);
- `cluster_interval(values_by_cluster)`: the interval a table prints for a clustered rate: the
  cluster bootstrap's, widened to hold the Wilson interval at the effective number of outcomes
  (the bootstrap alone has zero width when every cluster has the same rate);
- `cluster_sign_test(base, other)`: the paired test of clustered outcomes: clusters where
  `other`'s mean is higher, lower, and the exact two-sided sign-test p (ties dropped).

The bootstrap draws clusters with `numpy.random.default_rng(seed)` in sorted key order and
computes every rate as an exact fraction of integer counts, so its results depend only on the
inputs, the draws and the seed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction

import numpy as np


def wilson(k: float, n: float, z: float = 1.959964) -> tuple[float, float]:
    """The (low, high) Wilson interval of k successes in n, in percent, one decimal (k and n may
    be fractional: an effective number of outcomes)."""
    if n <= 0:
        return (0.0, 0.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (round(100 * max(0.0, centre - half), 1), round(100 * min(1.0, centre + half), 1))


def mcnemar(b: int, c: int) -> float:
    """The exact two-sided p-value of McNemar's test (a binomial test of b against b + c at 1/2),
    to three significant digits (a tiny p stays visible: 1.78e-15, not 0); 1.0 without
    discordant pairs."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2**n
    return float(f"{min(1.0, 2 * tail):.3g}")


def interval_text(k: int, n: int) -> str:
    """`[low, high]` of the Wilson interval, for a table cell."""
    low, high = wilson(k, n)
    return f"[{low:.1f}, {high:.1f}]"


def _cluster_counts(values_by_cluster: Mapping[str, Sequence[int]]) -> list[tuple[int, int]]:
    """(outcomes equal to 1, outcomes) per cluster, clusters in sorted key order."""
    if not values_by_cluster:
        raise ValueError("no clusters: a clustered rate needs at least one cluster")
    counts = []
    for key in sorted(values_by_cluster):
        values = list(values_by_cluster[key])
        if not values:
            raise ValueError(f"cluster {key!r} has no outcomes")
        if any(v not in (0, 1) for v in values):
            raise ValueError(f"cluster {key!r}: outcomes must be 0 or 1")
        counts.append((int(sum(values)), len(values)))
    return counts


def _bootstrap_rates(counts: list[tuple[int, int]], draws: int, seed: int) -> Counter:
    """How often each rate (an exact fraction) comes up among `draws` resamples of the clusters."""
    if draws < 1:
        raise ValueError(f"draws must be positive, got {draws}")
    ones = np.array([k for k, _ in counts], dtype=np.int64)
    sizes = np.array([n for _, n in counts], dtype=np.int64)
    picks = np.random.default_rng(seed).integers(0, len(counts), size=(draws, len(counts)))
    totals = zip(ones[picks].sum(axis=1).tolist(), sizes[picks].sum(axis=1).tolist(), strict=True)
    return Counter(Fraction(k, n) for k, n in totals)


def _quantile(rates: Counter, q: Fraction) -> Fraction:
    """The q-quantile of the drawn rates, linear between order statistics (numpy's default)."""
    ordered = [rate for rate in sorted(rates) for _ in range(rates[rate])]
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (position - below) * (ordered[above] - ordered[below])


def _percent(rate: Fraction) -> float:
    return float(round(100 * rate, 1))


def cluster_bootstrap(
    values_by_cluster: Mapping[str, Sequence[int]], draws: int = 2000, seed: int = 42
) -> tuple[float, float]:
    """The (low, high) 95% percentile interval, in percent (one decimal), of the overall rate
    (ones / outcomes) of 0/1 outcomes grouped in clusters, resampling whole clusters."""
    rates = _bootstrap_rates(_cluster_counts(values_by_cluster), draws, seed)
    return _percent(_quantile(rates, Fraction(1, 40))), _percent(_quantile(rates, Fraction(39, 40)))


def effective_n(
    values_by_cluster: Mapping[str, Sequence[int]], draws: int = 2000, seed: int = 42
) -> float:
    """The effective number of independent outcomes, p(1-p) / Var_boot(p) (N over the design
    effect), at most N, one decimal. N when p is 0 or 1, or when the resamples do not vary (one
    cluster): there is no variance to estimate it from."""
    counts = _cluster_counts(values_by_cluster)
    n = sum(size for _, size in counts)
    p = Fraction(sum(k for k, _ in counts), n)
    rates = _bootstrap_rates(counts, draws, seed)
    draws_ = sum(rates.values())
    mean = sum(rate * c for rate, c in rates.items()) / draws_
    variance = sum((rate - mean) ** 2 * c for rate, c in rates.items()) / draws_
    if p in (0, 1) or variance == 0:
        return float(n)
    return float(round(min(Fraction(n), p * (1 - p) / variance), 1))


def cluster_interval(
    values_by_cluster: Mapping[str, Sequence[int]], draws: int = 2000, seed: int = 42
) -> tuple[float, float]:
    """The (low, high) 95% interval of a clustered rate, in percent: the hull of the cluster
    bootstrap's percentile interval and the Wilson interval at the effective number of outcomes.
    Resampling clusters that all have the same rate (or a rate of 0 or 1) gives the same rate
    every time, a zero-width interval that only says the clusters agree; the Wilson term keeps
    what the number of outcomes allows."""
    low, high = cluster_bootstrap(values_by_cluster, draws, seed)
    counts = _cluster_counts(values_by_cluster)
    n_eff = effective_n(values_by_cluster, draws, seed)
    p = Fraction(sum(k for k, _ in counts), sum(size for _, size in counts))
    w_low, w_high = wilson(float(p) * n_eff, n_eff)
    return min(low, w_low), max(high, w_high)


def cluster_sign_test(
    base_by_cluster: Mapping[str, Sequence[int]], other_by_cluster: Mapping[str, Sequence[int]]
) -> tuple[int, int, float]:
    """Clusters where `other`'s mean outcome is higher than `base`'s, clusters where it is lower
    (ties dropped), and the exact two-sided sign-test p (`mcnemar`, the same binomial test).
    Both must have the same clusters."""
    if set(base_by_cluster) != set(other_by_cluster):
        raise ValueError("the paired sets must have the same clusters")
    base = dict(zip(sorted(base_by_cluster), _cluster_counts(base_by_cluster), strict=True))
    other = dict(zip(sorted(other_by_cluster), _cluster_counts(other_by_cluster), strict=True))
    higher = lower = 0
    for key, (k_base, n_base) in base.items():
        k_other, n_other = other[key]
        higher += k_other * n_base > k_base * n_other
        lower += k_other * n_base < k_base * n_other
    return higher, lower, mcnemar(higher, lower)
