"""Benchmark the `openai` backend: requests per second against the local mock server (the one
the tests use, on 127.0.0.1) with 1 vs 8 requests in flight, each answered after a fixed delay
that stands in for a model's latency.

    .venv/bin/python benchmarks/bench_openai.py [--requests 64] [--latency-ms 100]

Prints one JSON object per concurrency and writes `benchmarks/results/openai_concurrency.md`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the mock server lives with the tests

from darkguard.models.backends.openai import OpenAIBackend  # noqa: E402
from darkguard.models.spec import ModelSpec  # noqa: E402
from tests.test_backend_openai import MockServer  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    args = parser.parse_args()
    server = MockServer()

    def answer(body: dict):
        time.sleep(args.latency_ms / 1000)
        return server.reply("ok", tokens=10)

    server.respond = answer
    os.environ["DG_BENCH_KEY"] = "sk-bench"
    convs = [[{"role": "user", "content": f"request {i}"}] for i in range(args.requests)]
    rows = []
    for concurrency in (1, 8):
        spec = ModelSpec(
            "mock",
            backend="openai",
            path="mock",
            base_url=server.url,
            api_key_env="DG_BENCH_KEY",
            concurrency=concurrency,
        )
        backend = OpenAIBackend(spec)
        backend.generate(convs[:2])  # connection and client set up outside the timing
        start = time.perf_counter()
        replies = backend.generate(convs)
        seconds = time.perf_counter() - start
        backend.close()
        assert replies == ["ok"] * len(convs)
        row = {
            "concurrency": concurrency,
            "requests": len(convs),
            "latency_ms": args.latency_ms,
            "seconds": round(seconds, 3),
            "requests_per_s": round(len(convs) / seconds, 1),
        }
        rows.append(row)
        print(json.dumps(row))
    server.httpd.shutdown()
    lines = [
        f"**`openai` backend against the local mock ({args.latency_ms:.0f} ms per answer, "
        f"{args.requests} requests; machine-dependent)**",
        "",
        "| requests in flight | seconds | requests/s |",
        "|---|---|---|",
        *[f"| {r['concurrency']} | {r['seconds']} | {r['requests_per_s']} |" for r in rows],
    ]
    out = ROOT / "benchmarks" / "results" / "openai_concurrency.md"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
