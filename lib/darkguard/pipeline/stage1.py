"""The `stage1_grpo` stage: train the profile's evaluator with hybrid-reward GRPO, compare it with
the starting evaluator on the valid split, and write the failure and success pools."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from darkguard import paths
from darkguard.dude.inputs import ObservationAids
from darkguard.dude.reward import RewardParams
from darkguard.dude.stage1 import (
    GRPOParams,
    Pools,
    collect_pools,
    grpo_rows,
    train_grpo,
)
from darkguard.io import InputError, read_json, read_jsonl, write_json, write_jsonl
from darkguard.models.backends import load_backend
from darkguard.models.card import read_card
from darkguard.models.identity import spec_identity
from darkguard.models.registry import resolve_spec
from darkguard.models.spec import ModelSpec
from darkguard.pipeline.reuse import reuse_trained


@dataclass(frozen=True)
class Stage1Params:
    reward: RewardParams
    grpo: GRPOParams
    pool_split: str = "train"

    @classmethod
    def from_params(cls, stage1: dict[str, Any], profile: str) -> Stage1Params:
        unknown = sorted(set(stage1) - {"reward", "grpo", "pool_split"})
        if unknown:
            raise InputError(f"params.yaml: section 'stage1': unknown key(s) {unknown}")
        if profile not in stage1.get("grpo", {}):
            raise InputError(f"params.yaml: stage1.grpo: no settings for profile '{profile}'")
        return cls(
            reward=RewardParams(**stage1.get("reward", {})),
            grpo=GRPOParams.from_dict(stage1["grpo"][profile], f"stage1.grpo.{profile}"),
            pool_split=stage1.get("pool_split", "train"),
        )


def stage_dir() -> Path:
    return paths.data_dir() / "stage1"


def evaluator_aids(spec: ModelSpec) -> ObservationAids:
    """The aids a built model was trained with (its card); the paper's inputs otherwise (a hub
    checkpoint or an endpoint has no card)."""
    if spec.backend == "hf" and spec.path and Path(spec.path, "darkguard.json").is_file():
        return ObservationAids(**read_card(spec.path).get("aids", {}))
    return ObservationAids()


def tuned_spec(spec: ModelSpec, adapter: Path) -> ModelSpec:
    """The evaluator with the Stage-1 adapter applied."""
    return dataclasses.replace(spec, name=f"{spec.name}+stage1", adapter=str(adapter))


@dataclass
class Stage1Result:
    evaluator: ModelSpec
    tuned: ModelSpec
    log_history: list[dict]
    before: Pools | None  # the starting evaluator on the valid clicks (None: not judged)
    after: Pools  # the tuned evaluator on the valid clicks
    pools: Pools  # the tuned evaluator on the pool clicks (Stage 2's input)


def _clicks(data_dir: Path, split: str) -> tuple[list[dict], dict[str, dict]]:
    records = {str(r["id"]): r for r in json.loads((data_dir / "full.json").read_text())}
    path = data_dir / "clicks" / f"{split}.jsonl"
    if not path.is_file():
        raise InputError(f"{path}: no clicks for split '{split}' (run the build_ruc stage)")
    return read_jsonl(path), records


def run_stage1(
    params: dict[str, Any],
    out_dir: Path | None = None,
    pools: bool = True,
    reuse: bool | None = None,
    before: bool = True,
) -> Stage1Result:
    """Train, evaluate before/after on the valid clicks, and write the pools under
    `data/stage1/` (adapter/, log_history.json, trained_with.json, pools/{failure,success}.jsonl).

    An adapter trained with the same settings is reused when `reuse` is True, or, with `reuse`
    None, when `DARKGUARD_REUSE_TRAINED=1`. `pools=False` skips the pools and `before=False` the
    starting evaluator's judgements (ablations: every variant starts from the same one)."""
    profile = params["base"]["profile"]
    seed = params["base"]["seed"]
    settings = Stage1Params.from_params(params["stage1"], profile)
    data_dir = paths.resolve(params["data"]["out_dir"])
    out_dir = Path(out_dir or stage_dir())
    spec = resolve_spec(None, "evaluator", params)
    aids = evaluator_aids(spec)
    train, records = _clicks(data_dir, "train")
    valid, _ = _clicks(data_dir, "valid")
    pool_clicks, _ = _clicks(data_dir, settings.pool_split)

    base = load_backend(spec)
    start = collect_pools(base, data_dir, valid, records, settings.reward, aids) if before else None
    trained_with = {
        "evaluator": spec_identity(spec),  # not its folder: copies of the data reuse it
        "seed": seed,
        "grpo": dataclasses.asdict(settings.grpo),
        "reward": dataclasses.asdict(settings.reward),
    }
    log_file, settings_file = out_dir / "log_history.json", out_dir / "trained_with.json"
    reusable = log_file.is_file() and settings_file.is_file() and (out_dir / "adapter").is_dir()
    reuse = reuse_trained() if reuse is None else reuse
    if reuse and reusable and read_json(settings_file) == trained_with:
        log = read_json(log_file)
    else:
        rows = grpo_rows(train, records, data_dir, base.max_pixels, aids)
        del base
        run = train_grpo(
            spec.path,
            rows,
            out_dir / "adapter",
            out_dir / "checkpoints",
            settings.grpo,
            settings.reward,
            seed,
            spec.device,
        )
        log = run.log_history
        del run, rows
        write_json(log_file, log)
        write_json(settings_file, trained_with)
    tuned = tuned_spec(spec, out_dir / "adapter")
    backend = load_backend(tuned)
    after = collect_pools(backend, data_dir, valid, records, settings.reward, aids)
    if not pools:
        return Stage1Result(spec, tuned, log, start, after, Pools([], [], {}))
    collected = collect_pools(backend, data_dir, pool_clicks, records, settings.reward, aids)
    write_jsonl(out_dir / "pools" / "failure.jsonl", collected.failure)
    write_jsonl(out_dir / "pools" / "success.jsonl", collected.success)
    return Stage1Result(spec, tuned, log, start, after, collected)
