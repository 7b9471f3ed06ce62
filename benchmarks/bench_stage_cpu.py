"""How busy a pipeline run keeps this machine's cores, stage by stage: runs a command (by default
`dvc repro`), samples the machine's CPU time (`/proc/stat`) every `--interval` seconds, and
splits the samples by stage at the moments the stages' executed notebooks were written
(`reports/executed/*.ipynb`, one per stage, in the order `dvc repro` ran them).

    .venv/bin/python benchmarks/bench_stage_cpu.py [--interval 5] [--csv FILE] [-- COMMAND ...]
    # a clean clone's whole CI run:
    git clone -q . /tmp/ci && .venv/bin/python benchmarks/bench_stage_cpu.py --repo /tmp/ci \
        --csv /tmp/cpu.csv -- bash -c 'cd /tmp/ci && bash .ci/run'

Prints a markdown table: per stage its wall minutes, the share of all cores' time that was busy
(user + system + nice; anything else running on the machine counts too), the busy and idle
core-minutes. A stage whose cores idle for minutes has room for overlap; a stage near 100% can
only be made faster by doing less work. Linux only; no darkguard import (it times the package).
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import yaml


def cpu_times() -> tuple[float, float]:
    """(busy, total) jiffies of all cores since boot, from the first line of /proc/stat."""
    fields = [float(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, idle, iowait = fields[:5]
    rest = sum(fields[5:8])  # irq, softirq, steal
    busy = user + nice + system + rest
    return busy, busy + idle + iowait


def sample(interval: float, stop: threading.Event, out: list[tuple[float, float]]) -> None:
    """Append (unix time, busy share over the last interval) until `stop` is set."""
    busy0, total0 = cpu_times()
    while not stop.wait(interval):
        busy, total = cpu_times()
        share = (busy - busy0) / (total - total0) if total > total0 else 0.0
        out.append((time.time(), share))
        busy0, total0 = busy, total


def stage_of_notebook(repo: Path) -> dict[str, str]:
    """Notebook file name -> dvc.yaml stage whose command runs it."""
    stages = yaml.safe_load((repo / "dvc.yaml").read_text())["stages"]
    names = {}
    for name, stage in stages.items():
        for word in str(stage.get("cmd", "")).split():
            if word.endswith(".ipynb"):
                names[Path(word).name] = name
    return names


def stage_intervals(repo: Path, start: float, end: float) -> list[tuple[str, float, float]]:
    """(stage, from, to) for each executed notebook written during [start, end], in order; the
    first stage's interval begins at `start` (whatever ran before it, e.g. `make setup`, is
    included), and what ran after the last notebook is its own row."""
    names = stage_of_notebook(repo)
    written = sorted(
        (p.stat().st_mtime, names.get(p.name, p.stem))
        for p in (repo / "reports" / "executed").glob("*.ipynb")
        if start <= p.stat().st_mtime <= end
    )
    rows, t0 = [], start
    for mtime, name in written:
        rows.append((name, t0, mtime))
        t0 = mtime
    if end > t0:
        rows.append(("(after the last stage)", t0, end))
    return rows


def summary(samples: list[tuple[float, float]], intervals: list, cores: int) -> list[dict]:
    """Per interval: wall minutes, mean busy share, busy and idle core-minutes."""
    rows = []
    for name, t0, t1 in intervals:
        inside = [s for t, s in samples if t0 < t <= t1]
        share = sum(inside) / len(inside) if inside else float("nan")
        minutes = (t1 - t0) / 60
        rows.append(
            {
                "stage": name,
                "wall_min": round(minutes, 1),
                "busy_share": round(share, 3),
                "busy_core_min": round(share * minutes * cores, 1),
                "idle_core_min": round((1 - share) * minutes * cores, 1),
            }
        )
    return rows


def markdown(rows: list[dict], cores: int) -> str:
    lines = [
        f"| stage | wall (min) | busy share of {cores} cores | busy core-min | idle core-min |",
        "|:--|--:|--:|--:|--:|",
    ]
    for r in rows:
        lines.append(
            f"| `{r['stage']}` | {r['wall_min']} | {r['busy_share']:.0%} | "
            f"{r['busy_core_min']} | {r['idle_core_min']} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between samples")
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="where the notebooks land")
    parser.add_argument("--csv", type=Path, help="write the samples (time, busy share) here")
    parser.add_argument("command", nargs="*", default=["dvc", "repro"])
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    samples: list[tuple[float, float]] = []
    stop = threading.Event()
    sampler = threading.Thread(target=sample, args=(args.interval, stop, samples), daemon=True)
    start = time.time()
    sampler.start()
    code = subprocess.call(args.command)
    stop.set()
    sampler.join()
    end = time.time()
    if args.csv:
        with args.csv.open("w", newline="") as f:
            csv.writer(f).writerows([("time", "busy_share"), *samples])
    rows = summary(samples, stage_intervals(args.repo, start, end), cores)
    print(markdown(rows, cores))
    sys.exit(code)


if __name__ == "__main__":
    main()
