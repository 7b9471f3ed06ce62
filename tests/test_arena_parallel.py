"""Arena episodes on several workers: the same records as one browser, on processes of this
machine and on Ray actors that serve the pages themselves; and concurrent `llm` episodes against
a served model (the local mock) overlap their requests while each keeps its own order."""

from __future__ import annotations

import re
import threading
import time
from functools import partial
from urllib.parse import urlsplit

import pytest

from darkguard.loop import arena as arena_loop
from darkguard.loop.pool import Pool
from darkguard.stages.arena_runs import make_web_agent
from tests.test_arena_loop import ScriptedAgent, tasks
from tests.test_backend_openai import MockServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def comparable(records: list[dict]) -> list[dict]:
    """Records without their timing and the server's port (each run serves on its own)."""
    return [
        {
            **{k: v for k, v in r.items() if k != "seconds"},
            "final_url": urlsplit(r["final_url"]).path,
        }
        for r in records
    ]


def test_two_worker_processes_give_the_records_of_one_browser(tmp_path) -> None:
    alone = arena_loop.run_tasks(tasks(4), ScriptedAgent)
    journal = tmp_path / "two.jsonl"
    two = arena_loop.run_tasks(tasks(4), ScriptedAgent, journal_path=journal, workers=2)
    assert comparable(two) == comparable(alone)
    assert [r["D"] for r in alone] == [1, 1, 1, 1]
    lines = journal.read_text().splitlines()
    assert len(lines) == 4  # each episode journaled once, by this process


def test_ray_actors_serve_their_own_pages_and_give_the_same_records() -> None:
    pytest.importorskip("ray", reason="the ray extra is not installed")
    alone = arena_loop.run_tasks(tasks(3), ScriptedAgent)
    on_ray = arena_loop.run_tasks(tasks(3), ScriptedAgent, pool=Pool(2, "ray"))
    assert comparable(on_ray) == comparable(alone)


TRIP = re.compile(r"\(trip (\d+)\)")
# The fixture's first page lists: Choose (08:10), Choose (09:40), the insurance offer's accept, its
# decline; its seat page: the offers box, the name field, Confirm.
PLAN = ['{"action": "click", "index": 3}', '{"action": "click", "index": 1}']
PLAN += ['{"action": "click", "index": 2}', '{"action": "stop", "answer": "booked"}']


def step_of(body: dict) -> tuple[int, int]:
    """(trip, step) of a request: the trip named in the task, the actions taken so far."""
    user = body["messages"][1]["content"]
    done = user.split("Your previous actions:\n", 1)[1].split("\n\n", 1)[0]
    return int(TRIP.search(user).group(1)), 0 if done == "(none)" else len(done.splitlines())


def test_concurrent_llm_episodes_overlap_and_keep_their_order(monkeypatch) -> None:
    server = MockServer()
    seen, all_began = set(), threading.Event()

    def respond(body: dict):
        trip, step = step_of(body)
        seen.add(trip)
        if len(seen) == 3:
            all_began.set()
        # Concurrent episodes all reach here before any is answered, however slowly their
        # workers start; episodes run one after another would keep the first waiting 30 s
        # and end before the next began (the check below fails then).
        all_began.wait(30)
        time.sleep(0.3)  # a served model takes a while: concurrent episodes overlap
        return server.reply(PLAN[step])

    server.respond = respond
    monkeypatch.setenv("ARENA_TEST_KEY", "sk-arena-test")
    spec = {
        "backend": "openai",
        "path": "served-model",
        "base_url": server.url,
        "api_key_env": "ARENA_TEST_KEY",
        "max_new_tokens": 50,
        "batch_size": 1,
    }
    trips = [
        type(t)(**{**t.__dict__, "goal": f"{t.goal} (trip {i})"}) for i, t in enumerate(tasks(3))
    ]
    records = arena_loop.run_tasks(trips, partial(make_web_agent, spec, 42), workers=3)
    assert [(r["T"], r["D"], r["steps"]) for r in records] == [(1, 1, 3)] * 3
    assert server.most_in_flight >= 2  # requests of different episodes in flight together
    by_trip: dict[int, list[tuple[float, int]]] = {}
    for request in server.requests:
        trip, step = step_of(request["body"])
        by_trip.setdefault(trip, []).append((request["at"], step))
    assert sorted(by_trip) == [0, 1, 2]
    for trip in by_trip.values():  # each episode asks step after step, in order
        assert [step for _, step in sorted(trip)] == [0, 1, 2, 3]
    starts = sorted(trip[0][0] for trip in by_trip.values())
    ends = sorted(trip[-1][0] for trip in by_trip.values())
    assert starts[-1] < ends[0]  # every episode began before any had finished
