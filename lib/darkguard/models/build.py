"""The `build_models` stage (tiny profile): tokenizer corpus, tiny evaluators, warm-up."""

from __future__ import annotations

import hashlib
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
from darkguard.dude.summarizers import LABEL_WORDS, rule_line
from darkguard.dude.warmup import WarmupParams, balanced, trl_rows, warm_up
from darkguard.dude.warmup_guidance import guidance_texts
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
    agents: dict[str, dict[str, int]] = field(default_factory=dict)  # tiny VLM agents
    agent_warmup: dict[str, Any] = field(default_factory=dict)

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
    corpus += guidance_corpus()
    return corpus * 3


def tokenizer_corpus_for(data_dir: Path) -> list[str]:
    """`tokenizer_corpus` of the train split of a built RUC directory (every tiny model's)."""
    records = {str(r["id"]): r for r in json.loads((Path(data_dir) / "full.json").read_text())}
    train = read_jsonl(Path(data_dir) / "clicks" / "train.jsonl")
    return tokenizer_corpus([records[i] for i in sorted({c["sample_id"] for c in train})])


def guidance_corpus() -> list[str]:
    """Rules in the offline summarizer's wording, every mistake x place x look."""
    bands = [f"{r} {c}" for r in ("top", "middle", "bottom") for c in ("left", "centre", "right")]
    labels = [label for label in LABEL_WORDS if label is not None]
    return [
        rule_line(p, t, {"under": u, "band": b, "verb": "the"}, k)
        for p in [*labels, None]
        for t in labels
        if p != t
        for u in ("a coloured control", "plain page")
        for k, b in enumerate(bands, start=1)
    ]


def warmup_rows(
    train: list[dict],
    records: dict[str, dict],
    data_dir: Path,
    max_pixels: int,
    warm: WarmupParams,
    aids: ObservationAids,
) -> list[dict]:
    """The warm-up rows, labels balanced by repetition when asked (repeats share their row); a
    share `warm.guidance_rate` of the clicks carries a guidance block (`warmup_guidance`)."""
    guidance = guidance_texts(
        train,
        records,
        data_dir,
        warm.guidance_rate,
        warm.guidance_rules,
        warm.seed,
        warm.guidance_own_rate,
    )
    rows = trl_rows(train, records, data_dir, max_pixels, warm.confidence, aids, guidance)
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
    corpus = tokenizer_corpus_for(data_dir)
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
            "corpus_sha256": card_corpus_hash(corpus),
            "warmup": asdict(warm),
            "size": dims,
        }
        if rows is None and not reusable(out_dir, card):
            rows = warmup_rows(train, records, data_dir, params.max_pixels, warm, aids)
        log = build_and_warm_up(out_dir, card, corpus, dims, params.vocab_size, rows, warm)
        backend = HFBackend(ModelSpec(name, path=str(out_dir), batch_size=16, max_new_tokens=24))
        run = judge_clicks(backend, data_dir, valid, records, aids=aids)
        n_params = sum(p.numel() for p in backend.model.parameters())
        matrix = confusion([c["label"] for c in valid], run.outputs)
        built.append(BuiltEvaluator(name, out_dir, n_params, log, run.metrics, matrix))
    return built


def reusable(out_dir: Path, card: dict) -> bool:
    """With `DARKGUARD_REUSE_TRAINED=1`: a model in `out_dir` was trained with exactly `card`."""
    return (
        reuse_trained()
        and (Path(out_dir) / "warmup_log.json").is_file()
        and read_card(out_dir) == card
    )


def build_and_warm_up(
    out_dir: Path,
    card: dict,
    corpus: list[str],
    dims: dict[str, int],
    vocab_size: int,
    rows: list[dict] | None,
    warm,
) -> list[dict]:
    """Build a tiny model, warm it up on `rows` into `out_dir` with its card and log, and return
    the log; a reusable model (`reusable`) is kept and its log returned."""
    log_file = Path(out_dir) / "warmup_log.json"
    if reusable(out_dir, card):
        return read_json(log_file)
    if rows is None:
        raise ValueError(f"{out_dir}: no warm-up rows to train on")
    with tempfile.TemporaryDirectory() as tmp:
        init = build_tiny(
            Path(tmp),
            corpus,
            TinySize(**dims),
            vocab_size=vocab_size,
            max_pixels=card["max_pixels"],
            seed=warm.seed,
        )
        if Path(out_dir).exists():
            shutil.rmtree(out_dir)
        log = warm_up(init, Path(out_dir), rows, warm)
    write_json(log_file, log)
    write_card(out_dir, card)
    return log


def card_corpus_hash(corpus: list[str]) -> str:
    """The tokenizer corpus's hash, recorded in every tiny model's card."""
    return hashlib.sha256("\n".join(corpus).encode()).hexdigest()
