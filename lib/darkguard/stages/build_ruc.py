"""The `build_ruc` stage: benchmark records, validation, split and Stage-1 clicks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from darkguard import paths
from darkguard.config import Config, view
from darkguard.io import write_json, write_jsonl
from darkguard.ruc.clicks import generate_clicks
from darkguard.ruc.release import import_release
from darkguard.ruc.split import HELDOUT_SPLITS, SPLITS, hold_out, stratified_split
from darkguard.ruc.validate import validate_dir
from darkguard.runinfo import write_run_info

# The params.yaml keys the stage reads (dvc.yaml lists them as its `params`).
PARAMS = (
    "base.profile",
    "base.seed",
    "data.source",
    "data.raw_dir",
    "data.out_dir",
    "data.composition",
    "data.domains",
    "data.viewports",
    "data.split",
    "data.families",
    "data.n_null",
    "data.examples",
)


@dataclass
class RucBuild:
    out_dir: Path
    records: list[dict]
    splits: dict[str, list[dict]]
    clicks: dict[str, list[dict]]
    rejected: list[dict]
    manifest: list[dict]


def run(cfg: Config, progress: Callable[[int, int], None] | None = None) -> RucBuild:
    """Build (synth) or import (ruc) the benchmark into `data.out_dir`, validate it, split it and
    generate the clicks of every split."""
    cfg = view(cfg, PARAMS)
    params, base = cfg.data, cfg.base
    out_dir = paths.resolve(params.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest: list[dict] = []
    if params.source == "synth":
        from darkguard.ruc.synth.families import check_families
        from darkguard.ruc.synth.generate import build_synth

        check_families([*params.families.train, *params.families.heldout])
        records, manifest = build_synth(
            out_dir=out_dir,
            normal=params.normal_count,
            deceptive=params.deceptive_counts,
            domains=list(params.domains),
            viewports=params.viewports,
            seed=base.seed,
            split=params.split,
            families=params.families.plan,
            mix_rate=params.families.mix_rate,
            progress=progress,
        )
        records.sort(key=lambda r: r["id"])
    else:
        records = import_release(paths.resolve(params.raw_dir), out_dir)
    _prune_unreferenced(out_dir, records)
    if params.source == "ruc":
        (out_dir / "journal.jsonl").unlink(missing_ok=True)
    write_json(out_dir / "full.json", records)
    splits = hold_out(stratified_split(records, params.split, base.seed), held_out(params))
    names = SPLITS + (HELDOUT_SPLITS if held_out(params) else ())
    for name in SPLITS + HELDOUT_SPLITS:
        (out_dir / f"{name}.json").unlink(missing_ok=True)
        (out_dir / "clicks" / f"{name}.jsonl").unlink(missing_ok=True)
    for name in names:
        write_json(out_dir / f"{name}.json", splits[name])
    validate_dir(out_dir).raise_for_issues()  # everything written is checked once more
    clicks, rejected = {}, []
    for name in names:
        clicks[name], bad = generate_clicks(splits[name], params.n_null, base.seed)
        rejected += bad
        write_jsonl(out_dir / "clicks" / f"{name}.jsonl", clicks[name])
    write_jsonl(out_dir / "clicks" / "rejected.jsonl", rejected)
    write_jsonl(out_dir / "manifest.jsonl", manifest)
    write_run_info(
        out_dir / "run_info.json", {"base": base.model_dump(), "data": params.model_dump()}
    )
    return RucBuild(out_dir, records, splits, clicks, rejected, manifest)


def held_out(params) -> list[str]:
    """The style families held out of training (none for the public RUC)."""
    return list(params.families.heldout) if params.source == "synth" else []


def _prune_unreferenced(out_dir: Path, records: list[dict]) -> None:
    """Remove images and pages of earlier builds that no record references any more."""
    keep = {r["image_path"] for r in records} | {str(r.get("url")) for r in records}
    for sub in ("images", "websites"):
        for path in sorted((out_dir / sub).glob("*")):
            if path.is_file() and path.relative_to(out_dir).as_posix() not in keep:
                path.unlink()
