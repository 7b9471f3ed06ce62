"""The `guard_eval` stage (`darkguard evaluate`, notebook 05): every agent of the profile alone
(vanilla) and with DUDE (each evaluator of the profile gating its clicks, Stage-2 experience in
the evaluator's guidance block), on the paper's test suite (5.1); and one agent behind oracles of
several accuracies (`oracle`: an evaluation instrument reading the true labels, not a defense)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from darkguard import paths
from darkguard.agents import Agent
from darkguard.agents.read_ahead import read_ahead, stop_reading_ahead
from darkguard.config import Config, GuardEvalParams, view
from darkguard.defenses.dude.built import read_experience
from darkguard.defenses.dude.evaluator import Evaluator, evaluator_aids, tuned_spec
from darkguard.defenses.dude.gate import DudeGate
from darkguard.envs.ruc_static import task_suite
from darkguard.io import InputError
from darkguard.loop.pool import IN_PROCESS, Pool, pool_of
from darkguard.loop.ruc import T_MAX, run_episodes, run_journaled_on
from darkguard.metrics.clicks import Episode, agent_alone_metrics, episode_metrics, metrics_by
from darkguard.models.backends import load_backend
from darkguard.models.identity import spec_identity
from darkguard.models.registry import resolve_spec
from darkguard.models.spec import ModelSpec
from darkguard.ruc.validate import load_records
from darkguard.stage_deps import closure
from darkguard.stages.guard_eval import threshold as threshold_module
from darkguard.stages.guard_eval.oracle import (
    Oracle,
    oracle_key,
    oracles_of,
)
from darkguard.stages.guard_eval.setups import (
    SetupsHere,
    gated_setup,
    make_agent,
    oracle_setup,
    ruc_task_opener,
)
from darkguard.stages.guard_eval.threshold import (
    allowing,
    balanced_threshold,
    best_threshold,
    cached,
    click_p1,
    on_clicks,
    sweep,
)
from darkguard.stages.stage1_grpo import stage_dir

# The params.yaml keys the stage reads (dvc.yaml lists them as its `params`).
PARAMS = (
    "base.profile",
    "base.seed",
    "data.out_dir",
    "models",
    "guard_eval.split",
    "guard_eval.per_domain",
    "guard_eval.t_max",
    "guard_eval.batch_tasks",
    "guard_eval.workers",
    "guard_eval.agents",
    "guard_eval.evaluators",
    "guard_eval.experience",
    "guard_eval.gate",
    "guard_eval.max_fatal_error_rate",
    "guard_eval.threshold_objective",
    "guard_eval.sweep_benign_allowed",
    "guard_eval.threshold_window",
    "guard_eval.oracle",
    "parallel",
)


@dataclass
class GuardRun:
    agent: str
    evaluator: str | None  # None: the vanilla agent; an oracle's label (`oracle@0.9`)
    episodes: list[Episode]
    experience: str | None = None  # the experience file the gate used (None: none)
    accuracy: float | None = None  # an oracle run's accuracy (None: not an oracle run)

    @property
    def oracle(self) -> bool:
        """An oracle-gated run (an evaluation instrument, not a defense)."""
        return self.accuracy is not None

    @property
    def metrics(self) -> dict[str, float]:
        return episode_metrics(self.episodes)

    @property
    def by_domain(self) -> dict[str, dict[str, float]]:
        return metrics_by(self.episodes, "domain")


def agent_alone(
    agent: Agent, data_dir: Path, records: list[dict], batch: int = 16
) -> tuple[list[Episode], dict[str, float]]:
    """The agent alone on `records` for one step, `batch` tasks at a time (without an evaluator
    nothing is fed back and a static screenshot does not change, so a greedy agent would repeat
    its click: one step decides the outcome), and its SR / DFR / NFR (`agent_alone_metrics`)."""
    open_task = ruc_task_opener(data_dir)
    episodes = []
    for start in range(0, len(records), batch):
        tasks = [open_task(r) for r in records[start : start + batch]]
        episodes += run_episodes(agent, None, tasks, t_max=1)
    return episodes, agent_alone_metrics(episodes)


@dataclass(frozen=True)
class Gate:
    """An evaluator as it gates the agent: its model, the experience in its guidance block, and
    whether it gets its system prompt."""

    label: str  # how tables name this setting
    spec: ModelSpec
    experience: str | None = None
    system_prompt: bool = True
    experience_file: str | None = None  # where `experience` came from (for reports only)
    threshold: float | None = None  # the confidence gate's P(L=1) threshold (None: paper's)


EPISODE_CODE = (
    "darkguard.loop.ruc",
    "darkguard.agents.offline",
    "darkguard.agents.vlm",
    "darkguard.defenses.dude.gate",
)


def run_key(agent: ModelSpec, gate: Gate | None, t_max: int, batch: int = 1) -> str:
    """A short hash of what a run depends on (settings, model weights, the episode code, the
    batching, not where the files lie); a journal with another key starts afresh."""
    parts = [spec_identity(agent), t_max, batch, _code_identity()]
    if gate:
        parts += [gate.label, spec_identity(gate.spec), gate.experience, gate.system_prompt]
        if gate.threshold is not None:  # (the paper's gate keeps its former keys)
            parts.append(gate.threshold)
    blob = json.dumps(parts, sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:12]


def _code_identity() -> str:
    """The source of the code that decides an episode's outcome: what the RUC loop, the agents
    and the DUDE gate import, at any depth."""
    digest = hashlib.sha256()
    for file in sorted(closure(EPISODE_CODE)):
        digest.update(file.read_bytes())
    return digest.hexdigest()


def _file_digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def guard_runs(
    agent_specs: list[ModelSpec],
    gates: list[Gate],
    data_dir: Path,
    suite: list[dict],
    journal_dir: Path,
    t_max: int = T_MAX,
    vanilla: bool = True,
    batch: int = 1,
    oracles: Mapping[str, Sequence[Oracle]] | None = None,
    pool: Pool = IN_PROCESS,
) -> list[GuardRun]:
    """Each agent vanilla (unless `vanilla` is False), then behind each gate, then behind each of
    its `oracles` (by agent name), `batch` tasks at a time in lockstep; every run journaled under
    `journal_dir` (an interrupted stage resumes). A gate that repeats an earlier one's settings
    under another label takes its episodes (greedy decoding: a second run would repeat them).
    Journals of other runs are removed.

    On a `pool` of several workers each worker loads its own agent and evaluator for a run and
    takes batches (the same batches as in this process); this process writes the journals."""
    journal_dir.mkdir(parents=True, exist_ok=True)
    here = SetupsHere()
    runs, kept = [], set()
    for a_spec in agent_specs:
        seen: dict[tuple, list[Episode]] = {}
        for gate in [None, *gates] if vanilla else gates:
            label = gate.label if gate else None
            same = (
                (gate.spec, gate.experience, gate.system_prompt, gate.threshold) if gate else None
            )
            experience = gate.experience_file if gate and gate.experience else None
            if same in seen:
                runs.append(GuardRun(a_spec.name, label, seen[same], experience))
                continue
            key = run_key(a_spec, gate, t_max, batch)
            journal = (
                journal_dir / f"{a_spec.name}__{_slug(gate.label if gate else 'vanilla')}.jsonl"
            )
            _reset_if_other(journal, key)
            make = partial(gated_setup, a_spec, gate, data_dir)
            if pool.in_process:
                make = partial(here.gated, a_spec, gate, data_dir)
            episodes = run_journaled_on(make, suite, journal, t_max, batch, pool)
            seen[same] = episodes
            runs.append(GuardRun(a_spec.name, label, episodes, experience))
            kept |= {journal.name, journal.name + ".key"}
        for oracle in (oracles or {}).get(a_spec.name, ()):
            journal = journal_dir / f"{a_spec.name}__{_slug(oracle.label)}.jsonl"
            _reset_if_other(journal, oracle_key(run_key(a_spec, None, t_max, batch), oracle))
            make = partial(oracle_setup, a_spec, oracle, data_dir)
            if pool.in_process:
                make = partial(here.oracle, a_spec, oracle, data_dir)
            episodes = run_journaled_on(make, suite, journal, t_max, batch, pool)
            runs.append(GuardRun(a_spec.name, oracle.label, episodes, None, oracle.accuracy))
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
    settings: GuardEvalParams
    suite: list[dict]
    experience: str | None
    runs: list[GuardRun]
    thresholds: dict[str, dict[str, float]]  # confidence gates: label -> what its threshold does
    sweeps: dict[str, list[dict]] = dataclasses.field(default_factory=dict)  # label -> valid sweep
    valid_suite: list[dict] = dataclasses.field(default_factory=list)  # the sweeps' tasks
    heldout_ids: frozenset[str] = frozenset()  # suite tasks on the held-out style family's pages


def guard_dir() -> Path:
    """Episode journals of the guard evaluation."""
    return paths.data_dir() / "guard"


def run(cfg: Config) -> GuardResult:
    """The stage: the suite (the test split's tasks, and the held-out style family's test tasks
    when the build holds one out), the profile's agents and evaluators, the Stage-2 experience,
    and the oracle agent behind an oracle per accuracy (`guard_eval.oracle`). The offline
    agent's pages (the valid suite's, then the test suite's) are read ahead by the OCR worker
    processes while this process judges clicks (`read_ahead`), when the episodes run in this
    process (`guard_eval.workers: 1` on this machine's processes)."""
    cfg = view(cfg, PARAMS)
    settings = cfg.guard_eval
    data_dir = paths.resolve(cfg.data.out_dir)
    suite, held = suite_of(settings, data_dir, cfg.base.seed)
    experience = read_experience(settings.experience)
    agents = [resolve_spec(name, "agent", cfg) for name in settings.agents]
    source = settings.experience
    gates = [
        Gate(
            name,
            stage1_tuned(resolve_spec(name, "evaluator", cfg)),
            experience,
            experience_file=source,
        )
        for name in settings.evaluators
    ]
    thresholds: dict[str, dict[str, float]] = {}
    sweeps: dict[str, list[dict]] = {}
    oracle = settings.oracle
    if oracle.accuracies and oracle.agent not in settings.agents:
        raise InputError(
            f"guard_eval.oracle.agent.{cfg.base.profile}: {oracle.agent!r} is not one of "
            f"guard_eval.agents.{cfg.base.profile} {settings.agents}"
        )
    valid: list[dict] = []
    if settings.gate == "confidence":
        valid = task_suite(load_records(data_dir, "valid.json"), settings.per_domain, cfg.base.seed)
    pool = pool_of(settings.workers, cfg.parallel)
    try:
        if any(a.backend == "offline" for a in agents) and pool.in_process:
            read_ahead(data_dir / r["image_path"] for r in [*valid, *suite])
        if settings.gate == "confidence":
            gates, thresholds, sweeps = confidence_gates(
                gates, data_dir, settings, cfg.base.seed, agents, valid
            )
        runs = guard_runs(
            agents,
            gates,
            data_dir,
            suite,
            guard_dir(),
            settings.t_max,
            batch=settings.batch_tasks,
            oracles={oracle.agent: oracles_of(oracle.accuracies, cfg.base.seed)},
            pool=pool,
        )
    finally:
        stop_reading_ahead()
    return GuardResult(settings, suite, experience, runs, thresholds, sweeps, valid, held)


def suite_of(
    settings: GuardEvalParams, data_dir: Path, seed: int
) -> tuple[list[dict], frozenset[str]]:
    """The paper's suite (`settings.per_domain` tasks per domain of `settings.split`, seeded),
    then, when the build holds a style family out, its pages of that split sampled the same way;
    and the ids of the latter."""
    suite = task_suite(load_records(data_dir, f"{settings.split}.json"), settings.per_domain, seed)
    heldout_file = data_dir / f"heldout_{settings.split}.json"
    if not heldout_file.is_file():
        return suite, frozenset()
    heldout = task_suite(load_records(data_dir, heldout_file.name), settings.per_domain, seed)
    return suite + heldout, frozenset(str(r["id"]) for r in heldout)


def stage1_tuned(spec: ModelSpec) -> ModelSpec:
    """The evaluator with the Stage-1 adapter when Stage 1 tuned this model (DUDE = Stage 1 +
    Stage 2); any other evaluator as it is."""
    adapter = stage_dir() / "adapter"
    trained = stage_dir() / "trained_with.json"
    if not (adapter / "adapter_config.json").is_file() or not trained.is_file():
        return spec
    if json.loads(trained.read_text())["evaluator"] != spec_identity(spec):
        return spec
    return tuned_spec(spec, adapter)


def confidence_gates(
    gates: list[Gate],
    data_dir: Path,
    settings: GuardEvalParams,
    seed: int,
    agents: list[ModelSpec],
    valid_suite: list[dict],
) -> tuple[list[Gate], dict[str, dict[str, float]], dict[str, list[dict]]]:
    """Each gate with its threshold tuned on the valid split (`threshold`, by
    `settings.threshold_objective`), what the threshold does on the valid clicks, and the sweep
    of the `valid_sr` objective (agents on `valid_suite` at each candidate threshold). Kept in
    `data/guard/threshold__<gate>.json` for the same settings, models and code."""
    out, tuned, sweeps = [], {}, {}
    for gate in gates:
        key = {
            "gate": [spec_identity(gate.spec), gate.experience, gate.system_prompt],
            "agents": [spec_identity(a) for a in agents],
            "suite": [str(r["id"]) for r in valid_suite],
            "settings": [
                settings.threshold_objective,
                settings.max_fatal_error_rate,
                list(settings.sweep_benign_allowed),
                settings.t_max,
                settings.batch_tasks,
                seed,
            ],
            "code": [_code_identity(), _file_digest(threshold_module.__file__)],
        }
        path = guard_dir() / f"threshold__{_slug(gate.label)}.json"
        value = cached(
            path, key, partial(_tune, gate, data_dir, settings, seed, agents, valid_suite)
        )
        tuned[gate.label], sweeps[gate.label] = value["gate"], value["sweep"]
        out.append(dataclasses.replace(gate, threshold=value["gate"]["threshold"]))
    return out, tuned, sweeps


def _tune(
    gate: Gate,
    data_dir: Path,
    settings: GuardEvalParams,
    seed: int,
    agents: list[ModelSpec],
    valid_suite: list[dict],
) -> dict:
    evaluator = Evaluator(load_backend(gate.spec), evaluator_aids(gate.spec), gate.system_prompt)
    p1 = click_p1(evaluator, gate.experience, data_dir, seed)
    balanced = balanced_threshold(p1, settings.max_fatal_error_rate)
    rows: list[dict] = []
    separation: dict[str, dict] = {}
    threshold = balanced
    if settings.threshold_objective == "valid_sr":
        candidates = sorted({*allowing(p1, settings.sweep_benign_allowed), balanced})
        dude = DudeGate(evaluator, gate.experience, gate.label)
        named = [(a.name, make_agent(a)[0]) for a in agents]
        rows, separation = sweep(
            named,
            dude,
            ruc_task_opener(data_dir),
            valid_suite,
            candidates,
            settings.t_max,
            settings.batch_tasks,
        )
        threshold = best_threshold(rows, settings.threshold_window)
        for row in rows:
            row.update(on_clicks(p1, row["threshold"]) if row["threshold"] is not None else {})
    return {
        "gate": {
            "objective": settings.threshold_objective,
            **on_clicks(p1, threshold),
            "agent_proposals": separation,
        },
        "sweep": rows,
    }
