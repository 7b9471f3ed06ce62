"""The arena loop: journaled episodes that resume, a crashed browser costs one rerun, and a site
written from scratch runs end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from darkguard.envs.arena.actions import Click, Stop
from darkguard.envs.arena.tasks import load_task_file
from darkguard.loop import arena as arena_loop

pytestmark = pytest.mark.browser
FIXTURE = Path(__file__).parent / "fixtures" / "arena_site" / "tasks.yaml"


class ScriptedAgent:
    """Takes the most prominent element, then stops (a stand-in for a base agent)."""

    name = "scripted"

    def __init__(self, crash_first: bool = False) -> None:
        self.crash_first = crash_first
        self.episodes = 0
        self.env = None

    def reset(self, goal: str, episode_key: str) -> None:
        self.episodes += 1
        self.acted = False

    def act(self, obs):
        if self.crash_first and self.episodes == 1 and self.env is not None:
            self.env._browser.close()  # the browser dies mid-episode
        if self.acted:
            return Stop("done")
        self.acted = True
        return Click(max(obs.elements, key=lambda e: e.prominence).index)


def tasks(n: int = 2):
    (task,) = load_task_file(FIXTURE)
    return [type(task)(**{**task.__dict__, "id": f"rail-{i}"}) for i in range(n)]


def test_episodes_are_journaled_and_a_rerun_resumes(tmp_path) -> None:
    journal = tmp_path / "episodes.jsonl"
    first = arena_loop.run_tasks(tasks(1), ScriptedAgent, journal_path=journal)
    assert [r["id"] for r in first] == ["rail-0"] and first[0]["D"] == 1
    assert first[0]["actions"][0]["name"] == "Yes, protect my trip"
    ran = []
    both = arena_loop.run_tasks(tasks(2), ScriptedAgent, journal, progress=ran.append)
    assert [r["id"] for r in ran] == ["rail-1"]  # rail-0 came from the journal
    assert [r["id"] for r in both] == ["rail-0", "rail-1"] and both[0] == first[0]
    lines = [json.loads(x) for x in journal.read_text().splitlines()]
    assert [r["id"] for r in lines] == ["rail-0", "rail-1"]


def test_a_crashed_browser_costs_one_rerun(monkeypatch) -> None:
    agent = ScriptedAgent(crash_first=True)
    real_env = arena_loop.ArenaEnv

    def make_env(*args, **kwargs):
        env = real_env(*args, **kwargs)
        agent.env = env
        return env

    monkeypatch.setattr(arena_loop, "ArenaEnv", make_env)
    (record,) = arena_loop.run_tasks(tasks(1), lambda: agent)
    assert record["attempts"] == 2 and record["ended"] == "stop" and record["D"] == 1
