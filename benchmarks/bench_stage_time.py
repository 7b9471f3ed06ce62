"""Wall time of one pipeline stage's `run(cfg)` on a copy of the pipeline's data, without the
notebook around it (how the stage times in `benchmarks/results/page_reads.md` were taken):

    cp -r data/{ruc,models,agents,stage1,stage2} /tmp/copy/   # what the stage reads
    DARKGUARD_DATA=/tmp/copy DARKGUARD_CACHE=/tmp/copy-cache DARKGUARD_REPORTS=/tmp/copy-reports \\
        .venv/bin/python benchmarks/bench_stage_time.py guard_eval

An empty `DARKGUARD_CACHE` times the stage as a clean `dvc repro` runs it (nothing read before).
Prints one JSON line: the stage and its seconds.
"""

from __future__ import annotations

import argparse
import importlib
import json
import time


def main() -> None:
    from darkguard.config import load_config
    from darkguard.notebook import quiet_libraries

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("stage", help="a module of darkguard.stages, e.g. guard_eval")
    args = parser.parse_args()
    quiet_libraries()
    stage = importlib.import_module(f"darkguard.stages.{args.stage}")
    cfg = load_config()
    start = time.perf_counter()
    stage.run(cfg)
    print(json.dumps({"stage": args.stage, "seconds": round(time.perf_counter() - start, 1)}))


if __name__ == "__main__":
    main()
