"""Benchmark recorded pages (`darkguard.envs.arena.replay`): `veer_eval`'s methods one after
another on one set, every episode live, then with tapes (a fresh folder, so the first method
records and the later ones read what they share), checking that every record is the same.

    .venv/bin/python benchmarks/bench_arena_replay.py [--tasks trickyarena_single] [--limit N]
        [--methods none icp guardrail ...] [--workers 2] [--skip-live]

Methods and agent as `veer_eval` builds them (params.yaml); journals are not used. Records are
compared without their `seconds` and with the servers' ports masked (each run serves on free
ports). Writes `benchmarks/results/arena_replay.md`.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
PORT = re.compile(r"127\.0\.0\.1:\d+")


def comparable(records: list[dict]) -> list[dict]:
    """Records without their wall time, the servers' ports masked."""
    return [
        json.loads(PORT.sub("HOST", json.dumps({k: v for k, v in r.items() if k != "seconds"})))
        for r in records
    ]


def main() -> None:
    from darkguard.config import load_config
    from darkguard.envs.arena.tasks import load_tasks
    from darkguard.loop.arena import run_tasks
    from darkguard.loop.pool import Pool
    from darkguard.stages.arena_runs import make_web_agent
    from darkguard.stages.veer_eval import method_spec

    cfg = load_config()
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", default="trickyarena_single")
    parser.add_argument("--limit", type=int, help="only the first N tasks")
    parser.add_argument("--methods", nargs="+", default=list(cfg.veer_eval.methods))
    parser.add_argument("--workers", type=int, default=cfg.arena_eval.workers)
    parser.add_argument("--skip-live", action="store_true", help="only the run with tapes")
    args = parser.parse_args()
    tasks = load_tasks(args.tasks).tasks[: args.limit]
    modes = ["tapes"] if args.skip_live else ["live", "tapes"]
    rows, records = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for mode in modes:
            for method in args.methods:
                spec = method_spec(cfg, method)
                extra = {"make_defense": spec.make_defense} if spec.make_defense else {}
                start = time.perf_counter()
                got = run_tasks(
                    tasks,
                    functools.partial(make_web_agent, spec.agent, spec.seed),
                    screenshots=spec.screenshots,
                    step_timeout_s=spec.step_timeout_s,
                    pool=Pool(args.workers),
                    defense_actions=spec.defense_actions,
                    tapes=Path(tmp) if mode == "tapes" else None,
                    **extra,
                )
                seconds = time.perf_counter() - start
                records[mode, method] = comparable(got)
                row = {
                    "mode": mode,
                    "method": method,
                    "episodes": len(got),
                    "seconds": round(seconds, 1),
                    "episodes_per_s": round(len(got) / seconds, 2),
                }
                if ("live", method) in records and mode == "tapes":
                    row["same_records_as_live"] = records["live", method] == records[mode, method]
                rows.append(row)
                print(json.dumps(row), flush=True)
    totals = {
        mode: (
            sum(r["episodes"] for r in rows if r["mode"] == mode),
            sum(r["seconds"] for r in rows if r["mode"] == mode),
        )
        for mode in modes
    }
    for mode, (episodes, seconds) in totals.items():
        print(json.dumps({"mode": mode, "total_episodes": episodes, "total_s": round(seconds, 1),
                          "episodes_per_s": round(episodes / seconds, 2)}))  # fmt: skip
    write_markdown(args, rows, totals)


def write_markdown(args, rows: list[dict], totals: dict) -> None:
    columns = ["mode", "method", "episodes", "seconds", "episodes_per_s", "same_records_as_live"]
    lines = [
        f"# Arena episodes per second with recorded pages ({args.tasks}"
        + (f", first {args.limit} tasks" if args.limit else "")
        + f", {args.workers} browsers)",
        "",
        "Measured by `benchmarks/bench_arena_replay.py` on this machine (2 cores): `veer_eval`'s "
        "methods one after another, every episode live, then with a fresh folder of tapes (the "
        "first method records, the later ones read the pages of the paths they share and play "
        "live from where they leave them). `same_records_as_live`: every record equal to the "
        "live run's (wall time and server ports aside).",
        "",
        "| " + " | ".join(columns) + " |",
        "|" + "---|" * len(columns),
    ]
    lines += ["| " + " | ".join(str(r.get(c, "")) for c in columns) + " |" for r in rows]
    lines += ["", "| mode | episodes | seconds | episodes/s |", "|---|---|---|---|"]
    for mode, (episodes, seconds) in totals.items():
        lines.append(f"| {mode} | {episodes} | {seconds:.1f} | {episodes / seconds:.2f} |")
    out = ROOT / "benchmarks" / "results" / "arena_replay.md"
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
