"""The `build_models` stage (tiny profile): tokenizer corpus, tiny evaluators, warm-up."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from darkguard import cache, paths
from darkguard.config import BuildModelsParams, Config, WarmupParams, view
from darkguard.defenses.dude.evaluator import Evaluator
from darkguard.defenses.dude.inputs import ObservationAids, ocr_note
from darkguard.io import read_jsonl
from darkguard.metrics.judging import confusion
from darkguard.models import prompts
from darkguard.models.backends.hf import HFBackend
from darkguard.models.parsing import format_judgement, predicted_label
from darkguard.models.spec import ModelSpec
from darkguard.models.tiny.build import build_and_warm_up, card_corpus_hash, reusable
from darkguard.ruc import schema
from darkguard.ruc.validate import records_by_id
from darkguard.training.dude.labelled import judge_clicks
from darkguard.training.dude.summarizers import LABEL_WORDS, rule_line
from darkguard.training.dude.warmup import balanced, hard_nulls, trl_rows
from darkguard.training.dude.warmup_guidance import guidance_texts

if TYPE_CHECKING:
    from darkguard.stages.build_models.agents import BuiltAgent

# The params.yaml keys the stage reads (dvc.yaml lists them as its `params`).
PARAMS = (
    "base.profile",
    "base.seed",
    "data.out_dir",
    "build_models.vocab_size",
    "build_models.max_pixels",
    "build_models.evaluators",
    "build_models.aids",
    "build_models.warmup",
    "build_models.agents",
    "build_models.agent_warmup",
)


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
        ocr_note(""),
        ocr_note("Continue"),
    ]
    corpus += [schema.task_text(r) for r in sorted(records, key=lambda r: str(r["id"]))]
    corpus += [prompts.evaluator_user("", x, x, 1280, 800) for x in range(0, 2000, 7)]
    corpus += [format_judgement(lab, c / 100) for lab in (-1, 0, 1) for c in range(1, 100)]
    corpus += [f"<action>click({x}, {y})</action>" for x in range(0, 2000, 13) for y in (7, 400)]
    corpus += guidance_corpus()
    return corpus * 3


def tokenizer_corpus_for(data_dir: Path) -> list[str]:
    """`tokenizer_corpus` of the train split of a built RUC directory (every tiny model's)."""
    records = records_by_id(Path(data_dir))
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


def distractor_sentences(records: dict[str, dict], clicks: list[dict]) -> list[str]:
    """Sentences that advise nothing for the warm-up's distractor blocks: the task texts of the
    clicks' pages, sorted."""
    return sorted({schema.task_text(records[c["sample_id"]]) for c in clicks})


# Decoded screenshots kept in memory while the warm-up rows are built: the text nulls, the text
# aid, the guidance facts and the conversations each pass over every train page, and RUC-synth's
# 985 train pages take ~3.3 GiB decoded (a smaller budget decoded each page once per pass,
# ~80 s of the stage's 506 s).
ROWS_PAGES_KEPT = 4 * 2**30


def warmup_rows(
    train: list[dict],
    records: dict[str, dict],
    data_dir: Path,
    max_pixels: int,
    warm: WarmupParams,
    aids: ObservationAids,
) -> list[dict]:
    """The warm-up rows of the train clicks and `warm.text_nulls` null clicks on text per page
    (`hard_nulls`), labels balanced by repetition when asked (repeats share their row); a
    share `warm.guidance_rate` of the clicks carries a guidance block (`warmup_guidance`): rules,
    or, for a share `warm.guidance_distractor_rate` of them, the pages' task texts. Each page is
    decoded once (`ROWS_PAGES_KEPT`), however many passes read it."""
    with cache.pages_kept(ROWS_PAGES_KEPT):
        train = train + hard_nulls(
            train, records, data_dir, warm.text_nulls, warm.seed, warm.text_null_pick
        )
        guidance = guidance_texts(
            train,
            records,
            data_dir,
            warm.guidance_rate,
            warm.guidance_rules,
            warm.seed,
            warm.guidance_own_rate,
            warm.guidance_distractor_rate,
            distractor_sentences(records, train),
        )
        rows = trl_rows(
            train,
            records,
            data_dir,
            max_pixels,
            warm.confidence,
            aids,
            guidance,
            warm.recolour_rate,
            warm.seed,
            warm.rescale_rate,
        )
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
    heldout_metrics: dict[str, float] | None = None  # on the held-out style family's valid
    heldout_confusion: dict[str, dict[str, int]] | None = None
    # each click's predicted label (None: no label), in the order of the clicks files
    valid_predicted: list[int | None] = field(default_factory=list)
    heldout_predicted: list[int | None] = field(default_factory=list)


def build_evaluators(
    params: BuildModelsParams, data_dir: Path, out_root: Path
) -> list[BuiltEvaluator]:
    """Build each tiny evaluator, warm it up on the train clicks, judge the valid clicks (the
    training style families) and, when the build holds a style family out, its valid clicks.

    With `DARKGUARD_REUSE_TRAINED=1`, an evaluator already in `out_root` whose card matches these
    parameters is judged again without being rebuilt (re-rendering reports, notebook tests)."""
    records = records_by_id(data_dir)
    train = read_jsonl(data_dir / "clicks" / "train.jsonl")
    valid = read_jsonl(data_dir / "clicks" / "valid.jsonl")
    heldout_file = data_dir / "clicks" / "heldout_valid.jsonl"
    heldout = read_jsonl(heldout_file) if heldout_file.is_file() else []
    corpus = tokenizer_corpus_for(data_dir)
    aids = ObservationAids(**params.aids.model_dump())
    warm = params.warmup
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
            "warmup": warm.model_dump(),
            "size": dims.model_dump(),
        }
        if rows is None and not reusable(out_dir, card):
            rows = warmup_rows(train, records, data_dir, params.max_pixels, warm, aids)
        log = build_and_warm_up(out_dir, card, corpus, card["size"], params.vocab_size, rows, warm)
        backend = HFBackend(ModelSpec(name, path=str(out_dir), batch_size=16, max_new_tokens=24))
        run = judge_clicks(Evaluator(backend, aids), data_dir, valid, records)
        n_params = sum(p.numel() for p in backend.model.parameters())
        matrix = confusion([c["label"] for c in valid], run.outputs)
        b = BuiltEvaluator(name, out_dir, n_params, log, run.metrics, matrix)
        b.valid_predicted = [predicted_label(out) for out in run.outputs]
        if heldout:
            held = judge_clicks(Evaluator(backend, aids), data_dir, heldout, records)
            b.heldout_metrics = held.metrics
            b.heldout_confusion = confusion([c["label"] for c in heldout], held.outputs)
            b.heldout_predicted = [predicted_label(out) for out in held.outputs]
        built.append(b)
    return built


@dataclass
class BuiltModels:
    evaluators: list[BuiltEvaluator]
    agents: list[BuiltAgent]


def run(cfg: Config) -> BuiltModels | None:
    """The stage: the tiny evaluators into `data/models/` and the tiny agents into
    `data/agents/`; None under the paper profile (real checkpoints: nothing to build)."""
    from darkguard.stages.build_models.agents import build_agents

    cfg = view(cfg, PARAMS)
    if cfg.base.profile == "paper":
        return None
    params = cfg.build_models
    data_dir = paths.resolve(cfg.data.out_dir)
    evaluators = build_evaluators(params, data_dir, paths.data_dir() / "models")
    agents = build_agents(
        params.agents,
        params.agent_warmup,
        tokenizer_corpus_for(data_dir),
        params.vocab_size,
        params.max_pixels,
        data_dir,
        paths.data_dir() / "agents",
    )
    return BuiltModels(evaluators, agents)
