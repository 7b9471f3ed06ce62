"""Benchmark the arena on this machine: No-Defense episodes per second, steps per second, and
where an episode's time goes (with one browser: the tab's reset and first page, the actions, the
settling after each, reading the page, judging the outcome, the agent's decisions).

    .venv/bin/python benchmarks/bench_arena.py [--tasks trickyarena_single] [--limit N]
        [--workers 1 2] [--executor processes|ray]

Runs the base agent of `arena_eval.agent` (params.yaml) without a journal and prints one JSON
object per worker count, checking that every episode's T and D are the same for every worker
count and, on a whole built-in set, that the totals equal the committed `arena_eval` metrics
(reports/metrics/arena.json). Writes `benchmarks/results/arena_workers.md`.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]


class TimedAgent:
    """Wraps an agent to time its decisions."""

    def __init__(self, agent) -> None:
        self.agent, self.name, self.seconds, self.calls = agent, agent.name, 0.0, 0

    def reset(self, goal: str, episode_key: str) -> None:
        self.agent.reset(goal, episode_key)

    def advise(self, text: str) -> None:
        self.agent.advise(text)

    def act(self, obs, rejected=()):
        start = time.perf_counter()
        try:
            return self.agent.act(obs)
        finally:
            self.seconds += time.perf_counter() - start
            self.calls += 1


PHASES = {  # ArenaEnv's methods, timed in this process (reset includes its first page's reading)
    "reset": "reset",
    "act": "_act",
    "settle": "_settle",
    "observe": "observe",
    "outcome": "outcome",
}


class PhaseTimer:
    """Times ArenaEnv's methods while installed (one browser, in this process)."""

    def __init__(self) -> None:
        from darkguard.envs.arena.env import ArenaEnv

        self.seconds = dict.fromkeys(PHASES, 0.0)
        self._originals = {name: getattr(ArenaEnv, method) for name, method in PHASES.items()}
        self._depth = 0
        for name, method in PHASES.items():
            setattr(ArenaEnv, method, self._timed(name, self._originals[name]))

    def _timed(self, name: str, method):
        @functools.wraps(method)
        def timed(*args, **kwargs):
            start, outer = time.perf_counter(), self._depth == 0
            self._depth += 1
            try:
                return method(*args, **kwargs)
            finally:
                self._depth -= 1
                if outer:  # a method called inside another counts for the outer one
                    self.seconds[name] += time.perf_counter() - start

        return timed

    def remove(self) -> None:
        from darkguard.envs.arena.env import ArenaEnv

        for name, method in PHASES.items():
            setattr(ArenaEnv, method, self._originals[name])


def main() -> None:
    from darkguard.config import load_config
    from darkguard.envs.arena.tasks import load_tasks
    from darkguard.loop.arena import run_tasks
    from darkguard.loop.pool import Pool
    from darkguard.stages.arena_runs import make_web_agent

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", default="trickyarena_single")
    parser.add_argument("--limit", type=int, help="only the first N tasks")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--executor", choices=["processes", "ray"], default="processes")
    args = parser.parse_args()
    p = load_config().arena_eval
    tasks = load_tasks(args.tasks).tasks[: args.limit]
    committed = json.loads((ROOT / "reports" / "metrics" / "arena.json").read_text())
    outcomes, rows = None, []
    for workers in args.workers:
        pool = Pool(workers, args.executor if workers > 1 else "processes")
        timed = TimedAgent(make_web_agent(p.agent, p.seed)) if workers == 1 else None
        make = (lambda t=timed: t) if timed else functools.partial(make_web_agent, p.agent, p.seed)
        phases = PhaseTimer() if workers == 1 else None
        start = time.perf_counter()
        try:
            records = run_tasks(tasks, make, step_timeout_s=p.step_timeout_s, pool=pool)
        finally:
            if phases:
                phases.remove()
        seconds = time.perf_counter() - start
        steps = sum(r["steps"] for r in records)
        result = {
            "tasks": args.tasks,
            "episodes": len(records),
            "workers": workers,
            "executor": pool.executor,
            "seconds": round(seconds, 1),
            "episodes_per_s": round(len(records) / seconds, 3),
            "steps_per_s": round(steps / seconds, 2),
            "mean_steps": round(steps / len(records), 1),
            "episode_s_mean": round(sum(r["seconds"] for r in records) / len(records), 2),
        }
        if timed:
            result["agent_s_per_decision"] = round(timed.seconds / max(1, timed.calls), 4)
            result["agent_share"] = round(timed.seconds / seconds, 3)
            result["agent_ms_per_episode"] = round(1000 * timed.seconds / len(records), 1)
        if phases:
            result["phase_shares"] = {k: round(v / seconds, 3) for k, v in phases.seconds.items()}
            result["phase_ms_per_episode"] = {
                k: round(1000 * v / len(records), 1) for k, v in phases.seconds.items()
            }
        same = [(r["T"], r["D"]) for r in records]
        result["same_outcomes_as_first_run"] = outcomes is None or same == outcomes
        outcomes = outcomes or same
        result["n_T"], result["n_D"] = sum(t for t, _ in same), sum(d for _, d in same)
        if not args.limit and args.tasks in committed:
            reference = committed[args.tasks]
            result["same_totals_as_committed"] = (result["n_T"], result["n_D"]) == (
                reference["n_T"],
                reference["n_D"],
            )
        rows.append(result)
        print(json.dumps(result), flush=True)
    write_markdown(rows)


def write_markdown(rows: list[dict]) -> None:
    columns = ["workers", "executor", "episodes", "seconds", "episodes_per_s", "steps_per_s"]
    columns += ["n_T", "n_D", "same_outcomes_as_first_run", "same_totals_as_committed"]
    lines = [
        f"# Arena episodes per second by worker count ({rows[0]['tasks']}, No-Defense)",
        "",
        "Measured by `benchmarks/bench_arena.py` on this machine (2 cores): the base agent of "
        "`arena_eval.agent`, one browser per worker. `same_outcomes_as_first_run`: every "
        "episode's T and D equal those of the first row's run.",
        "",
        "| " + " | ".join(columns) + " |",
        "|" + "---|" * len(columns),
    ]
    lines += ["| " + " | ".join(str(r.get(c, "")) for c in columns) + " |" for r in rows]
    for r in rows:
        if "phase_ms_per_episode" in r:
            lines += ["", "Where one browser's episode goes (ms per episode; `reset` wipes the tab "
                      "and loads and reads the first page; the agent's decisions are what is "
                      "left besides the loop's own bookkeeping):", ""]  # fmt: skip
            parts = {**r["phase_ms_per_episode"], "agent": r["agent_ms_per_episode"]}
            lines += ["| " + " | ".join(parts) + " |", "|" + "---|" * len(parts)]
            lines += ["| " + " | ".join(str(v) for v in parts.values()) + " |"]
    out = ROOT / "benchmarks" / "results" / "arena_workers.md"
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
