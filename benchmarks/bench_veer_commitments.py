"""How well Veer's offline reading of commitments agrees with arena-synth's labels, per split.

For every generator-labelled control (both twins; `darkguard.training.commitment_labels`), Veer's
own reading of the control alone: the kind of commitment it stands for (its words, a toggle's
surrounding text, a dialog accept's dialog) and, with the task's authorization A(u), whether that
commitment is one the task did not ask for. A control counts as flagged when it stands for an
unasked commitment (a button: pressing it, unless it declines, closes or only reveals options).
The generator's `harm` controls are the positives; the controls a careful user actuates on the
way to the goal (`goal`, `progress`, `commit`, `decline`) the negatives, a `goal` toggle judged
by the click the user makes (it flags only if that click switches an unasked commitment on).
`none` controls (material or not, but no part of this task or its pattern) and `ad` links (a
navigation, not a commitment) are counted apart. Reported: accuracy, balanced accuracy, recall on
harm, false flags on the careful user's path, per label.

    python benchmarks/bench_veer_commitments.py --splits dev eval [--grid]

`--grid` sweeps the meaning reader's MARGIN and FLOOR on the FIRST split named (dev) and prints
the balanced accuracy of each: how `concepts.MARGIN` / `FLOOR` were chosen. The rows are cached
under data/veer_controls/ (one browser pass per split).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from darkguard.defenses.veer import commitments
from darkguard.defenses.veer.authorization import offline_authorization
from darkguard.defenses.veer.contracts import Commitment
from darkguard.defenses.veer.coverage import covered
from darkguard.defenses.veer.state import Control

ROOT = Path(__file__).resolve().parents[1]


def load_rows(split: str) -> list[dict]:
    from darkguard.training.commitment_labels import cached

    rows, missing = cached(
        ROOT / "data" / "arena_synth" / split, ROOT / "data" / "veer_controls" / f"{split}.json"
    )
    print(f"{split}: {len(rows)} controls grounded, {len(missing)} not on their bare page")
    return [{**vars(r), "control": r.control} for r in rows]


def flagged(row: dict, auth_cache: dict) -> tuple[bool, str]:
    """Whether Veer reads the control as an unasked commitment, and the kind it reads."""
    control: Control = row["control"]
    kind = commitments.material_kind(control, dialog=row["dialog"])
    if not kind:
        return False, ""
    if row["label"] == "goal" and control.toggle and commitments.active(control):
        return False, kind  # the user's click switches it off
    if not control.toggle and commitments.intent(control) in ("decline", "close", "more"):
        return False, kind
    auth = auth_cache.get(row["goal"])
    if auth is None:
        auth = auth_cache[row["goal"]] = offline_authorization(row["goal"])
    context = row["dialog"][:300] if control.in_dialog and not control.toggle else control.context
    commitment = Commitment(
        commitments.stated(control)[:160], kind, "latent", "active", "click", (control.ref,),
        "reversible", context=f"{context[:200]} {row['title']}".strip(),
    )  # fmt: skip
    return not covered(commitment, auth), kind


def score(rows: list[dict]) -> dict:
    auth_cache: dict = {}
    per_label: Counter = Counter()
    hits: Counter = Counter()
    tp = fp = tn = fn = 0
    for row in rows:
        if row["label"] == "ad":
            continue
        flag, _ = flagged(row, auth_cache)
        per_label[row["label"]] += 1
        hits[row["label"]] += int(flag)
        if row["label"] == "none":
            continue
        if row["label"] == "harm":
            tp, fn = tp + flag, fn + (not flag)
        else:
            fp, tn = fp + flag, tn + (not flag)
    n = tp + fp + tn + fn
    return {
        "n": n,
        "accuracy": (tp + tn) / n,
        "harm_recall": tp / max(tp + fn, 1),
        "false_flag_on_path": fp / max(fp + tn, 1),
        "balanced": 0.5 * (tp / max(tp + fn, 1) + tn / max(fp + tn, 1)),
        "flagged_by_label": {k: f"{hits[k]}/{per_label[k]}" for k in sorted(per_label)},
        "ads_left_out": sum(r["label"] == "ad" for r in rows),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", nargs="+", default=["dev", "eval"])
    ap.add_argument("--grid", action="store_true")
    args = ap.parse_args()
    data = {s: load_rows(s) for s in args.splits}
    if args.grid:
        from darkguard.defenses.veer import concepts

        dev = args.splits[0]
        for margin in (0.0, 0.02, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12):
            for floor in (0.25, 0.3, 0.35, 0.4, 0.45):
                concepts.MARGIN, concepts.FLOOR = margin, floor
                s = score(data[dev])
                print(
                    f"{dev} margin {margin:.2f} floor {floor:.2f}: balanced {s['balanced']:.3f}"
                    f" recall {s['harm_recall']:.3f} false flags {s['false_flag_on_path']:.3f}"
                )
        return
    for split, rows in data.items():
        print(split, json.dumps(score(rows), indent=1))


if __name__ == "__main__":
    main()
