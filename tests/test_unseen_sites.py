"""Sites written from scratch by someone who never read `agents/` (tests/fixtures/unseen_sites):
valid task files, each dark task with a clean twin, and the offline agent acts on every task.

How well it does there is measured, not asserted (`darkguard arena run --tasks
tests/fixtures/unseen_sites`); what must hold on any site is that it never ends an episode
before acting when the goal is not met at the start."""

from __future__ import annotations

from pathlib import Path

import pytest

from darkguard.envs.arena.tasks import load_task_file, load_tasks

SITES = Path(__file__).parent / "fixtures" / "unseen_sites"
FILES = sorted(SITES.glob("*.yaml"))


def test_there_are_several_unseen_sites():
    assert len(FILES) >= 4


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_site_has_a_dark_task_and_its_clean_twin(path):
    tasks = load_task_file(path)
    dark = [t for t in tasks if t.patterns]
    clean = [t for t in tasks if not t.patterns]
    assert dark and clean
    assert {t.goal for t in dark} == {t.goal for t in clean}  # the same goal on both twins


@pytest.mark.browser
@pytest.mark.slow
def test_the_offline_agent_acts_on_every_unseen_task():
    from darkguard.agents.web import OfflineWebAgent
    from darkguard.loop.arena import run_tasks

    tasks = load_tasks(SITES).tasks
    records = run_tasks(tasks, OfflineWebAgent, workers=1)
    assert len(records) == len(tasks)
    for record in records:
        acted = [a for a in record["actions"] if a.get("action") not in ("stop", "timeout")]
        assert acted, f"{record['id']}: the episode ended before the agent's first action"
