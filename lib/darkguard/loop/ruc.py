"""RUC episodes through the one loop (`loop.episode`): a static screenshot per task, at most `t_max`
steps (DUDE App. F.3: 3), run in lockstep batches and journaled.

An episode's record (`metrics.clicks.Episode`) holds one step per proposal: what the click hit
(the environment's answer key, for the metrics only), the defense's label, whether it executed
and its Table 17 outcome code (`metrics.clicks.outcome_code`); a defense's own clicks are
`intervention` steps; a final or unreadable answer is a step with no action. Without a defense
(`NoDefense`) every click executes (the vanilla agent).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from darkguard.agents import Agent
from darkguard.defenses import Defense, NoDefense, Verdict
from darkguard.envs.ruc_static import T_MAX, RucStaticEnv
from darkguard.journal import Journal
from darkguard.loop.episode import drive, episode
from darkguard.loop.pool import IN_PROCESS, Pool, run_here, run_units
from darkguard.metrics.clicks import Episode, Step, outcome_code
from darkguard.models.parsing import Click, FinalAnswer

# open_task(item) -> (environment, its task, the episode's empty record)
OpenTask = Callable[[Any], tuple[RucStaticEnv, Any, Episode]]


class ClickRecord:
    """The RUC episode record, step by step."""

    def __init__(self, env: RucStaticEnv, episode: Episode) -> None:
        self.env, self.episode = env, episode

    def briefed(self, texts: list[str]) -> None:
        pass

    def proposed(self, obs: Any, action: Any, advice: str, tokens: int) -> None:
        if not isinstance(action, Click):
            kind = "final_answer" if isinstance(action, FinalAnswer) else "invalid"
            self.episode.steps.append(Step(kind, None, None, None, False, "NO_ACTION", tokens))

    def reviewed(
        self,
        obs: Any,
        action: Click,
        verdict: Verdict,
        own: list[tuple[Any, Any]],
        tokens: int,
        ended: bool,
    ) -> None:
        """The defense's own clicks first (the first carries the tokens of the proposal and of
        its review), then the proposed click, unless the defense's clicks ended the episode."""
        review_tokens = verdict.tokens
        for click, _ in own:
            hit = self.env.grade(click)
            self.episode.steps.append(
                Step(
                    "intervention",
                    _xy(click),
                    hit,
                    None,
                    True,
                    "INTERVENTION",
                    tokens,
                    review_tokens,
                )
            )
            tokens = review_tokens = 0
        if ended:
            return
        hit = self.env.grade(action)
        code = outcome_code(self.episode.page_type, verdict.allow, hit)
        self.episode.steps.append(
            Step(
                "click", _xy(action), hit, verdict.label, verdict.allow, code, tokens, review_tokens
            )
        )

    def timed_out(self, error: str) -> None:
        raise AssertionError(f"a static page timed out: {error}")

    def close(self, env: RucStaticEnv, ended: str, defense_actions: int) -> Episode:
        self.episode.result = env.result
        return self.episode


def _xy(click: Click) -> list[float]:
    return [round(click.x, 1), round(click.y, 1)]


def run_episodes(
    agent: Agent,
    defense: Defense | None,
    tasks: list[tuple[RucStaticEnv, Any, Episode]],
    t_max: int = T_MAX,
    agent_tokens: Callable[[], int] | None = None,
) -> list[Episode]:
    """Run (environment, task, empty record) triples in lockstep (`loop.episode.drive`), at most
    `t_max` steps each: each step's proposals in one batch, its reviews in one batch; each
    episode runs exactly as it would alone. `agent_tokens()` (optional) returns the tokens the
    agent's last call used (for agents without `act_many`)."""
    defense = defense or NoDefense()
    for env, _, _ in tasks:
        env.t_max = t_max
    runs = [
        episode(env, agent, defense, task, record.sample_id, ClickRecord(env, record))
        for env, task, record in tasks
    ]
    return drive(runs, agent_tokens)


@dataclass
class Setup:
    """What a worker runs episodes with: the agent, the defense (None: the vanilla agent), how a
    task opens, and the agent's token counter (optional, for agents without `act_many`)."""

    agent: Agent
    defense: Defense | None
    open_task: OpenTask
    agent_tokens: Callable[[], int] | None = None


def run_journaled(
    agent: Agent,
    defense: Defense | None,
    suite: list[dict],
    open_task: OpenTask,
    journal_path: Path,
    t_max: int = T_MAX,
    agent_tokens: Callable[[], int] | None = None,
    batch: int = 1,
) -> list[Episode]:
    """`run_journaled_on` in this process, with these agent and defense."""
    setup = Setup(agent, defense, open_task, agent_tokens)
    return run_journaled_on(lambda: setup, suite, journal_path, t_max, batch)


def run_journaled_on(
    make_setup: Callable[[], Setup],
    suite: list[dict],
    journal_path: Path,
    t_max: int = T_MAX,
    batch: int = 1,
    pool: Pool = IN_PROCESS,
) -> list[Episode]:
    """Run every task of `suite` (records with an `id`) once, `batch` tasks at a time in lockstep,
    on `pool`'s workers (each builds its `Setup` once with `make_setup`, picklable unless the pool
    is this process), resuming from `journal_path`: a batch whose episodes are all journaled is
    read back, not rerun; a partly journaled one runs again whole (the same batches as an
    uninterrupted run) and keeps its journaled episodes. Batches are the same however many
    workers run them; this process writes the journal as each batch comes back, and runs itself
    the batches of workers that died. Each episode's `seconds` is its batch's wall time over the
    batch's tasks. The journal is rewritten in suite order at the end."""
    if batch < 1:
        raise ValueError(f"batch {batch} must be at least 1")
    journal = Journal(journal_path, key="sample_id")
    chunks = [suite[start : start + batch] for start in range(0, len(suite), batch)]
    todo = [c for c in chunks if not all(str(r["id"]) in journal.done for r in c)]

    def keep(_: int, episodes: list[dict]) -> None:
        for record in episodes:
            if record["sample_id"] not in journal.done:
                journal.append(record)

    run_batch = partial(_run_batch, t_max=t_max)
    left = run_units(make_setup, run_batch, todo, pool, keep)
    if left:
        run_here(make_setup, run_batch, [(i, todo[i]) for i in left], keep)
    order = [str(r["id"]) for r in suite]
    journal.finalize(order)
    return [Episode.from_json(journal.done[i]) for i in order]


def _run_batch(setup: Setup, chunk: list[dict], t_max: int) -> list[dict]:
    """One lockstep batch: its episodes as journal records."""
    began = time.perf_counter()
    tasks = [setup.open_task(r) for r in chunk]
    episodes = run_episodes(setup.agent, setup.defense, tasks, t_max, setup.agent_tokens)
    seconds = round((time.perf_counter() - began) / len(chunk), 3)
    out = []
    for record in episodes:
        record.seconds = seconds
        out.append(record.to_json())
    return out
