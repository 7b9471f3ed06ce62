"""Benchmark the model layer on CPU: evaluator judgements per second (tiny, batched, greedy) and
the offline agent's seconds per step.

    .venv/bin/python benchmarks/bench_models.py [--clicks N] [--tasks N]

Judgements are timed end to end (image loading, click marking, resizing, generation, parsing) on
valid-split clicks, and separately for generation alone on prepared conversations.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    from PIL import Image

    from darkguard import paths
    from darkguard.agents.offline import OfflineAgent
    from darkguard.defenses.dude.evaluator import Evaluator
    from darkguard.defenses.dude.inputs import ObservationAids
    from darkguard.envs import Observation
    from darkguard.io import read_jsonl
    from darkguard.models.backends.hf import HFBackend
    from darkguard.models.card import read_card
    from darkguard.models.spec import ModelSpec
    from darkguard.ruc import schema
    from darkguard.training.dude.labelled import click_conversations, judge_clicks

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clicks", type=int, default=256)
    parser.add_argument("--tasks", type=int, default=20)
    args = parser.parse_args()
    data = paths.data_dir() / "ruc"
    records = {str(r["id"]): r for r in json.loads((data / "full.json").read_text())}
    clicks = read_jsonl(data / "clicks" / "valid.jsonl")[: args.clicks]
    result = {}
    for name in ("evaluator-small", "evaluator-large"):
        path = paths.data_dir() / "models" / name
        aids = ObservationAids(**read_card(path).get("aids", {}))
        backend = HFBackend(ModelSpec(name, path=str(path), batch_size=16, max_new_tokens=24))
        evaluator = Evaluator(backend, aids)
        judge_clicks(evaluator, data, clicks[:16], records)  # warm up
        start = time.perf_counter()
        judge_clicks(evaluator, data, clicks, records)
        end_to_end = len(clicks) / (time.perf_counter() - start)
        convs = click_conversations(data, clicks, records, None, aids, backend.max_pixels)
        start = time.perf_counter()
        backend.generate(convs)
        generation = len(clicks) / (time.perf_counter() - start)
        result[name] = {
            "judgements_per_s_end_to_end": round(end_to_end, 1),
            "judgements_per_s_generation": round(generation, 1),
        }
    agent = OfflineAgent()
    tasks = json.loads((data / "test.json").read_text())[: args.tasks]
    start = time.perf_counter()
    for r in tasks:
        with Image.open(Path(data) / r["image_path"]) as img:
            agent.act(Observation(img.convert("RGB"), schema.task_text(r)))
    result["offline_agent_s_per_step"] = round((time.perf_counter() - start) / len(tasks), 2)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
