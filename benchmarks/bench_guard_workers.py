"""Benchmark the guard's episodes on 1 and 2 worker processes: tasks per second and whether every
episode is the same, for the profile's first agent vanilla and behind its first evaluator (the
Stage-1 adapter when trained, the Stage-2 experience when written), `guard_eval.batch_tasks` tasks
in lockstep.

    .venv/bin/python benchmarks/bench_guard_workers.py [--per-domain 10] [--workers 1 2]

A first, untimed pass fills the page caches (the offline agent's OCR), so that no timed run pays
for them. Writes `benchmarks/results/guard_workers.md`.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    from darkguard import paths
    from darkguard.config import load_config
    from darkguard.envs.ruc_static import task_suite
    from darkguard.loop.pool import Pool
    from darkguard.models.registry import resolve_spec
    from darkguard.ruc.validate import load_records
    from darkguard.stages.guard_eval import Gate, guard_runs, stage1_tuned

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per-domain", type=int, default=10)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    cfg = load_config()
    g = cfg.guard_eval
    data_dir = paths.resolve(cfg.data.out_dir)
    suite = task_suite(load_records(data_dir, f"{g.split}.json"), args.per_domain, cfg.base.seed)
    agent = resolve_spec(g.agents[0], "agent", cfg)
    experience_file = paths.resolve(g.experience) if g.experience else None
    experience = None
    if experience_file and experience_file.is_file():
        experience = experience_file.read_text(encoding="utf-8").strip() or None
    evaluator = stage1_tuned(resolve_spec(g.evaluators[0], "evaluator", cfg))
    gates = [Gate(evaluator.name, evaluator, experience)]

    def run(workers: int) -> tuple[float, list]:
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            runs = guard_runs(
                [agent],
                gates,
                data_dir,
                suite,
                Path(tmp),
                g.t_max,
                batch=g.batch_tasks,
                pool=Pool(workers),
            )
            seconds = time.perf_counter() - start
        episodes = [[{**e.to_json(), "seconds": 0} for e in r.episodes] for r in runs]
        return seconds, episodes

    run(1)  # untimed: the page caches
    rows, first = [], None
    for workers in args.workers:
        seconds, episodes = run(workers)
        first = first or episodes
        tasks = sum(len(r) for r in episodes)
        row = {
            "workers": workers,
            "runs": "vanilla + " + evaluator.name,
            "tasks": tasks,
            "seconds": round(seconds, 1),
            "tasks_per_s": round(tasks / seconds, 3),
            "same_episodes_as_first_row": episodes == first,
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    columns = list(rows[0])
    lines = [
        f"# Guard episodes by worker count ({cfg.base.profile}, {len(suite)} test tasks)",
        "",
        "Measured by `benchmarks/bench_guard_workers.py` on this machine (2 cores): the agent "
        f"`{agent.name}` vanilla and behind `{evaluator.name}`, {g.batch_tasks} tasks in lockstep; "
        "each worker process loads its own models and runs with one torch thread.",
        "",
        "| " + " | ".join(columns) + " |",
        "|" + "---|" * len(columns),
    ]
    lines += ["| " + " | ".join(str(r[c]) for c in columns) + " |" for r in rows]
    out = ROOT / "benchmarks" / "results" / "guard_workers.md"
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
