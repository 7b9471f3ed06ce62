"""The held-out set of deceptive sites: its task files validate and its pages stay on 127.0.0.1."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from darkguard.envs.arena.tasks import TASKSETS, load_task_file, load_tasks

HELD_OUT = TASKSETS / "held_out"
TASK_FILES = sorted(HELD_OUT.glob("*.yaml"))
PAGES = sorted(HELD_OUT.glob("*/*.html"))
EXTERNAL = re.compile(r"https?:|(?:src|href|action)\s*=\s*[\"']?//|url\(\s*[\"']?//|@import", re.I)


def test_the_set_is_six_sites_of_two_tasks() -> None:
    tasks = load_tasks(HELD_OUT).tasks
    assert len(TASK_FILES) == 6 and len(tasks) == 12
    assert len({t.site for t in tasks}) == 6
    assert all(t.deception is not None and t.patterns for t in tasks)


@pytest.mark.parametrize("path", TASK_FILES, ids=lambda p: p.stem)
def test_every_task_file_validates_and_starts_on_one_of_its_pages(path: Path) -> None:
    tasks = load_task_file(path)
    assert len(tasks) == 2
    for task in tasks:
        assert task.site is not None and task.site.parent == HELD_OUT
        assert (task.site / task.start.lstrip("/").split("?")[0]).is_file()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_page_refers_to_another_host(page: Path) -> None:
    assert EXTERNAL.search(page.read_text(encoding="utf-8")) is None


def test_the_check_catches_an_external_reference() -> None:
    for text in ('<img src="https://cdn.example.com/a.png">', "<a href='//x.org/'>", "@import x"):
        assert EXTERNAL.search(text) is not None
    assert EXTERNAL.search('<a href="plans.html">See plans</a>') is None


def test_every_linked_page_exists() -> None:
    for page in PAGES:
        for target in re.findall(r"(?:href|action)=\"([^\"#]+)\"", page.read_text("utf-8")):
            assert (page.parent / target.split("?")[0]).is_file(), (page, target)
