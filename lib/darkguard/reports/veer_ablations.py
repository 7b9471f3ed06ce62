"""Reports of the `veer_ablations` stage: Veer Tables 18 and 19 in one table
(`tables/veer_ablations/ablations`: Safe, T+DP, Fail, Fail+DP, DPSR, TSR, STC, ΔSTC per variant,
the one-step variant as Table 19's row; 95% Wilson intervals of DPSR, TSR and STC; McNemar
against full Veer), `metrics/veer_ablations.json`, the stage's time. The paper's numbers beside
ours as reference."""

from __future__ import annotations

import pandas as pd

from darkguard import paths, registry
from darkguard.io import atomic_write_text, write_json
from darkguard.metrics.intervals import interval_text, mcnemar
from darkguard.reports.paper import VEER_TABLE18, VEER_TABLE19_ONE_STEP
from darkguard.reports.tables import save_table
from darkguard.stages.veer_ablations import VeerAblationsResult

VARIANT_TITLES = {
    name: registry.FULL_VEER_TITLE if name == "veer" else registry.title(name)
    for name in registry.VARIANTS
}


def _pct(count: int, n: int) -> float:
    return round(100.0 * count / n, 1) if n else 0.0


def outcome_counts(records: list[dict]) -> tuple[int, int, int, int]:
    """Safe (T, no D), T+DP, Fail without D, Fail+DP."""
    safe = sum(r["T"] and not r["D"] for r in records)
    t_dp = sum(r["T"] and r["D"] for r in records)
    fail = sum(not r["T"] and not r["D"] for r in records)
    return safe, t_dp, fail, len(records) - safe - t_dp - fail


def _safe_against(records: list[dict], full: list[dict]) -> tuple[int, int, float]:
    """Tasks safe (T, no D) only with the variant, only with full Veer, and McNemar's exact p."""
    safe_full = {r["id"]: bool(r["T"] and not r["D"]) for r in full}
    safe = {r["id"]: bool(r["T"] and not r["D"]) for r in records}
    gained = sum(v and not safe_full[k] for k, v in safe.items())
    lost = sum(not v and safe_full[k] for k, v in safe.items())
    return gained, lost, mcnemar(gained, lost)


def _rates(safe: int, t_dp: int, fail: int, fail_dp: int) -> tuple[float, float, float]:
    n = safe + t_dp + fail + fail_dp
    return _pct(t_dp + fail_dp, n), _pct(safe + t_dp, n), _pct(safe, n)


def ablations_table(result: VeerAblationsResult) -> pd.DataFrame:
    """Table 18 (and the one-step row of Table 19), ΔSTC against full Veer from the counts (as
    the paper computes it), ours and the paper's."""
    full = result.variants.get("veer")
    full_safe = outcome_counts(full.records)[0] if full else None
    paper_full_safe = VEER_TABLE18["veer"][0]
    rows = []
    for variant, run in result.variants.items():
        counts = outcome_counts(run.records)
        dpsr, tsr, stc = _rates(*counts)
        paper = VEER_TABLE18.get(variant)
        if paper is not None:
            p_dpsr, p_tsr, p_stc = _rates(*paper)
            p_safe = paper[0]
        elif variant == "veer-one-step":
            d, t, p_safe = VEER_TABLE19_ONE_STEP
            p_dpsr, p_tsr, p_stc = _pct(d, 88), _pct(t, 88), _pct(p_safe, 88)
        else:
            p_dpsr = p_tsr = p_stc = p_safe = None
        n = len(run.records)
        gained, lost, p_value = _safe_against(run.records, full.records) if full else (0, 0, 1.0)
        rows.append(
            {
                "variant": VARIANT_TITLES[variant],
                "Safe": counts[0],
                "T+DP": counts[1],
                "Fail": counts[2],
                "Fail+DP": counts[3],
                "DPSR": dpsr,
                "TSR": tsr,
                "STC": stc,
                "ΔSTC": _pct(counts[0] - full_safe, n) if full_safe is not None else None,
                "DPSR 95% CI": interval_text(counts[1] + counts[3], n),
                "TSR 95% CI": interval_text(counts[0] + counts[1], n),
                "STC 95% CI": interval_text(counts[0], n),
                "safe gained / lost vs full Veer": f"{gained} / {lost}"
                if variant != "veer"
                else "—",
                "McNemar p": p_value if variant != "veer" else None,
                "paper Safe/T+DP/Fail/Fail+DP": "/".join(map(str, paper)) if paper else "—",
                "paper DPSR": p_dpsr,
                "paper TSR": p_tsr,
                "paper STC": p_stc,
                "paper ΔSTC": _pct(p_safe - paper_full_safe, 88) if p_safe is not None else None,
            }
        )
    return pd.DataFrame(rows)


def _n(result: VeerAblationsResult) -> int:
    return len(next(iter(result.variants.values())).records) if result.variants else 0


def write_ablation_reports(result: VeerAblationsResult, profile: str) -> dict[str, pd.DataFrame]:
    by = (
        f"{profile} profile, TrickyArena-Single (N = {_n(result)}; the paper's 88), "
        f"`{result.agent}` base agent, Veer's "
        f"`{result.reasoner}` reasoner"
    )
    table = ablations_table(result)
    save_table(
        table,
        "veer_ablations/ablations",
        f"Veer Tables 18 and 19: Veer's variants ({by}); 95% Wilson intervals of DPSR, TSR and "
        "STC; ΔSTC against full Veer, with the tasks each variant completes safely where full "
        "Veer does not and the reverse (exact McNemar on the same tasks); the paper's counts and "
        "rates beside ours as reference.",
    )
    write_json(
        paths.metrics_dir() / "veer_ablations.json",
        {
            "profile": profile,
            "set": result.set,
            "variants": {
                v: dict(
                    zip(("safe", "t_dp", "fail", "fail_dp"), outcome_counts(r.records), strict=True)
                )
                for v, r in result.variants.items()
            },
        },
    )
    lines = ["| variant | episodes run | seconds |", "|---|---|---|"]
    for variant, run in result.variants.items():
        lines.append(f"| {VARIANT_TITLES[variant]} | {run.ran} | {run.seconds:.0f} |")
    atomic_write_text(
        paths.reports_dir() / "timings" / "veer_ablations.md",
        f"**veer_ablations time ({by}; machine-dependent, not compared by CI).**\n\n"
        + "\n".join(lines)
        + "\n",
    )
    return {"veer_ablations/ablations": table}
