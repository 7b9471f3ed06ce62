"""The `ablations` stage (notebook 06): stage-wise ablation (paper Table 4), reward-component
ablation (Table 5, each variant trained), prompt strategies (Table 6, Figure 6) and the
evaluator's observation aids."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from darkguard import paths
from darkguard.config import AblationsParams, Config, RewardOverride, view
from darkguard.defenses.dude.evaluator import tuned_spec
from darkguard.envs.ruc_static import task_suite
from darkguard.models.registry import resolve_spec
from darkguard.ruc.validate import load_records
from darkguard.stages import stage1_grpo
from darkguard.stages.ablations.aids import aids_ablation
from darkguard.stages.guard_eval import Gate, GuardRun, guard_runs, read_experience
from darkguard.stages.stage1_grpo import stage_dir

# The params.yaml keys the stage reads (dvc.yaml lists them as its `params`); the reward variants
# read what `stage1_grpo.run` reads without the pools.
PARAMS = (
    "base.profile",
    "base.seed",
    "data.out_dir",
    "models",
    "stage1.reward",
    "stage1.grpo",
    "guard_eval.split",
    "guard_eval.per_domain",
    "guard_eval.t_max",
    "guard_eval.batch_tasks",
    "guard_eval.experience",
    "ablations.agent",
    "ablations.reward_variants",
    "ablations.observation_aids",
    "ablations.safety_prompt",
)


@dataclass
class AblationResult:
    settings: AblationsParams
    tasks: int
    stagewise: list[GuardRun]
    prompts: list[GuardRun]
    rewards: list[dict]  # variant, valid pass rate, FER, ...
    aids: list[dict]  # aid setting, valid pass rate, FER, ... (`aids_ablation`)


def ablations_dir() -> Path:
    return paths.data_dir() / "ablations"


def reward_ablation(cfg: Config, variants: dict[str, RewardOverride]) -> list[dict]:
    """Train Stage 1 once per reward variant (overrides of `stage1.reward`) and judge the valid
    clicks; the variant without overrides reads the `stage1_grpo` stage's own adapter."""
    rows = []
    for name, variant in variants.items():
        overrides = variant.changes()
        varied = cfg.override({f"stage1.reward.{k}": v for k, v in overrides.items()})
        out = stage_dir() if not overrides else ablations_dir() / "reward" / paths.slug(name)
        reuse = True if not overrides else None
        result = stage1_grpo.run(varied, out, pools=False, reuse=reuse, before=False)
        m = result.after.metrics
        rows.append(
            {
                "variant": name,
                "pass_rate": m["pass_rate"],
                "fatal_error_rate": m["c4_fatal_error_rate"],
                **{k: m[k] for k in ("c1_rate", "c2_rate", "c3_rate", "parse_failure_rate")},
            }
        )
    return rows


def run(cfg: Config) -> AblationResult:
    """The stage: the guard runs of Tables 4 and 6, the reward variants, the aid settings."""
    cfg = view(cfg, PARAMS)
    settings = cfg.ablations
    guard = cfg.guard_eval
    data_dir = paths.resolve(cfg.data.out_dir)
    suite = task_suite(
        load_records(data_dir, f"{guard.split}.json"), guard.per_domain, cfg.base.seed
    )
    agent = resolve_spec(settings.agent, "agent", cfg)
    base = resolve_spec(None, "evaluator", cfg)
    tuned = tuned_spec(base, stage_dir() / "adapter")
    experience = read_experience(guard.experience or "data/stage2/experience.txt")
    stage_gates = [
        Gate("vanilla evaluator", base),
        Gate("Stage 1 only", tuned),
        Gate("Stage 2 only", base, experience),
        Gate("Stage 1 + Stage 2", tuned, experience),
    ]
    prompt_gates = [
        Gate("no system prompt", tuned, None, system_prompt=False),
        Gate("manual safety prompt", tuned, settings.safety_prompt or None),
        Gate("Stage-2 optimized prompt", tuned, experience),
    ]
    journals = ablations_dir() / "episodes"
    gates = stage_gates + prompt_gates
    runs = guard_runs(
        [agent], gates, data_dir, suite, journals, guard.t_max, batch=guard.batch_tasks
    )
    stagewise = runs[: 1 + len(stage_gates)]
    prompts = runs[1 + len(stage_gates) :]
    rewards = reward_ablation(cfg, settings.reward_variants)
    overrides = [row.changes() for row in settings.observation_aids]
    aids = aids_ablation(base, overrides, data_dir, ablations_dir() / "aids")
    return AblationResult(settings, len(suite), stagewise, prompts, rewards, aids)
