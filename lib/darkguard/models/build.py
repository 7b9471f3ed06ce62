"""The `build_models` stage (tiny profile): tokenizer corpus, tiny evaluators, warm-up."""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from darkguard.data import schema
from darkguard.dude.inputs import ObservationAids
from darkguard.dude.judge import judge_clicks
from darkguard.dude.judge_metrics import confusion
from darkguard.dude.warmup import WarmupParams, balanced, trl_rows, warm_up
from darkguard.io import InputError, read_json, read_jsonl, write_json
from darkguard.models import prompts
from darkguard.models.backends.hf import HFBackend
from darkguard.models.card import read_card, write_card
from darkguard.models.parsing import format_judgement
from darkguard.models.spec import ModelSpec
from darkguard.models.tiny import TinySize, build_tiny
from darkguard.pipeline.reuse import reuse_trained


@dataclass(frozen=True)
class BuildModelsParams:
    vocab_size: int = 2048
    max_pixels: int = 65536
    evaluators: dict[str, dict[str, int]] = field(default_factory=dict)
    aids: dict[str, Any] = field(default_factory=dict)
    warmup: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> BuildModelsParams:
        unknown = sorted(set(values) - {f for f in cls.__dataclass_fields__})
        if unknown:
            raise InputError(f"params.yaml: section 'build_models': unknown key(s) {unknown}")
        return cls(**values)


def tokenizer_corpus(records: list[dict]) -> list[str]:
    """Deterministic text the tiny tokenizer is trained on: every prompt template, the task texts,
    coordinates and the answer formats."""
    corpus = [
        prompts.AGENT_SYSTEM,
        prompts.REACT_AGENT_SYSTEM,
        prompts.evaluator_system(),
        prompts.GUIDANCE_BLOCK,
        prompts.SUMMARIZER_SYSTEM,
        prompts.SUMMARIZER_CASE,
        prompts.REJECTION_FEEDBACK,
        "The second image is a zoomed view around the click.",
    ]
    corpus += [schema.task_text(r) for r in sorted(records, key=lambda r: str(r["id"]))]
    corpus += [prompts.evaluator_user("", x, x, 1280, 800) for x in range(0, 2000, 7)]
    corpus += [format_judgement(lab, c / 100) for lab in (-1, 0, 1) for c in range(1, 100)]
    corpus += [f"<action>click({x}, {y})</action>" for x in range(0, 2000, 13) for y in (7, 400)]
    return corpus * 3


def warmup_rows(
    train: list[dict],
    records: dict[str, dict],
    data_dir: Path,
    max_pixels: int,
    warm: WarmupParams,
    aids: ObservationAids,
) -> list[dict]:
    """The warm-up rows, labels balanced by repetition when asked (repeats share their row)."""
    rows = trl_rows(train, records, data_dir, max_pixels, warm.confidence, aids)
    if not warm.balance:
        return rows
    row_of = {id(c): r for c, r in zip(train, rows, strict=True)}
    return [row_of[id(c)] for c in balanced(train)]


@dataclass
class BuiltEvaluator:
    name: str
    path: Path
    parameters: int
    log_history: list[dict]
    valid_metrics: dict[str, float]
    valid_confusion: dict[str, dict[str, int]]


def build_evaluators(
    params: BuildModelsParams, seed: int, data_dir: Path, out_root: Path
) -> list[BuiltEvaluator]:
    """Build each tiny evaluator, warm it up on the train clicks, judge the valid clicks.

    With `DARKGUARD_REUSE_TRAINED=1`, an evaluator already in `out_root` whose card matches these
    parameters is judged again without being rebuilt (re-rendering reports, notebook tests)."""
    records = {str(r["id"]): r for r in json.loads((data_dir / "full.json").read_text())}
    train = read_jsonl(data_dir / "clicks" / "train.jsonl")
    valid = read_jsonl(data_dir / "clicks" / "valid.jsonl")
    train_records = [records[i] for i in sorted({c["sample_id"] for c in train})]
    corpus = tokenizer_corpus(train_records)
    aids = ObservationAids(**params.aids)
    warm = WarmupParams(**params.warmup, seed=seed)
    rows: list[dict] | None = None
    built = []
    for name, dims in params.evaluators.items():
        out_dir = Path(out_root) / name
        card = {
            "role": "evaluator",
            "prompt_version": prompts.PROMPT_VERSION,
            "aids": asdict(aids),
            "max_pixels": params.max_pixels,
            "vocab_size": params.vocab_size,
            "warmup": asdict(warm),
            "size": dims,
        }
        log_file = out_dir / "warmup_log.json"
        if reuse_trained() and log_file.is_file() and read_card(out_dir) == card:
            log = read_json(log_file)
        else:
            if rows is None:
                rows = warmup_rows(train, records, data_dir, params.max_pixels, warm, aids)
            with tempfile.TemporaryDirectory() as tmp:
                init = build_tiny(
                    Path(tmp),
                    corpus,
                    TinySize(**dims),
                    vocab_size=params.vocab_size,
                    max_pixels=params.max_pixels,
                    seed=seed,
                )
                if out_dir.exists():
                    shutil.rmtree(out_dir)
                log = warm_up(init, out_dir, rows, warm)
            write_json(log_file, log)
            write_card(out_dir, card)
        backend = HFBackend(ModelSpec(name, path=str(out_dir), batch_size=16, max_new_tokens=24))
        run = judge_clicks(backend, data_dir, valid, records, aids=aids)
        n_params = sum(p.numel() for p in backend.model.parameters())
        matrix = confusion([c["label"] for c in valid], run.outputs)
        built.append(BuiltEvaluator(name, out_dir, n_params, log, run.metrics, matrix))
    return built
