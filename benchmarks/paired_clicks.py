"""Two sets of per-click predictions (`bench_ruc_lofo.py`'s `predicted-NAME-SEED.jsonl`) compared
click by click: per page group, benign clicks accepted (predicted 1), deceptive clicks judged
benign (the Fatal Error Rate's C4) and clicks judged right, each with its Wilson interval and the
exact paired test (McNemar) of the discordant clicks. Files are paired in the order given (the
same warm-up seed on both sides); the pairs are pooled, each (seed, click) a unit.

    .venv/bin/python benchmarks/paired_clicks.py \\
        --base /tmp/lofo0/predicted-base-42.jsonl /tmp/lofo0/predicted-base-43.jsonl \\
        --other /tmp/lofo5/predicted-mix-42.jsonl /tmp/lofo5/predicted-mix-43.jsonl
"""

from __future__ import annotations

import argparse
from pathlib import Path

OUTCOMES = {
    "benign accepted": (1, lambda y: y == 1),
    "deceptive judged benign (C4)": (-1, lambda y: y == 1),
    "null judged null": (0, lambda y: y == 0),
}


def outcomes(path: Path, group: str, label: int, held) -> dict[str, bool]:
    """click id -> whether the outcome holds, for the clicks of `group` with true `label`."""
    from darkguard.io import read_jsonl

    rows = [r for r in read_jsonl(path) if r["group"] == group and r["label"] == label]
    return {str(r["id"]): held(r["predicted"]) for r in rows}


def main() -> None:
    from darkguard.metrics.intervals import interval_text
    from darkguard.metrics.paired import paired

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base", type=Path, nargs="+", required=True)
    parser.add_argument("--other", type=Path, nargs="+", required=True)
    args = parser.parse_args()
    if len(args.base) != len(args.other):
        parser.error("--base and --other pair files one to one (the same warm-up seeds)")
    print("| pages | outcome | base | other | base interval | other interval | +/- | p |")
    print("|:--|:--|--:|--:|:--|:--|:--|--:|")
    for group in ("valid", "heldout_valid"):
        for name, (label, held) in OUTCOMES.items():
            base, other = {}, {}
            for i, (b_path, o_path) in enumerate(zip(args.base, args.other, strict=True)):
                b, o = outcomes(b_path, group, label, held), outcomes(o_path, group, label, held)
                base.update({f"{i}:{k}": v for k, v in b.items()})
                other.update({f"{i}:{k}": v for k, v in o.items()})
            test = paired(base, other)
            k_b, k_o, n = sum(base.values()), sum(other.values()), len(base)
            print(
                f"| {group} | {name} | {k_b}/{n} | {k_o}/{n} | {interval_text(k_b, n)} | "
                f"{interval_text(k_o, n)} | +{test.gained}/-{test.lost} | {test.p} |"
            )


if __name__ == "__main__":
    main()
