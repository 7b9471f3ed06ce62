"""The tiny VLM agents of the `build_models` stage (tiny profile): built like the evaluators, then
warmed up to click the correct element (`darkguard.training.agent_warmup`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from darkguard.agents.vlm import VLMAgent
from darkguard.config import AgentWarmupParams, TinySizeParams
from darkguard.io import read_jsonl
from darkguard.models import prompts
from darkguard.models.backends.hf import HFBackend
from darkguard.models.spec import ModelSpec
from darkguard.models.tiny.build import build_and_warm_up, card_corpus_hash, reusable
from darkguard.ruc.validate import load_records
from darkguard.stages.guard_eval import agent_alone
from darkguard.training.agent_warmup import agent_rows

AGENT_COORDINATES = "relative1000"  # what the tiny agents answer in (scale-free across viewports)


@dataclass
class BuiltAgent:
    name: str
    path: Path
    parameters: int
    log_history: list[dict]
    valid_metrics: dict[str, float]  # the agent alone on the valid split: SR / DFR / NFR


def build_agents(
    agents: dict[str, TinySizeParams],
    warmup: AgentWarmupParams,
    corpus: list[str],
    vocab_size: int,
    max_pixels: int,
    data_dir: Path,
    out_root: Path,
) -> list[BuiltAgent]:
    """Build each tiny agent, warm it up on the train records, run it alone on the valid split.

    With `DARKGUARD_REUSE_TRAINED=1`, an agent whose card matches is evaluated again without
    being rebuilt."""
    records = load_records(data_dir, "full.json")
    by_id = {str(r["id"]): r for r in records}
    train_ids = {str(r["id"]) for r in load_records(data_dir, "train.json")}
    train = [by_id[i] for i in sorted(train_ids)]
    valid = load_records(data_dir, "valid.json")
    clicks = read_jsonl(data_dir / "clicks" / "train.jsonl")
    warm = warmup
    rows: list[dict] | None = None
    built = []
    for name, dims in agents.items():
        out_dir = Path(out_root) / name
        card = {
            "role": "agent",
            "prompt_version": prompts.PROMPT_VERSION,
            "coordinates": AGENT_COORDINATES,
            "max_pixels": max_pixels,
            "vocab_size": vocab_size,
            "corpus_sha256": card_corpus_hash(corpus),
            "warmup": warm.model_dump(),
            "size": dims.model_dump(),
        }
        if rows is None and not reusable(out_dir, card):
            rows = agent_rows(
                train,
                clicks,
                data_dir,
                max_pixels,
                AGENT_COORDINATES,
                warm.rejection_rate,
                warm.seed,
            )
        log = build_and_warm_up(out_dir, card, corpus, card["size"], vocab_size, rows, warm)
        spec = ModelSpec(
            name, path=str(out_dir), batch_size=1, max_new_tokens=24, coordinates=AGENT_COORDINATES
        )
        backend = HFBackend(spec)
        _, valid_metrics = agent_alone(VLMAgent(name, backend), data_dir, valid)
        n_params = sum(p.numel() for p in backend.model.parameters())
        built.append(BuiltAgent(name, out_dir, n_params, log, valid_metrics))
    return built
