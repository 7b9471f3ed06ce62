"""What a guard run's episodes run with (`loop.Setup`): the agent, the gate (DUDE's evaluator, or an
oracle), how a RUC task opens. Module-level factories, picklable, so that worker processes and Ray
actors build their own; in this process `SetupsHere` builds each agent and loads each evaluator
once for all runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from darkguard import cache
from darkguard.agents import Agent
from darkguard.agents.offline import OfflineAgent
from darkguard.agents.vlm import VLMAgent
from darkguard.defenses.dude.evaluator import Evaluator, evaluator_aids
from darkguard.defenses.dude.gate import DudeGate
from darkguard.envs.ruc_static import RucStaticEnv
from darkguard.loop.ruc import Setup
from darkguard.metrics.clicks import Episode
from darkguard.models.backends import Backend, load_backend
from darkguard.models.spec import ModelSpec
from darkguard.stages.guard_eval.oracle import Oracle, OracleGate, graded_opener

if TYPE_CHECKING:
    from darkguard.stages.guard_eval import Gate


def make_agent(spec: ModelSpec) -> tuple[Agent, Backend | None]:
    """The agent for a spec, and its backend (None for the offline agent)."""
    if spec.backend == "offline":
        return OfflineAgent(), None
    backend = load_backend(spec)
    return VLMAgent(spec.name, backend), backend


def ruc_task_opener(data_dir: Path):
    """`open_task` of the loop for RUC records of `data_dir`: a static page environment, its
    (screenshot, record) task, and the episode's empty record."""

    def open_task(record: dict) -> tuple[RucStaticEnv, tuple, Episode]:
        image = cache.decoded(Path(data_dir) / record["image_path"])
        episode = Episode(
            str(record["id"]),
            record["type"],
            str(record.get("domain", "")),
            str(record.get("category", "")),
        )
        return RucStaticEnv(), (image, record), episode

    return open_task


def token_counter(backend: Backend | None):
    """A callable returning the tokens `backend` used since the previous call (None: offline)."""
    if backend is None or not hasattr(backend, "tokens_used"):
        return None
    last = [backend.tokens_used]

    def used() -> int:
        now = backend.tokens_used
        delta, last[0] = now - last[0], now
        return delta

    return used


def gated_setup(
    a_spec: ModelSpec,
    gate: Gate | None,
    data_dir: Path,
    load: Callable[[ModelSpec], Backend] = load_backend,
    agent: tuple[Agent, Backend | None] | None = None,
) -> Setup:
    """A worker's agent behind `gate` (None: the vanilla agent) on the RUC pages of `data_dir`."""
    agent_, backend = agent or make_agent(a_spec)
    defense = None
    if gate:
        evaluator = Evaluator(load(gate.spec), evaluator_aids(gate.spec), gate.system_prompt)
        defense = DudeGate(evaluator, gate.experience, gate.label, gate.threshold)
    return Setup(agent_, defense, ruc_task_opener(data_dir), token_counter(backend))


def oracle_setup(
    a_spec: ModelSpec,
    oracle: Oracle,
    data_dir: Path,
    agent: tuple[Agent, Backend | None] | None = None,
) -> Setup:
    """A worker's agent behind an oracle (an evaluation instrument reading the true labels)."""
    agent_, backend = agent or make_agent(a_spec)
    opener = graded_opener(ruc_task_opener(data_dir))
    return Setup(agent_, OracleGate(oracle), opener, token_counter(backend))


class SetupsHere:
    """Setups in this process: each agent built once, each evaluator loaded once."""

    def __init__(self) -> None:
        self.agents: dict[ModelSpec, tuple[Agent, Backend | None]] = {}
        self.backends: dict[ModelSpec, Backend] = {}

    def _agent(self, spec: ModelSpec) -> tuple[Agent, Backend | None]:
        if spec not in self.agents:
            self.agents[spec] = make_agent(spec)
        return self.agents[spec]

    def _backend(self, spec: ModelSpec) -> Backend:
        if spec not in self.backends:
            self.backends[spec] = load_backend(spec)
        return self.backends[spec]

    def gated(self, a_spec: ModelSpec, gate: Gate | None, data_dir: Path) -> Setup:
        return gated_setup(a_spec, gate, data_dir, self._backend, self._agent(a_spec))

    def oracle(self, a_spec: ModelSpec, oracle: Oracle, data_dir: Path) -> Setup:
        return oracle_setup(a_spec, oracle, data_dir, self._agent(a_spec))
