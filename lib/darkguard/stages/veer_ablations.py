"""The `veer_ablations` stage (notebook 10): Veer's variants on TrickyArena-Single (Veer §4.4,
Tables 18-19): w/o state intervention (turn the proposal back, change nothing), reactive
intervention (one corrective step at a time), w/o temporal evidence, one-step intervention (one
corrective action, no verification). Full Veer's episodes are those of `veer_eval` (one
journal)."""

from __future__ import annotations

from dataclasses import dataclass, field

from darkguard.config import Config
from darkguard.stages.arena_runs import SetRun, agent_name, run_set, write_run_index
from darkguard.stages.veer_eval import method_spec, reasoner_name

# The params.yaml keys the stage reads (dvc.yaml lists them as its `params`).
PARAMS = (
    "base.profile",
    "base.seed",
    "arena_eval",
    "veer_eval",
    "veer_ablations",
    "parallel",
)


@dataclass
class VeerAblationsResult:
    agent: str
    reasoner: str
    set: str
    variants: dict[str, SetRun] = field(default_factory=dict)


def run(cfg: Config, progress=None) -> VeerAblationsResult:
    p = cfg.veer_ablations
    result = VeerAblationsResult(
        agent_name(cfg.arena_eval.agent), reasoner_name(cfg.veer_eval.reasoner), p.set
    )
    for variant in p.variants:
        result.variants[variant] = run_set(method_spec(cfg, variant), p.set, progress)
    write_run_index("veer_ablations", {v: {p.set: r} for v, r in result.variants.items()})
    return result
