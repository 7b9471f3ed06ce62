"""The `stage1_grpo` stage: train the profile's evaluator with hybrid-reward GRPO, compare it with
the starting evaluator on the valid split, and write the failure and success pools."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from darkguard import paths
from darkguard.config import Config, view
from darkguard.defenses.dude.evaluator import evaluator_aids, tuned_spec
from darkguard.io import InputError, read_json, read_jsonl, write_json, write_jsonl
from darkguard.models.backends import load_backend
from darkguard.models.identity import spec_identity
from darkguard.models.registry import resolve_spec
from darkguard.models.spec import ModelSpec
from darkguard.reuse import reuse_trained
from darkguard.ruc.validate import records_by_id
from darkguard.training.dude import launch
from darkguard.training.dude.launch import GRPOJob
from darkguard.training.dude.stage1 import Pools, collect_pools, grpo_rows

# The params.yaml keys the stage reads (dvc.yaml lists them as its `params`).
PARAMS = (
    "base.profile",
    "base.seed",
    "data.out_dir",
    "models",
    "stage1.reward",
    "stage1.pool_split",
    "stage1.grpo",
    "stage1.launch",
)


def stage_dir() -> Path:
    return paths.data_dir() / "stage1"


@dataclass
class Stage1Result:
    evaluator: ModelSpec
    tuned: ModelSpec
    log_history: list[dict]
    before: Pools | None  # the starting evaluator on the valid clicks (None: not judged)
    after: Pools  # the tuned evaluator on the valid clicks
    pools: Pools  # the tuned evaluator on the pool clicks (Stage 2's input)
    heldout_before: Pools | None = None  # ... on the held-out style family's valid clicks
    heldout_after: Pools | None = None


def checkpoints_for(directory: Path, trained_with: dict) -> None:
    """Keep the checkpoints of an interrupted run in `directory` only when that run trained with
    the same settings and starting evaluator (`trained_with`, stamped beside them); any others
    are removed, so a run never resumes another run's training."""
    stamp = directory / "trained_with.json"
    if directory.is_dir() and (not stamp.is_file() or read_json(stamp) != trained_with):
        shutil.rmtree(directory)
    directory.mkdir(parents=True, exist_ok=True)
    write_json(stamp, trained_with)


def _clicks(data_dir: Path, split: str) -> tuple[list[dict], dict[str, dict]]:
    records = records_by_id(data_dir)
    path = data_dir / "clicks" / f"{split}.jsonl"
    if not path.is_file():
        raise InputError(f"{path}: no clicks for split '{split}' (run the build_ruc stage)")
    return read_jsonl(path), records


def run(
    cfg: Config,
    out_dir: Path | None = None,
    pools: bool = True,
    reuse: bool | None = None,
    before: bool = True,
) -> Stage1Result:
    """Train, evaluate before/after on the valid clicks (and on the held-out style family's,
    when the build holds one out and `pools` is set), and write the pools under
    `data/stage1/` (adapter/, log_history.json, trained_with.json, pools/{failure,success}.jsonl).

    An adapter trained with the same settings is reused when `reuse` is True, or, with `reuse`
    None, when `DARKGUARD_REUSE_TRAINED=1`. `pools=False` skips the pools and `before=False` the
    starting evaluator's judgements (ablations: every variant starts from the same one)."""
    cfg = view(cfg, PARAMS)
    seed = cfg.base.seed
    settings = cfg.stage1
    data_dir = paths.resolve(cfg.data.out_dir)
    out_dir = Path(out_dir or stage_dir())
    spec = resolve_spec(None, "evaluator", cfg)
    aids = evaluator_aids(spec)
    train, records = _clicks(data_dir, "train")
    valid, _ = _clicks(data_dir, "valid")
    heldout_file = data_dir / "clicks" / "heldout_valid.jsonl"
    heldout = read_jsonl(heldout_file) if heldout_file.is_file() and pools else []
    pool_clicks = _clicks(data_dir, settings.pool_split)[0] if pools else []

    base = load_backend(spec)
    start = collect_pools(base, data_dir, valid, records, settings.reward, aids) if before else None
    held_start = (
        collect_pools(base, data_dir, heldout, records, settings.reward, aids)
        if before and heldout
        else None
    )
    trained_with = {
        "evaluator": spec_identity(spec),  # not its folder: copies of the data reuse it
        "seed": seed,
        "grpo": settings.grpo.model_dump(),
        "reward": settings.reward.model_dump(),
    }
    if not settings.launch.default:  # more processes or vLLM rollouts: another training run
        trained_with["launch"] = settings.launch.model_dump()
    log_file, settings_file = out_dir / "log_history.json", out_dir / "trained_with.json"
    reusable = log_file.is_file() and settings_file.is_file() and (out_dir / "adapter").is_dir()
    reuse = reuse_trained() if reuse is None else reuse
    if reuse and reusable and read_json(settings_file) == trained_with:
        log = read_json(log_file)
    else:
        rows = grpo_rows(train, records, data_dir, base.max_pixels, aids)
        del base
        checkpoints_for(out_dir / "checkpoints", trained_with)
        job = GRPOJob(
            spec.path,
            rows,
            out_dir / "adapter",
            out_dir / "checkpoints",
            settings.grpo,
            settings.reward,
            seed,
            spec.device,
        )
        log = launch.train(job, settings.launch, out_dir / "launch")
        del job, rows
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
    held_after = (
        collect_pools(backend, data_dir, heldout, records, settings.reward, aids)
        if heldout
        else None
    )
    return Stage1Result(spec, tuned, log, start, after, collected, held_start, held_after)
