"""Benchmark the arena on this machine: No-Defense episodes per second, steps per second, and
where an episode's time goes (reset, the agent's decisions, the browser's steps).

    .venv/bin/python benchmarks/bench_arena.py [--tasks trickyarena_single] [--limit N]
        [--workers 1 2]

Runs the base agent of `arena_eval.agent` (params.yaml) without a journal and prints one JSON
object per worker count; the episodes' T and D are the same for every worker count.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")


class TimedAgent:
    """Wraps an agent to time its decisions."""

    def __init__(self, agent) -> None:
        self.agent, self.name, self.seconds, self.calls = agent, agent.name, 0.0, 0

    def reset(self, goal: str, episode_key: str) -> None:
        self.agent.reset(goal, episode_key)

    def advise(self, text: str) -> None:
        self.agent.advise(text)

    def act(self, obs):
        start = time.perf_counter()
        try:
            return self.agent.act(obs)
        finally:
            self.seconds += time.perf_counter() - start
            self.calls += 1


def main() -> None:
    from darkguard.config import load_config
    from darkguard.envs.arena.tasks import load_tasks
    from darkguard.loop.arena import run_tasks
    from darkguard.stages.arena_runs import make_web_agent

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", default="trickyarena_single")
    parser.add_argument("--limit", type=int, help="only the first N tasks")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    p = load_config().arena_eval
    tasks = load_tasks(args.tasks).tasks[: args.limit]
    outcomes = None
    for workers in args.workers:
        timed = TimedAgent(make_web_agent(p.agent, p.seed)) if workers == 1 else None
        make = (lambda t=timed: t) if timed else functools.partial(make_web_agent, p.agent, p.seed)
        start = time.perf_counter()
        records = run_tasks(tasks, make, step_timeout_s=p.step_timeout_s, workers=workers)
        seconds = time.perf_counter() - start
        steps = sum(r["steps"] for r in records)
        result = {
            "tasks": args.tasks,
            "episodes": len(records),
            "workers": workers,
            "seconds": round(seconds, 1),
            "episodes_per_s": round(len(records) / seconds, 3),
            "steps_per_s": round(steps / seconds, 2),
            "mean_steps": round(steps / len(records), 1),
            "episode_s_mean": round(sum(r["seconds"] for r in records) / len(records), 2),
        }
        if timed:
            result["agent_s_per_decision"] = round(timed.seconds / max(1, timed.calls), 4)
            result["agent_share"] = round(timed.seconds / seconds, 3)
        same = [(r["T"], r["D"]) for r in records]
        result["same_outcomes_as_first_run"] = outcomes is None or same == outcomes
        outcomes = outcomes or same
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
