"""The `ablations` stage (notebook 06): stage-wise ablation (paper Table 4), reward-component
ablation (Table 5, each variant trained), prompt strategies (Table 6, Figure 6) and the
evaluator's observation aids."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from darkguard import paths
from darkguard.dude.guard_run import guard_suite
from darkguard.io import InputError, read_json
from darkguard.models.registry import resolve_spec
from darkguard.pipeline.aids_ablation import aids_ablation
from darkguard.pipeline.guard_eval import Gate, GuardRun, GuardSettings, guard_runs, read_experience
from darkguard.pipeline.stage1 import run_stage1, stage_dir, tuned_spec


@dataclass(frozen=True)
class AblationSettings:
    agent: str  # the agent of the stage-wise and prompt ablations (paper: Qwen3-VL-4B)
    reward_variants: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> overrides
    safety_prompt: str = ""  # the manually designed safety prompt of Table 6
    observation_aids: list[dict[str, Any]] = field(default_factory=list)  # overrides, each a row

    @classmethod
    def from_params(cls, section: dict[str, Any], profile: str) -> AblationSettings:
        known = {"agent", "reward_variants", "safety_prompt", "observation_aids"}
        unknown = sorted(set(section) - known)
        if unknown:
            raise InputError(f"params.yaml: section 'ablations': unknown key(s) {unknown}")
        agents = section.get("agent", {})
        if profile not in agents:
            raise InputError(f"params.yaml: ablations.agent: no agent for profile '{profile}'")
        return cls(
            agent=agents[profile],
            reward_variants=dict(section.get("reward_variants", {})),
            safety_prompt=str(section.get("safety_prompt", "")).strip(),
            observation_aids=list(section.get("observation_aids", {}).get(profile, [])),
        )


@dataclass
class AblationResult:
    settings: AblationSettings
    tasks: int
    stagewise: list[GuardRun]
    prompts: list[GuardRun]
    rewards: list[dict]  # variant, valid pass rate, FER, ...
    aids: list[dict]  # aid setting, valid pass rate, FER, ... (`aids_ablation`)


def ablations_dir() -> Path:
    return paths.data_dir() / "ablations"


def reward_ablation(params: dict[str, Any], variants: dict[str, dict]) -> list[dict]:
    """Train Stage 1 once per reward variant (overrides of `stage1.reward`) and judge the valid
    clicks; the variant without overrides reads the `stage1_grpo` stage's own adapter."""
    rows = []
    for name, overrides in variants.items():
        unknown = sorted(set(overrides) - set(params["stage1"]["reward"]))
        if unknown:
            raise InputError(f"params.yaml: ablations.reward_variants.{name}: unknown {unknown}")
        varied = copy.deepcopy(params)
        varied["stage1"]["reward"].update(overrides)
        out = stage_dir() if not overrides else ablations_dir() / "reward" / paths.slug(name)
        reuse = True if not overrides else None
        result = run_stage1(varied, out, pools=False, reuse=reuse, before=False)
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


def run_ablations(params: dict[str, Any]) -> AblationResult:
    profile = params["base"]["profile"]
    settings = AblationSettings.from_params(params["ablations"], profile)
    guard = GuardSettings.from_params(params["guard_eval"], profile)
    data_dir = paths.resolve(params["data"]["out_dir"])
    suite = guard_suite(
        read_json(data_dir / f"{guard.split}.json"), guard.per_domain, params["base"]["seed"]
    )
    agent = resolve_spec(settings.agent, "agent", params)
    base = resolve_spec(None, "evaluator", params)
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
    rewards = reward_ablation(params, settings.reward_variants)
    aids = aids_ablation(base, settings.observation_aids, data_dir, ablations_dir() / "aids")
    return AblationResult(settings, len(suite), stagewise, prompts, rewards, aids)
