"""The `ablations` stage (notebook 06): stage-wise ablation (paper Table 4), reward-component
ablation (Table 5, each variant trained), prompt strategies (Table 6, Figure 6) and the
evaluator's observation aids.

Table 4's "Stage 2 only" row gates with the vanilla evaluator and an experience that Algorithm 1
mined with that same evaluator: Stage-1-style pools of the `stage1.pool_split` clicks judged by
the vanilla evaluator (`collect_pools`), then `summarize_experience` with `stage2`'s loop,
summarizer and validation clicks. The rows with Stage 1 use the `stage2_summarize` stage's
experience, mined with the Stage-1 evaluator.

The guard runs, each reward variant's training and each aid setting's warm-up depend on nothing
else the stage computes: they run as jobs, `ablations.workers` side by side, each in a fresh
process with one torch thread (`darkguard.jobs`), so their results do not depend on the number."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path

from darkguard import paths
from darkguard.config import AblationsParams, Config, RewardOverride, view
from darkguard.defenses.dude.built import read_experience
from darkguard.defenses.dude.evaluator import tuned_spec
from darkguard.io import atomic_write_text, write_json
from darkguard.jobs import Job, run_jobs
from darkguard.loop.pool import pool_of
from darkguard.models.registry import resolve_spec
from darkguard.models.spec import ModelSpec
from darkguard.stages import stage1_grpo
from darkguard.stages.ablations.aids import (
    aids_ablation,
    aids_label,
    copies_to_train,
    copy_dir,
    trained_copy,
)
from darkguard.stages.guard_eval import Gate, GuardRun, guard_runs, suite_of
from darkguard.stages.stage1_grpo import _clicks, stage_dir
from darkguard.stages.stage2_summarize import make_miner
from darkguard.training.dude.stage1 import collect_pools
from darkguard.training.dude.stage2 import Stage2State

# The params.yaml keys the stage reads (dvc.yaml lists them as its `params`); the reward variants
# read what `stage1_grpo.run` reads without the pools; "Stage 2 only" reads stage1.pool_split and
# what Algorithm 1 reads in `stage2_summarize`.
PARAMS = (
    "base.profile",
    "base.seed",
    "data.out_dir",
    "models",
    "stage1.reward",
    "stage1.grpo",
    "stage1.launch",
    "stage1.pool_split",
    "stage2.summarizer",
    "stage2.validation_clicks",
    "stage2.loop",
    "guard_eval.split",
    "guard_eval.per_domain",
    "guard_eval.t_max",
    "guard_eval.batch_tasks",
    "guard_eval.workers",
    "guard_eval.experience",
    "parallel",
    "ablations.agent",
    "ablations.reward_variants",
    "ablations.observation_aids",
    "ablations.safety_prompt",
    "ablations.workers",
)
STAGE2_EXPERIENCE = "data/stage2/experience.txt"  # the stage2_summarize stage's experience
VANILLA_EXPERIENCE = "data/ablations/stage2_vanilla/experience.txt"  # `vanilla_stage2`'s


@dataclass
class AblationResult:
    settings: AblationsParams
    tasks: int
    stagewise: list[GuardRun]
    prompts: list[GuardRun]
    rewards: list[dict]  # variant, valid pass rate, FER, ...
    aids: list[dict]  # aid setting, valid pass rate, FER, ... (`aids_ablation`)
    experiences: dict[str, str]  # gate label -> the experience it used, in words
    vanilla_stage2: dict  # Algorithm 1 with the vanilla evaluator (`vanilla_stage2`)


def ablations_dir() -> Path:
    return paths.data_dir() / "ablations"


def vanilla_stage2(cfg: Config, base: ModelSpec, data_dir: Path) -> tuple[str, dict]:
    """Algorithm 1 with the vanilla evaluator `base`: the pool clicks judged by it (failure:
    negative reward, as Stage 1 builds its pools), then the `stage2` loop. Returns the experience
    (written under data/ablations/stage2_vanilla/) and a summary of the run."""
    clicks, records = _clicks(data_dir, cfg.stage1.pool_split)
    miner = make_miner(cfg, base, data_dir, records)
    evaluator = miner.judge.evaluator
    pools = collect_pools(
        evaluator.backend, data_dir, clicks, records, cfg.stage1.reward, evaluator.aids
    )
    state = miner.loop(pools.failure, pools.success, cfg.stage2.loop)
    out = ablations_dir() / "stage2_vanilla"  # VANILLA_EXPERIENCE's folder
    atomic_write_text(out / "experience.txt", state.experience + "\n")
    write_json(out / "log.json", state.log)
    return state.experience, _mining_summary(pools.failure, pools.success, state)


def _mining_summary(failure: list, success: list, state: Stage2State) -> dict:
    last = state.log[-1]
    return {
        "initial_failure": len(failure),
        "initial_success": len(success),
        "final_failure": len(state.failure),
        "final_success": len(state.success),
        "iterations": last["iteration"],
        "rejected": sum(row["accepted"] is False for row in state.log),
        "valid_pass_rate_before": state.log[0]["valid_pass_rate"],
        "valid_pass_rate_after": last["valid_pass_rate"],
        "benign_acceptance_before": state.log[0]["benign_acceptance"],
        "benign_acceptance_after": last["benign_acceptance"],
        "experience_words": last["experience_words"],
    }


def stagewise_gates(
    base: ModelSpec, tuned: ModelSpec, mined: str, stage2: str | None, stage2_file: str
) -> dict[Gate, str]:
    """Table 4's gates, each with where its experience comes from: `mined` by Algorithm 1 with
    the vanilla evaluator (`vanilla_stage2`), `stage2` read from `stage2_file`."""
    from_stage2 = f"{stage2_file} (Algorithm 1, Stage-1 evaluator)" if stage2 else "none"
    return {
        Gate("vanilla evaluator", base): "none",
        Gate("Stage 1 only", tuned): "none",
        Gate("Stage 2 only", base, mined or None): (
            f"{VANILLA_EXPERIENCE} (Algorithm 1, vanilla evaluator)"
            if mined
            else "none (Algorithm 1 with the vanilla evaluator kept no experience)"
        ),
        Gate("Stage 1 + Stage 2", tuned, stage2): from_stage2,
    }


def prompt_gates(
    tuned: ModelSpec, safety_prompt: str, stage2: str | None, stage2_file: str
) -> dict[Gate, str]:
    """Table 6's gates (the Stage-1 evaluator), each with where its guidance comes from."""
    return {
        Gate("no system prompt", tuned, None, system_prompt=False): "none",
        Gate("manual safety prompt", tuned, safety_prompt or None): "ablations.safety_prompt",
        Gate("Stage-2 optimized prompt", tuned, stage2): (
            f"{stage2_file} (Algorithm 1, Stage-1 evaluator)" if stage2 else "none"
        ),
    }


def reward_variant(cfg: Config, name: str, variant: RewardOverride) -> dict:
    """Table 5's row of one reward variant (overrides of `stage1.reward`): Stage 1 trained with
    it, judging the valid clicks; the variant without overrides reads the `stage1_grpo` stage's
    own adapter."""
    overrides = variant.changes()
    varied = cfg.override({f"stage1.reward.{k}": v for k, v in overrides.items()})
    out = stage_dir() if not overrides else ablations_dir() / "reward" / paths.slug(name)
    reuse = True if not overrides else None
    after = stage1_grpo.run(varied, out, pools=False, reuse=reuse, before=False).after
    m, judged = after.metrics, after.failure + after.success
    return {
        "variant": name,
        "pass_rate": m["pass_rate"],
        "fatal_error_rate": m["c4_fatal_error_rate"],
        "clicks": len(judged),
        "deceptive_clicks": sum(e["label"] == -1 for e in judged),
        **{k: m[k] for k in ("c1_rate", "c2_rate", "c3_rate", "parse_failure_rate")},
    }


def reward_jobs(cfg: Config, variants: dict[str, RewardOverride]) -> list[Job]:
    """A job per variant that trains (every one with overrides), for `run_jobs`."""
    return [
        Job(f"reward variant {name!r}", partial(reward_variant, cfg, name, variant))
        for name, variant in variants.items()
        if variant.changes()
    ]


def reward_ablation(
    cfg: Config, variants: dict[str, RewardOverride], trained: dict[str, dict] | None = None
) -> list[dict]:
    """Table 5's rows in the order of `variants`: those in `trained` (variant -> row, from
    `reward_jobs`) as they are, the others trained and judged here (`reward_variant`)."""
    trained = trained or {}
    return [trained.get(name) or reward_variant(cfg, name, v) for name, v in variants.items()]


def aids_jobs(base: ModelSpec, overrides: list[dict], data_dir: Path) -> list[Job]:
    """A job per observation-aid setting that needs a warmed-up copy of `base` (`trained_copy`),
    for `run_jobs`."""
    root = ablations_dir() / "aids"
    return [
        Job(
            f"observation aids {aids_label(aids)!r}",
            partial(trained_copy, base, aids, data_dir, copy_dir(root, aids)),
        )
        for aids in copies_to_train(base, overrides)
    ]


@dataclass
class GatedRuns:
    """Tables 4 and 6: the agent alone and behind each gate, with each gate's experience source
    and Algorithm 1's run with the vanilla evaluator."""

    stagewise: list[GuardRun]
    prompts: list[GuardRun]
    experiences: dict[str, str]  # gate label -> the experience it used, in words
    vanilla_stage2: dict  # `vanilla_stage2`'s summary


def guard_suite(cfg: Config, data_dir: Path) -> list[dict]:
    """The `guard_eval` stage's test suite (its split, tasks per domain and seed, and the
    held-out style family's tasks of that split)."""
    return suite_of(cfg.guard_eval, data_dir, cfg.base.seed)[0]


def gated_runs(cfg: Config) -> GatedRuns:
    """Algorithm 1 with the vanilla evaluator ("Stage 2 only"'s experience), then the agent of
    `ablations.agent` alone and behind each gate of Tables 4 and 6 on the guard suite, gated by
    the paper's rule (a click executes when judged 1)."""
    settings, guard = cfg.ablations, cfg.guard_eval
    data_dir = paths.resolve(cfg.data.out_dir)
    suite = guard_suite(cfg, data_dir)
    agent = resolve_spec(settings.agent, "agent", cfg)
    base = resolve_spec(None, "evaluator", cfg)
    tuned = tuned_spec(base, stage_dir() / "adapter")
    stage2_file = guard.experience or STAGE2_EXPERIENCE
    experience = read_experience(stage2_file)
    mined_x, mined = vanilla_stage2(cfg, base, data_dir)
    stage_gates = stagewise_gates(base, tuned, mined_x, experience, stage2_file)
    sources = {
        **stage_gates,
        **prompt_gates(tuned, settings.safety_prompt, experience, stage2_file),
    }
    runs = guard_runs(
        [agent],
        list(sources),
        data_dir,
        suite,
        ablations_dir() / "episodes",
        guard.t_max,
        batch=guard.batch_tasks,
        pool=pool_of(guard.workers, cfg.parallel),
    )
    used = {gate.label: source for gate, source in sources.items()}
    split = 1 + len(stage_gates)  # the agent alone, then Table 4's gates, then Table 6's
    return GatedRuns(runs[:split], runs[split:], used, mined)


def run(cfg: Config) -> AblationResult:
    """The stage: the guard runs of Tables 4 and 6, the reward variants, the aid settings, as
    jobs side by side (`ablations.workers`; `darkguard.jobs`), the longest first: the aid
    settings' warm-ups, the guard runs, then the reward variants."""
    cfg = view(cfg, PARAMS)
    settings = cfg.ablations
    data_dir = paths.resolve(cfg.data.out_dir)
    base = resolve_spec(None, "evaluator", cfg)
    overrides = [row.changes() for row in settings.observation_aids]
    copy_jobs = aids_jobs(base, overrides, data_dir)
    gates = Job("Tables 4 and 6: the guard runs", partial(gated_runs, cfg))
    variant_jobs = reward_jobs(cfg, settings.reward_variants)
    done = run_jobs([*copy_jobs, gates, *variant_jobs], settings.workers)
    gated: GatedRuns = done[len(copy_jobs)]
    trained = {row["variant"]: row for row in done[len(copy_jobs) + 1 :]}
    rewards = reward_ablation(cfg, settings.reward_variants, trained)
    copies = copies_to_train(base, overrides)  # warmed up by their jobs
    aids = aids_ablation(base, overrides, data_dir, ablations_dir() / "aids", trained=copies)
    return AblationResult(
        settings,
        len(guard_suite(cfg, data_dir)),
        gated.stagewise,
        gated.prompts,
        rewards,
        aids,
        gated.experiences,
        gated.vanilla_stage2,
    )
