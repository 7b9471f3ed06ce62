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
import os
import threading
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing import connection
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
#
# Each worker has its own pipe to the caller, and the caller hands it one unit at a time. Workers
# share no lock: with shared queues, a worker killed while its feeder thread held the queue's
# write lock (an OOM kill, a crashed extension, `os._exit`) would leave every other worker's
# result unsendable and the run waiting for ever. Here a dead worker only closes its own pipe.


def _end_with_caller(lifeline) -> None:
    """Wait on the caller's end of `lifeline`, which it never writes: when the caller is gone
    (killed, however) end every process this worker started (its browsers), then the worker."""
    with contextlib.suppress(EOFError, OSError):
        lifeline.recv()
    end_descendants()
    os._exit(1)


def end_descendants() -> None:
    """Kill every process this one started, and theirs (a browser's renderers, a driver)."""
    import psutil

    children = psutil.Process().children(recursive=True)
    for child in children:
        with contextlib.suppress(psutil.Error):
            child.kill()
    psutil.wait_procs(children, timeout=5)


def _process_worker(make_state, work, conn, lifeline, environ: dict[str, str], cwd: str) -> None:
    import torch

    threading.Thread(target=_end_with_caller, args=(lifeline,), daemon=True).start()
    # the caller's environment and folder now (a fork server's are those of when it started)
    os.environ.clear()
    os.environ.update(environ)
    os.chdir(cwd)
    torch.set_num_threads(1)  # one core per worker; the same arithmetic in every worker
    try:
        state = make_state()
    except BaseException:
        conn.send(("error", -1, traceback.format_exc()))
        return
    try:
        while (item := conn.recv()) is not None:
            index, unit = item
            try:
                result = work(state, unit)
            except BaseException:
                conn.send(("error", index, traceback.format_exc()))
                return
            conn.send(("done", index, result))
    finally:
        _close(state)


# what every worker imports, loaded once in the fork server: workers forked from it start in a
# second instead of importing them again (about ten seconds each on two busy cores)
PRELOAD = ("torch", "transformers", "sentence_transformers", "playwright.sync_api")


def _context():
    """Fork-server processes (the server imports `PRELOAD` once per run of this program; nothing
    else is inherited: no threads, no open files; each worker takes the caller's environment
    variables and folder of the moment), else spawned ones."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(list(PRELOAD))
    return ctx


def _run_processes(make_state, work, units, workers: int, deliver: Deliver) -> list[int]:
    ctx = _context()
    queue = list(enumerate(units))[::-1]  # popped from the end: unit 0 first
    procs, busy = {}, {}  # pipe -> its process; pipe -> the index of the unit it is running
    lifelines: list = []  # closed (or gone with this process): the workers end themselves
    for _ in range(min(workers, len(units))):
        conn, child = ctx.Pipe()
        alive, lifeline = ctx.Pipe(duplex=False)  # the worker's end reads EOF when we are gone
        args = (make_state, work, child, alive, dict(os.environ), os.getcwd())
        proc = ctx.Process(target=_process_worker, args=args, daemon=True)
        proc.start()
        child.close()  # the worker's end lives in the worker only: its death reads as EOF here
        alive.close()
        procs[conn] = proc
        lifelines.append(lifeline)
    left: list[int] = []
    finished = False

    def hand_out(conn) -> None:
        if not queue:
            with contextlib.suppress(OSError):  # a worker already gone needs no word to stop
                conn.send(None)  # nothing left: the worker closes its state and exits
            return
        index, unit = queue.pop()
        try:
            conn.send((index, unit))
        except OSError:  # the worker died before taking it
            left.append(index)
            return
        busy[conn] = index

    try:
        for conn in procs:
            hand_out(conn)
        while busy:
            for conn in connection.wait(list(busy)):
                index = busy.pop(conn)
                try:
                    kind, done, payload = conn.recv()
                except (EOFError, OSError):
                    left.append(index)  # the worker died on this unit: its unit and no more
                    continue
                if kind == "error":
                    raise WorkerError(f"a worker failed on unit {done}:\n{payload}")
                deliver(done, payload)
                hand_out(conn)
        left += [index for index, _ in queue]  # every worker died before taking them
        finished = True
    finally:
        if not finished:  # failed or interrupted: each worker ends its browsers and itself
            for lifeline in lifelines:
                lifeline.close()
        for conn, proc in procs.items():  # done: let them close their states
            proc.join(timeout=30 if finished else 10)
            if proc.is_alive():
                proc.terminate()
            conn.close()
        for lifeline in lifelines:
            lifeline.close()
    return sorted(left)


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
