"""Independent jobs side by side: trainings that share nothing but their inputs on disk (the
ablations' reward variants and warmed-up copies), on `workers` processes of this machine.

Each job runs in a fresh spawned process with one torch thread, whatever `workers` is, so a job's
arithmetic, and so its result, depends neither on how many ran beside it nor on which ran before
it in the same worker. On a CPU two one-thread trainings side by side finish sooner than the same
two one after the other with two threads each: a tiny model's kernels are too small for a second
thread to halve them (a GRPO step of the tiny evaluator: 1.95 s with two threads, 2.39 s with
one; `benchmarks/results/jobs_speed.md`).

A job is a label (named in errors) and a picklable callable taking no argument (a module-level
function or a `functools.partial` of one); its result must be picklable too."""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Job:
    """What runs (`run()`, picklable) and what to call it in an error."""

    label: str
    run: Callable[[], Any]


class JobError(RuntimeError):
    """A job raised, or its process died: the run stops, naming the job."""


def run_jobs(jobs: Sequence[Job], workers: int) -> list[Any]:
    """Each job's result, in the order of `jobs`. Jobs start in that order, `workers` at a time
    (put the longest first); the first failure stops the rest."""
    if workers < 1:
        raise ValueError(f"workers {workers} must be at least 1")
    if not jobs:
        return []
    pool = ProcessPoolExecutor(
        min(workers, len(jobs)),
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_one_thread,
        max_tasks_per_child=1,  # a fresh process per job: no state left by an earlier one
    )
    try:
        futures = [pool.submit(job.run) for job in jobs]
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        for job, future in zip(jobs, futures, strict=True):
            error = future.exception() if future in done else None
            if isinstance(error, BrokenProcessPool):
                raise JobError(f"job {job.label!r}: a worker process died ({error})") from error
            if error is not None:
                raise JobError(f"job {job.label!r} failed: {error!r}") from error
        return [future.result() for future in futures]
    except BaseException:  # a failure or an interrupt: the jobs still running are stopped
        _stop(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _stop(pool: ProcessPoolExecutor) -> None:
    pool.shutdown(wait=False, cancel_futures=True)
    # the executor has no public way to stop a running job (Python 3.14 adds terminate_workers)
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()


def _one_thread() -> None:
    # An interrupt is the parent's to handle (a notebook kernel signals the whole process group).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import torch

    torch.set_num_threads(1)
