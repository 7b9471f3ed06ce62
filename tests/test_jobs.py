"""Jobs side by side: each in a fresh one-thread process, results in order whatever the workers,
a failing or dying job named in the error."""

from __future__ import annotations

import os
from functools import partial

import pytest

from darkguard.jobs import Job, JobError, run_jobs


def where(n: int) -> tuple[int, int, int]:
    import torch

    return n, os.getpid(), torch.get_num_threads()


def fails(message: str) -> None:
    raise ValueError(message)


def dies() -> None:
    os._exit(3)


def test_each_job_runs_alone_with_one_thread_and_results_keep_their_order() -> None:
    jobs = [Job(f"job {n}", partial(where, n)) for n in range(3)]
    for workers in (1, 2):
        out = run_jobs(jobs, workers)
        assert [n for n, _, _ in out] == [0, 1, 2]
        assert {threads for _, _, threads in out} == {1}
        assert len({pid for _, pid, _ in out}) == 3  # a fresh process per job
        assert os.getpid() not in {pid for _, pid, _ in out}


def test_a_failing_job_is_named() -> None:
    jobs = [Job("fine", partial(where, 1)), Job("variant x", partial(fails, "bad reward"))]
    with pytest.raises(JobError, match=r"job 'variant x' failed: ValueError\('bad reward'\)"):
        run_jobs(jobs, 2)


def test_a_job_whose_process_dies_stops_the_run() -> None:
    with pytest.raises(JobError, match="job 'crash': a worker process died"):
        run_jobs([Job("crash", dies)], 1)


def test_bad_settings() -> None:
    with pytest.raises(ValueError, match="workers 0 must be at least 1"):
        run_jobs([Job("a", partial(where, 1))], 0)
    assert run_jobs([], 2) == []
