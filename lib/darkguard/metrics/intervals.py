"""Intervals and paired tests for rates of episodes (exact arithmetic, no float-bit dependence in
what tables print).

- `wilson(k, n)`: the Wilson score interval of a proportion, in percent (95% by default);
- `mcnemar(b, c)`: the exact two-sided McNemar test of paired binary outcomes (b and c are the
  discordant counts: pairs where only the first, or only the second, is 1).
"""

from __future__ import annotations

import math


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The (low, high) Wilson interval of k successes in n, in percent, one decimal."""
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
