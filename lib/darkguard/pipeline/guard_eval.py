"""The `guard_eval` stage (`darkguard evaluate`, notebook 05): every agent of the profile alone
(vanilla) and with DUDE (each evaluator of the profile gating its clicks, Stage-2 experience in
the evaluator's guidance block), on the paper's test suite (5.1)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from darkguard import paths
from darkguard.dude.agents import Agent, OfflineAgent, VLMAgent
from darkguard.dude.guard import T_MAX, Episode
from darkguard.dude.guard_metrics import episode_metrics, metrics_by
from darkguard.dude.guard_run import EvaluatorJudge, evaluate_agent, guard_suite
from darkguard.io import InputError, read_json
from darkguard.models.backends import Backend, load_backend
from darkguard.models.identity import spec_identity
from darkguard.models.registry import resolve_spec
from darkguard.models.spec import ModelSpec
from darkguard.pipeline.stage1 import evaluator_aids


@dataclass(frozen=True)
class GuardSettings:
    split: str = "test"
    per_domain: int = 50
    t_max: int = T_MAX
    batch_tasks: int = 16  # tasks run in lockstep, their agent and evaluator calls batched
    agents: list[str] = field(default_factory=list)  # model names of models.<profile>
    evaluators: list[str] = field(default_factory=list)
    experience: str | None = "data/stage2/experience.txt"  # None: no Stage-2 experience

    @classmethod
    def from_params(cls, section: dict[str, Any], profile: str) -> GuardSettings:
        unknown = sorted(set(section) - set(cls.__dataclass_fields__))
        if unknown:
            raise InputError(f"params.yaml: section 'guard_eval': unknown key(s) {unknown}")
        values = dict(section)
        for key in ("agents", "evaluators"):
            per_profile = values.get(key, {})
            if profile not in per_profile:
                raise InputError(f"params.yaml: guard_eval.{key}: no list for profile '{profile}'")
            values[key] = list(per_profile[profile])
        return cls(**values)


@dataclass
class GuardRun:
    agent: str
    evaluator: str | None  # None: the vanilla agent
    episodes: list[Episode]

    @property
    def metrics(self) -> dict[str, float]:
        return episode_metrics(self.episodes)

    @property
    def by_domain(self) -> dict[str, dict[str, float]]:
        return metrics_by(self.episodes, "domain")


def read_experience(path: str | Path | None) -> str | None:
    """The Stage-2 experience text (None when no path is given)."""
    if path is None:
        return None
    file = paths.resolve(str(path))
    if not file.is_file():
        raise InputError(f"{file}: no Stage-2 experience (run the stage2_summarize stage)")
    return file.read_text(encoding="utf-8").strip() or None


def make_agent(spec: ModelSpec) -> tuple[Agent, Backend | None]:
    """The agent for a spec, and its backend (None for the offline agent)."""
    if spec.backend == "offline":
        return OfflineAgent(), None
    backend = load_backend(spec)
    return VLMAgent(spec.name, backend), backend


@dataclass(frozen=True)
class Gate:
    """An evaluator as it gates the agent: its model, the experience in its guidance block, and
    whether it gets its system prompt."""

    label: str  # how tables name this setting
    spec: ModelSpec
    experience: str | None = None
    system_prompt: bool = True


def run_key(agent: ModelSpec, gate: Gate | None, t_max: int, batch: int = 1) -> str:
    """A short hash of what a run depends on (settings, model weights, the episode code, the
    batching, not where the files lie); a journal with another key starts afresh."""
    parts = [spec_identity(agent), t_max, batch, _code_identity()]
    if gate:
        parts += [gate.label, spec_identity(gate.spec), gate.experience, gate.system_prompt]
    blob = json.dumps(parts, sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:12]


def _code_identity() -> str:
    """The source of the modules that decide an episode's outcome."""
    from darkguard.dude import agents, guard, guard_run, inputs
    from darkguard.models import parsing, prompts

    digest = hashlib.sha256()
    for module in (agents, guard, guard_run, inputs, parsing, prompts):
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()


def guard_runs(
    agent_specs: list[ModelSpec],
    gates: list[Gate],
    data_dir: Path,
    suite: list[dict],
    journal_dir: Path,
    t_max: int = T_MAX,
    vanilla: bool = True,
    batch: int = 1,
) -> list[GuardRun]:
    """Each agent vanilla (unless `vanilla` is False), then behind each gate, `batch` tasks at a
    time in lockstep; every run journaled under `journal_dir` (an interrupted stage resumes).
    A gate that repeats an earlier one's settings under another label takes its episodes (greedy
    decoding: a second run would repeat them). Journals of other runs are removed."""
    journal_dir.mkdir(parents=True, exist_ok=True)
    backends: dict[ModelSpec, Backend] = {}
    runs, kept = [], set()
    for a_spec in agent_specs:
        agent, agent_backend = make_agent(a_spec)
        seen: dict[tuple, list[Episode]] = {}
        for gate in [None, *gates] if vanilla else gates:
            label = gate.label if gate else None
            same = (gate.spec, gate.experience, gate.system_prompt) if gate else None
            if same in seen:
                runs.append(GuardRun(a_spec.name, label, seen[same]))
                continue
            key = run_key(a_spec, gate, t_max, batch)
            journal = (
                journal_dir / f"{a_spec.name}__{_slug(gate.label if gate else 'vanilla')}.jsonl"
            )
            _reset_if_other(journal, key)
            judge = None
            if gate:
                if gate.spec not in backends:
                    backends[gate.spec] = load_backend(gate.spec)
                judge = EvaluatorJudge(
                    backends[gate.spec],
                    gate.experience,
                    evaluator_aids(gate.spec),
                    gate.system_prompt,
                )
            episodes = evaluate_agent(
                agent, judge, data_dir, suite, journal, t_max, agent_backend, batch
            )
            seen[same] = episodes
            runs.append(GuardRun(a_spec.name, label, episodes))
            kept |= {journal.name, journal.name + ".key"}
    for stale in [*journal_dir.glob("*.jsonl"), *journal_dir.glob("*.jsonl.key")]:
        if stale.name not in kept:
            stale.unlink()
    return runs


def _slug(label: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in label)


def _reset_if_other(journal: Path, key: str) -> None:
    """Start the journal afresh when it belongs to other settings."""
    marker = journal.with_name(journal.name + ".key")
    if not marker.is_file() or marker.read_text().strip() != key:
        journal.unlink(missing_ok=True)
        marker.write_text(key + "\n")


@dataclass
class GuardResult:
    settings: GuardSettings
    suite: list[dict]
    experience: str | None
    runs: list[GuardRun]


def guard_dir() -> Path:
    """Episode journals of the guard evaluation."""
    return paths.data_dir() / "guard"


def run_guard_eval(params: dict[str, Any]) -> GuardResult:
    """The stage: the suite, the profile's agents and evaluators, the Stage-2 experience."""
    profile = params["base"]["profile"]
    settings = GuardSettings.from_params(params["guard_eval"], profile)
    data_dir = paths.resolve(params["data"]["out_dir"])
    records = read_json(data_dir / f"{settings.split}.json")
    suite = guard_suite(records, settings.per_domain, params["base"]["seed"])
    experience = read_experience(settings.experience)
    agents = [resolve_spec(name, "agent", params) for name in settings.agents]
    gates = [
        Gate(name, resolve_spec(name, "evaluator", params), experience)
        for name in settings.evaluators
    ]
    runs = guard_runs(
        agents, gates, data_dir, suite, guard_dir(), settings.t_max, batch=settings.batch_tasks
    )
    return GuardResult(settings, suite, experience, runs)
