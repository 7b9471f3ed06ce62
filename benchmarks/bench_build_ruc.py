"""Benchmark the build_ruc stage: render rate, whole-stage time and peak memory.

    .venv/bin/python benchmarks/bench_build_ruc.py [--pages N] [--full]

`--pages N` renders N planned pages into a temporary folder (render rate); `--full` runs the whole
stage from scratch (build, split, clicks, reports) into temporary data/reports folders. Peak memory
is sampled over the Python process and its children (Chromium) from /proc.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from pathlib import Path


def tree_rss_kb(root: int) -> int:
    """Resident memory of `root` and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        pid, ppid = int(entry), int(fields.get("PPid", "0").strip())
        children.setdefault(ppid, []).append(pid)
        rss[pid] = int(fields.get("VmRSS", "0 kB").split()[0])
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack += children.get(pid, [])
    return total


class PeakMemory:
    def __init__(self, interval: float = 0.25) -> None:
        self.peak_kb, self._stop, self.interval = 0, threading.Event(), interval

    def __enter__(self) -> PeakMemory:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak_kb = max(self.peak_kb, tree_rss_kb(os.getpid()))
            self._stop.wait(self.interval)

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def bench_render(n: int) -> dict:
    from darkguard.config import load_config
    from darkguard.ruc.synth.generate import build_synth

    ruc = load_config().data
    scale = n / (ruc.normal_count + sum(ruc.deceptive_counts.values()))
    deceptive = {k: max(1, round(v * scale)) for k, v in ruc.deceptive_counts.items()}
    normal = n - sum(deceptive.values())
    with tempfile.TemporaryDirectory() as tmp, PeakMemory() as mem:
        start = time.perf_counter()
        records, _ = build_synth(
            out_dir=Path(tmp),
            normal=normal,
            deceptive=deceptive,
            domains=ruc.domains,
            viewports=ruc.viewports,
            seed=42,
        )
        seconds = time.perf_counter() - start
    return {
        "pages": len(records),
        "seconds": round(seconds, 2),
        "pages_per_second": round(len(records) / seconds, 2),
        "peak_rss_mb": round(mem.peak_kb / 1024, 1),
    }


def bench_full() -> dict:
    from darkguard.config import load_config
    from darkguard.reports.build_ruc import write_ruc_reports
    from darkguard.stages import build_ruc

    cfg = load_config()
    with tempfile.TemporaryDirectory() as tmp, PeakMemory() as mem:
        os.environ["DARKGUARD_DATA"] = f"{tmp}/data"
        os.environ["DARKGUARD_REPORTS"] = f"{tmp}/reports"
        start = time.perf_counter()
        build = build_ruc.run(cfg)
        built = time.perf_counter() - start
        write_ruc_reports(build, cfg.data)
        seconds = time.perf_counter() - start
    return {
        "pages": len(build.records),
        "build_seconds": round(built, 1),
        "stage_seconds": round(seconds, 1),
        "pages_per_second": round(len(build.records) / built, 2),
        "peak_rss_mb": round(mem.peak_kb / 1024, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--full", action="store_true")
    args = parser.parse_args()
    result = {"render": bench_render(args.pages)}
    if args.full:
        result["full_stage"] = bench_full()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
