"""Two runs on the same tasks compared task by task, and the words a report may use for the
difference: the direction comes from the counts, the verdict from the exact paired test
(`intervals.mcnemar`, the sign test of the discordant tasks), never from the sign alone."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from darkguard.metrics.intervals import mcnemar

ALPHA = 0.05  # the level a difference must reach to be called significant


@dataclass(frozen=True)
class Paired:
    """Discordant tasks of a binary outcome: `gained` have it only in the compared run, `lost`
    only in the base run."""

    gained: int
    lost: int

    @property
    def p(self) -> float:
        """Exact two-sided McNemar p (1.0 when no task changed)."""
        return mcnemar(self.gained, self.lost)


def paired(base: Mapping[str, bool], other: Mapping[str, bool]) -> Paired:
    """The discordant counts of one outcome over the same tasks (task id -> outcome held)."""
    if set(base) != set(other):
        missing = sorted(set(base) ^ set(other))[:5]
        raise ValueError(f"paired runs cover different tasks (e.g. {missing})")
    gained = sum(other[t] and not base[t] for t in base)
    lost = sum(base[t] and not other[t] for t in base)
    return Paired(gained, lost)


def _p(p: float) -> str:
    return f"p = {p:.3g}"


def guard_effect(d_sr: float, sr: Paired, d_dfr: float, dfr: Paired, alpha: float = ALPHA) -> str:
    """What a gated run shows against the same agent alone, in words a reader may repeat: the
    changes with their paired counts and tests, then whether they go the paper's way (SR up, DFR
    not up) and whether that is significant at `alpha`. `sr`: successes gained / lost; `dfr`:
    deceived episodes added / avoided (gained = deceived only behind the gate)."""
    counts = (
        f"SR {d_sr:+.2f} pp ({sr.gained} gained / {sr.lost} lost, {_p(sr.p)}), "
        f"DFR {d_dfr:+.2f} pp ({dfr.lost} avoided / {dfr.gained} added, {_p(dfr.p)})"
    )
    level = f"{round(100 * alpha)}%"
    sr_sig, dfr_sig = sr.p < alpha, dfr.p < alpha
    if sr.gained == sr.lost == dfr.gained == dfr.lost == 0:
        verdict = "no task changed"
    elif d_sr > 0 and d_dfr <= 0:
        verdict = (
            f"the paper's effect (SR up, DFR not up), significant at {level}"
            if sr_sig
            else f"the paper's direction (SR up, DFR not up), not significant at {level}"
        )
    else:
        against = [
            name
            for name, moved, sig in (("SR down", d_sr < 0, sr_sig), ("DFR up", d_dfr > 0, dfr_sig))
            if moved and sig
        ]
        verdict = (
            f"against the paper's direction ({', '.join(against)}), significant at {level}"
            if against
            else f"not the paper's direction (SR not up or DFR up), not significant at {level}"
        )
    return f"{counts}: {verdict}"
