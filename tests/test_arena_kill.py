"""Killed runs: a worker killed mid-run costs a rerun of its episode, a driver killed mid-run
takes its workers and their browsers along, and the rerun resumes from the journal; the records
are those of an uninterrupted run, each episode journaled once, no process left behind."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from darkguard.loop import arena as arena_loop
from tests.test_arena_loop import ScriptedAgent, tasks
from tests.test_arena_parallel import comparable

pytestmark = [pytest.mark.browser, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[1]
DRIVER = """
import sys
from pathlib import Path
from darkguard.loop import arena as arena_loop
from tests.test_arena_kill import StallingAgent
from tests.test_arena_loop import tasks
arena_loop.run_tasks(tasks(6), StallingAgent, journal_path=Path(sys.argv[1]), workers=2)
"""


class SlowAgent(ScriptedAgent):
    """ScriptedAgent taking a while per decision, so that a run can be killed mid-way."""

    def act(self, obs, rejected=()):
        time.sleep(0.5)
        return super().act(obs, rejected)


class StallingAgent(ScriptedAgent):
    """ScriptedAgent whose episodes after its first take a minute per decision (a slow model):
    a worker left alone by a killed driver would live on for minutes."""

    def act(self, obs, rejected=()):
        time.sleep(0.5 if self.episodes == 1 else 60)
        return super().act(obs, rejected)


def journaled_ids(journal: Path) -> list[str]:
    return [json.loads(line)["id"] for line in journal.read_text().splitlines() if line.strip()]


def gone(pids: list[int], within_s: float = 15.0) -> list[int]:
    """Those of `pids` still running (zombies aside) after waiting up to `within_s`."""
    deadline = time.monotonic() + within_s
    while True:
        alive = []
        for pid in pids:
            try:
                if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                    alive.append(pid)
            except psutil.NoSuchProcess:
                pass
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.2)


def test_a_killed_worker_costs_a_rerun_of_its_episode(tmp_path) -> None:
    reference = arena_loop.run_tasks(tasks(4), ScriptedAgent)
    journal, victims = tmp_path / "run.jsonl", []

    def kill_a_worker(_record: dict) -> None:
        if victims:
            return
        worker = multiprocessing.active_children()[0]
        victims.extend(p.pid for p in psutil.Process(worker.pid).children(recursive=True))
        victims.append(worker.pid)
        os.kill(worker.pid, signal.SIGKILL)

    records = arena_loop.run_tasks(
        tasks(4), SlowAgent, journal_path=journal, workers=2, progress=kill_a_worker
    )
    assert victims
    assert comparable(records) == comparable(reference)
    assert sorted(journaled_ids(journal)) == [f"rail-{i}" for i in range(4)]  # once each
    assert gone(victims) == []  # its browser went with it


def test_a_killed_driver_takes_its_workers_along_and_the_rerun_resumes(tmp_path) -> None:
    reference = arena_loop.run_tasks(tasks(6), ScriptedAgent)
    journal = tmp_path / "run.jsonl"
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(journal)], cwd=ROOT, env=env)
    deadline = time.monotonic() + 120
    while not (journal.is_file() and journaled_ids(journal)) and time.monotonic() < deadline:
        assert driver.poll() is None, "the driver ended before it was killed"
        time.sleep(0.2)
    assert journal.is_file(), "the driver journaled nothing in two minutes"
    family = [p.pid for p in psutil.Process(driver.pid).children(recursive=True)]
    driver.kill()
    driver.wait()
    assert gone(family) == []  # no worker, browser or fork server left behind (in seconds, not
    # after the stalled decisions)
    done_before = journaled_ids(journal)
    assert 0 < len(done_before) < 6
    ran = []
    records = arena_loop.run_tasks(
        tasks(6), ScriptedAgent, journal_path=journal, workers=2, progress=ran.append
    )
    assert comparable(records) == comparable(reference)
    assert sorted(r["id"] for r in ran) == sorted(
        set(r["id"] for r in reference) - set(done_before)
    )
    assert sorted(journaled_ids(journal)) == [f"rail-{i}" for i in range(6)]  # once each
