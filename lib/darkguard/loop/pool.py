"""Units of episode work on a pool of workers: this process, processes of this machine, or Ray
actors on a cluster.

A worker builds its state once (`make_state()`: the agent, the defense, a browser, loaded models)
and then runs units (`work(state, unit) -> result`: an episode, a lockstep batch) until none are
left; `state.close()` runs at the end when the state has it. Units are handed out one at a time to
whichever worker is free, and each result comes back to the caller as soon as it is done, with the
unit's index: the caller is the journal's only writer, so the journal has the same format however
the episodes ran, and a run resumes whether it ran on one machine or many. The units a dead worker
did not finish are returned to the caller (who runs them itself); an error raised by `work` is a
bug and stops the run with the worker's traceback.

`make_state` and `work` must be picklable (module-level functions, classes, partials of them) for
processes and Ray; this process takes anything. Ray is an optional extra (`pip install
'darkguard[ray]'`); without an address a local Ray starts on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from queue import Empty
from typing import Any, Literal

from darkguard.config import ParallelParams

Deliver = Callable[[int, Any], None]


@dataclass(frozen=True)
class Pool:
    """Where units run: `workers` side by side, as processes of this machine or Ray actors."""

    workers: int = 1
    executor: Literal["processes", "ray"] = "processes"
    ray_address: str | None = None  # None: a local Ray on 127.0.0.1; "auto", "ray://host:10001"
    gpus_per_worker: float = 0.0  # Ray: GPUs each actor reserves (its models load there)

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"workers {self.workers} must be at least 1")
        if self.executor not in ("processes", "ray"):
            raise ValueError(f"executor {self.executor!r} is not processes or ray")

    @property
    def in_process(self) -> bool:
        """One worker on this machine: the caller's own process runs every unit."""
        return self.workers == 1 and self.executor == "processes"


IN_PROCESS = Pool()


def pool_of(workers: int, parallel: ParallelParams | None = None) -> Pool:
    """`workers` on the executor params.yaml's `parallel` section names (None: this machine)."""
    if parallel is None:
        return Pool(workers)
    return Pool(workers, parallel.executor, parallel.ray_address, parallel.gpus_per_worker)


def run_units(
    make_state: Callable[[], Any],
    work: Callable[[Any, Any], Any],
    units: Sequence[Any],
    pool: Pool,
    deliver: Deliver,
) -> list[int]:
    """Run every unit on `pool`, calling `deliver(index, result)` in this process as each one
    finishes; the indices of the units left undone by workers that died (empty normally)."""
    if not units:
        return []
    if pool.in_process:
        run_here(make_state, work, list(enumerate(units)), deliver)
        return []
    if pool.executor == "ray":
        return _run_ray(make_state, work, units, pool, deliver)
    return _run_processes(make_state, work, units, pool.workers, deliver)


def run_here(make_state, work, indexed: list[tuple[int, Any]], deliver: Deliver) -> None:
    """The units in this process, in order, with one state."""
    state = make_state()
    try:
        for index, unit in indexed:
            deliver(index, work(state, unit))
    finally:
        _close(state)


def _close(state: Any) -> None:
    close = getattr(state, "close", None)
    if callable(close):
        close()


class WorkerError(RuntimeError):
    """`work` raised in a worker: the run stops with the worker's traceback."""


# processes of this machine


def _process_worker(make_state, work, tasks, results) -> None:
    import torch

    torch.set_num_threads(1)  # one core per worker; the same arithmetic in every worker
    try:
        state = make_state()
    except BaseException:
        results.put(("error", -1, traceback.format_exc()))
        return
    try:
        while (item := tasks.get()) is not None:
            index, unit = item
            try:
                results.put(("done", index, work(state, unit)))
            except BaseException:
                results.put(("error", index, traceback.format_exc()))
                return
    finally:
        _close(state)
        results.put(("exit", -1, None))


def _run_processes(make_state, work, units, workers: int, deliver: Deliver) -> list[int]:
    ctx = multiprocessing.get_context("spawn")
    tasks, results = ctx.Queue(), ctx.Queue()
    count = min(workers, len(units))
    for item in enumerate(units):
        tasks.put(item)
    for _ in range(count):
        tasks.put(None)
    procs = [
        ctx.Process(target=_process_worker, args=(make_state, work, tasks, results), daemon=True)
        for _ in range(count)
    ]
    for proc in procs:
        proc.start()
    pending, running, finished = set(range(len(units))), count, False
    try:
        while running and pending:
            try:
                kind, index, payload = results.get(timeout=5)
            except Empty:
                if not any(p.is_alive() for p in procs):
                    break  # every worker died: the caller runs what is left
                continue
            if kind == "error":
                raise WorkerError(f"a worker failed on unit {index}:\n{payload}")
            if kind == "exit":
                running -= 1
            else:
                pending.discard(index)
                deliver(index, payload)
        finished = True
    finally:
        for proc in procs:  # done: let them close their states; failed: stop them now
            proc.join(timeout=30 if finished else 0)
            if proc.is_alive():
                proc.terminate()
    return sorted(pending)


# Ray


class _RayWorker:
    """A Ray actor holding one worker's state."""

    def __init__(self, make_state) -> None:
        self.state = make_state()

    def run(self, work, index: int, unit):
        return index, work(self.state, unit)

    def close(self) -> None:
        _close(self.state)


def _run_ray(make_state, work, units, pool: Pool, deliver: Deliver) -> list[int]:
    try:
        import ray
    except ImportError:
        raise ImportError(
            "executor 'ray' needs Ray: pip install 'darkguard[ray]' (or set parallel.executor "
            "to processes)"
        ) from None
    started = not ray.is_initialized()
    if started:
        if pool.ray_address:
            ray.init(address=pool.ray_address, log_to_driver=False)
        else:  # a local Ray that listens on loopback only
            ray.init(
                num_cpus=pool.workers,
                include_dashboard=False,
                log_to_driver=False,
                _node_ip_address="127.0.0.1",
            )
    actor = ray.remote(num_cpus=1, num_gpus=pool.gpus_per_worker)(_RayWorker)
    actors = [actor.remote(make_state) for _ in range(min(pool.workers, len(units)))]
    queue = list(enumerate(units))[::-1]
    pending: dict[Any, tuple[Any, int]] = {}
    left: list[int] = []

    def submit(handle) -> None:
        if queue:
            index, unit = queue.pop()
            pending[handle.run.remote(work, index, unit)] = (handle, index)

    try:
        for handle in actors:
            submit(handle)
        while pending:
            [ref], _ = ray.wait(list(pending), num_returns=1)
            handle, index = pending.pop(ref)
            try:
                done, result = ray.get(ref)
            except ray.exceptions.RayActorError:
                left.append(index)  # the actor died: its unit and nothing more to it
                continue
            except ray.exceptions.RayTaskError as err:
                raise WorkerError(f"a worker failed on unit {index}:\n{err}") from None
            deliver(done, result)
            submit(handle)
        left += [index for index, _ in queue]  # no live actor took them
    finally:
        for handle in actors:
            with contextlib.suppress(Exception):  # a dead actor has nothing to close
                ray.get(handle.close.remote(), timeout=60)
            ray.kill(handle)
        if started:
            ray.shutdown()
    return sorted(left)
