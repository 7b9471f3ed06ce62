"""The worker pool behind the guard's and the arena's parallel episodes: every unit delivered
once to the caller, the same results however many workers run them, a failing unit stops the run
with its traceback, a dead worker's units come back to the caller, and states are closed."""

from __future__ import annotations

import os
from functools import partial

import pytest

from darkguard.loop.pool import IN_PROCESS, Pool, WorkerError, run_units
from tests.pool_work import Counter, bulky_die_on_three, die_on_three, fail_on_three, square


def collect(pool: Pool, work=square, units=range(8), marks: str | None = None):
    """{unit index: result} as delivered, and the units left undone."""
    got: dict[int, object] = {}

    def deliver(index: int, result: object) -> None:
        assert index not in got  # each unit once
        got[index] = result

    left = run_units(partial(Counter, marks), work, list(units), pool, deliver)
    return got, left


def values(got: dict) -> dict:
    return {i: v for i, (v, _) in got.items()}


def test_in_process_runs_every_unit_in_order_in_this_process() -> None:
    got, left = collect(IN_PROCESS)
    assert left == [] and list(got) == list(range(8))
    assert {pid for _, pid in got.values()} == {os.getpid()}


@pytest.mark.slow
def test_two_processes_share_the_units_and_give_the_same_results(tmp_path) -> None:
    alone, _ = collect(IN_PROCESS)
    got, left = collect(Pool(2), marks=str(tmp_path))
    assert left == [] and sorted(got) == list(range(8)) and values(got) == values(alone)
    pids = {pid for _, pid in got.values()}
    assert len(pids) == 2 and os.getpid() not in pids  # both workers, neither of them this one
    closed = sorted(p.name for p in tmp_path.iterdir())
    assert closed == sorted(f"closed-{pid}" for pid in pids)  # each state closed once
    assert sum(int((tmp_path / name).read_text()) for name in closed) == 8


@pytest.mark.slow
def test_a_failing_unit_stops_the_run_with_the_workers_traceback() -> None:
    with pytest.raises(WorkerError, match="unit three is bad"):
        collect(Pool(2), fail_on_three, range(6))


@pytest.mark.slow
def test_a_dead_workers_unit_comes_back_to_the_caller() -> None:
    got, left = collect(Pool(2), die_on_three, range(6))
    assert 3 in left  # the unit that killed its worker
    assert sorted([*got, *left]) == list(range(6))  # nothing lost, nothing twice
    assert not set(got) & set(left)


@pytest.mark.slow
def test_a_worker_dying_mid_transfer_does_not_stall_the_others() -> None:
    """Workers share no lock: one killed while its last result is still in flight leaves the
    other free to deliver the rest (with shared queues this waited for ever)."""
    for _ in range(3):
        got, left = collect(Pool(2), bulky_die_on_three, range(8))
        assert 3 in left and sorted([*got, *left]) == list(range(8))
        assert all(got[i] == bytes([i]) * (4 << 20) for i in got)  # whole results only


def test_a_pool_refuses_nonsense() -> None:
    with pytest.raises(ValueError, match="workers 0"):
        Pool(0)
    with pytest.raises(ValueError, match="executor 'threads'"):
        Pool(2, "threads")


@pytest.mark.slow
def test_ray_actors_give_the_same_results(tmp_path) -> None:
    pytest.importorskip("ray", reason="the ray extra is not installed")
    alone, _ = collect(IN_PROCESS)
    got, left = collect(Pool(2, "ray"), marks=str(tmp_path))
    assert left == [] and values(got) == values(alone)
    assert len(list(tmp_path.iterdir())) == 2  # both actors' states closed
