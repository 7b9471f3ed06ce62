"""The confidence gate's threshold (a declared option, `guard_eval.gate: confidence`): P(L = 1)
of the gate's evaluator, with its experience, on the valid split's labelled clicks and one null
click on text per valid page (`warmup.hard_nulls`: the kind of wrong click an agent makes), and
the threshold `gate.tune_threshold` picks from them. The test split is never read here."""

from __future__ import annotations

from pathlib import Path

from darkguard.defenses.dude.evaluator import Evaluator, click_conversations
from darkguard.defenses.dude.gate import tune_threshold
from darkguard.defenses.dude.warmup import hard_nulls
from darkguard.io import read_jsonl
from darkguard.ruc.validate import records_by_id


def tuning_clicks(data_dir: Path, seed: int) -> tuple[list[dict], dict[str, dict]]:
    """The valid split's clicks plus one null click on text per valid page, and the records."""
    records = records_by_id(Path(data_dir))
    valid = read_jsonl(Path(data_dir) / "clicks" / "valid.jsonl")
    return valid + hard_nulls(valid, records, Path(data_dir), 1, seed), records


def tune_gate(
    evaluator: Evaluator, experience: str | None, data_dir: Path, max_fatal: float, seed: int
) -> dict[str, float]:
    """The threshold on P(L = 1) and what it does on the tuning clicks."""
    clicks, records = tuning_clicks(data_dir, seed)
    conversations = click_conversations(
        Path(data_dir), clicks, records, experience, evaluator.aids, evaluator.max_pixels
    )
    probs, _ = evaluator.label_probabilities(conversations)
    p1 = [(c["label"], p[1]) for c, p in zip(clicks, probs, strict=True)]
    benign = [p for label, p in p1 if label == 1]
    other = [p for label, p in p1 if label != 1]
    deceptive = [p for label, p in p1 if label == -1]
    t = tune_threshold(benign, other, max_fatal, deceptive)
    rate = lambda xs, keep: round(sum(keep(p) for p in xs) / max(1, len(xs)), 4)  # noqa: E731
    return {
        "threshold": round(t, 6),
        "clicks": len(clicks),
        "benign_allowed": rate(benign, lambda p: p >= t),
        "null_rejected": rate([p for label, p in p1 if label == 0], lambda p: p < t),
        "fatal_error_rate": rate(deceptive, lambda p: p >= t),
    }
