"""Recorded pages (`envs.arena.replay`): an episode that follows a recorded path reads its pages,
one that leaves it replays the path live and goes on; either way the records are those of a run
with every episode live."""

from __future__ import annotations

import functools
import gzip
import json
import re

import pytest

from darkguard.defenses.veer.defense import Veer
from darkguard.envs.arena.actions import Click
from darkguard.envs.arena.env import ArenaEnv
from darkguard.envs.arena.replay import ROOT, Tape, child
from darkguard.envs.arena.tasks import load_tasks
from darkguard.loop import arena as arena_loop
from darkguard.stages.arena_runs import make_web_agent
from tests.test_arena_loop import ScriptedAgent, tasks

pytestmark = pytest.mark.browser
PORT = re.compile(r"127\.0\.0\.1:\d+")


def comparable(records: list[dict]) -> list[dict]:
    """Records without their wall time, the servers' ports masked (each run has its own)."""
    masked = [{k: v for k, v in r.items() if k != "seconds"} for r in records]
    return json.loads(PORT.sub("HOST", json.dumps(masked)))


@pytest.fixture
def live_resets(monkeypatch) -> list[str]:
    """The ids of the episodes that started a live page."""
    started: list[str] = []
    reset = ArenaEnv.reset

    def counted(self, task):
        started.append(task.id)
        return reset(self, task)

    monkeypatch.setattr(ArenaEnv, "reset", counted)
    return started


class TwoClicks(ScriptedAgent):
    """The most prominent element, then the least prominent one: leaves ScriptedAgent's path."""

    def act(self, obs, rejected=()):
        if self.acted:
            self.acted = False
            return Click(min(obs.elements, key=lambda e: e.prominence).index)
        return super().act(obs, rejected)


def test_a_recorded_path_is_read_and_a_new_one_goes_live(tmp_path, live_resets) -> None:
    run = functools.partial(arena_loop.run_tasks, tasks(2), tapes=tmp_path)
    live = arena_loop.run_tasks(tasks(2), ScriptedAgent)
    first = run(ScriptedAgent)
    assert len(live_resets) == 4  # the live run's and the recording run's episodes
    again = run(ScriptedAgent)
    assert len(live_resets) == 4  # every page read from the tapes: no browser
    assert comparable(first) == comparable(again) == comparable(live)
    other_live = arena_loop.run_tasks(tasks(2), TwoClicks)
    other = run(TwoClicks)
    assert comparable(other) == comparable(other_live)
    assert comparable(other) != comparable(live)  # it did leave the recorded path
    assert len(live_resets) == 8  # ... and so played live, from the start


def test_tapes_hold_no_port_of_the_run_that_recorded_them(tmp_path) -> None:
    arena_loop.run_tasks(tasks(1), ScriptedAgent, tapes=tmp_path)
    (tape,) = tmp_path.glob("*.json.gz")
    with gzip.open(tape, "rt") as f:
        text = f.read()
    assert "{{host0}}" in text and not PORT.search(text)


def test_a_tape_keeps_what_another_run_recorded(tmp_path) -> None:
    path = tmp_path / "t.json.gz"
    one, two = Tape(path), Tape(path)
    one.put_page(ROOT, {"url": "a"})
    one.save()
    two.put_page(child(ROOT, Click(3)), {"url": "b"})
    two.save()
    merged = Tape(path)
    assert set(merged.pages) == {ROOT, child(ROOT, Click(3))}
    assert child(ROOT, Click(3)) != child(ROOT, Click(4))


@pytest.mark.slow
def test_the_agent_and_veer_give_the_records_of_live_runs(tmp_path) -> None:
    """The offline agent with no defense records; Veer, which turns proposals back and changes
    pages itself, reads what it shares and plays the rest live: every record as when live."""
    chosen = load_tasks("trickyarena_single").tasks[:4] + load_tasks("webdecept").tasks[:3]
    agent = functools.partial(make_web_agent, "offline", 42)
    for make_defense in (arena_loop.NoDefense, Veer):
        live = arena_loop.run_tasks(chosen, agent, make_defense=make_defense)
        taped = arena_loop.run_tasks(chosen, agent, make_defense=make_defense, tapes=tmp_path)
        assert comparable(taped) == comparable(live)
    assert any("defense" in a for r in live for a in r["actions"])  # Veer did act
