"""How fast the tiny evaluator judges, and whether the fast paths change any answer.

Judges the first N valid-split clicks of the built data (`data/ruc`) with the built evaluator
(optionally its Stage-1 adapter and an experience in the guidance block), in batches of 16:

- greedy answers: `generate` over the whole prompt against `SharedPrefix` (the prompt prefix
  every conversation shares, computed once);
- label probabilities (the confidence gate's P(L)): one forward pass per branch point over the
  whole prompt (the former path), one pass per path through the branch points over the whole
  prompt, and that pass on top of the shared prefix.

    .venv/bin/python benchmarks/bench_judging.py [--clicks 160] [--adapter DIR]
        [--experience FILE] [--threads 2]

Prints one JSON line: seconds per path, answers identical (count), largest probability
difference.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

CANDIDATES = [f"<judge>{label}</judge>" for label in (1, 0, -1)]


def per_branch_point(backend, conversations: list) -> list[list[float]]:
    """P(candidate) with one forward pass per branch point over the whole prompt (the path
    `continuation_probs` took before it read every branch point off one pass)."""
    import torch

    from darkguard.models.backends.hf import candidate_branches, candidate_paths

    branches = candidate_branches(backend.tokenizer, CANDIDATES)
    paths = candidate_paths(backend.tokenizer, CANDIDATES, branches)
    probs = []
    with torch.inference_mode():
        for start in range(0, len(conversations), backend.spec.batch_size):
            inputs = backend._inputs(conversations[start : start + backend.spec.batch_size])
            at = {
                p: torch.softmax(backend._logits_after(inputs, p)[:, -1, nexts], dim=-1)
                for p, nexts in branches.items()
            }
            for row in range(inputs["input_ids"].shape[0]):
                probs.append(
                    [
                        float(torch.prod(torch.stack([at[p][row, i] for p, i in path])))
                        for path in paths
                    ]
                )
    return probs


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, round(time.perf_counter() - start, 2)


def main() -> None:
    import torch

    from darkguard import paths
    from darkguard.defenses.dude.evaluator import evaluator_aids
    from darkguard.io import read_jsonl
    from darkguard.models.backends.hf import HFBackend
    from darkguard.models.spec import ModelSpec
    from darkguard.ruc.validate import records_by_id
    from darkguard.training.dude.labelled import click_conversations

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default=str(paths.data_dir() / "models" / "evaluator-large"))
    parser.add_argument("--adapter", help="a Stage-1 adapter folder")
    parser.add_argument("--experience", help="a file whose text goes in the guidance block")
    parser.add_argument("--clicks", type=int, default=160)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    data = paths.data_dir() / "ruc"
    records = records_by_id(data)
    clicks = read_jsonl(data / "clicks" / "valid.jsonl")[: args.clicks]
    spec = ModelSpec(
        "bench", path=args.model, batch_size=16, max_new_tokens=24, adapter=args.adapter
    )
    backend = HFBackend(spec)
    backend.memo = None  # every path computes
    experience = Path(args.experience).read_text().strip() if args.experience else None
    aids = evaluator_aids(ModelSpec("card", path=args.model))
    convs = click_conversations(data, clicks, records, experience, aids, backend.max_pixels)
    backend._generate(convs[:16], 24)  # warm: first-call costs off the clock
    (fast, _), fast_s = timed(lambda: backend._generate(convs, 24))
    (fast_p, _), fast_p_s = timed(lambda: backend._continuation_probs(convs, CANDIDATES))
    prefix, backend.prefix = backend.prefix, None
    (whole, _), whole_s = timed(lambda: backend._generate(convs, 24))
    (one_pass, _), one_pass_s = timed(lambda: backend._continuation_probs(convs, CANDIDATES))
    per_point, per_point_s = timed(lambda: per_branch_point(backend, convs))
    backend.prefix = prefix

    def largest(a, b):
        return max(
            abs(x - y) for ra, rb in zip(a, b, strict=True) for x, y in zip(ra, rb, strict=True)
        )

    print(
        json.dumps(
            {
                "clicks": len(convs),
                "threads": args.threads,
                "adapter": bool(args.adapter),
                "experience_words": len(experience.split()) if experience else 0,
                "generate_whole_prompt_s": whole_s,
                "generate_shared_prefix_s": fast_s,
                "answers_identical": sum(a == b for a, b in zip(fast, whole, strict=True)),
                "probs_per_branch_point_s": per_point_s,
                "probs_one_pass_s": one_pass_s,
                "probs_one_pass_shared_prefix_s": fast_p_s,
                "largest_prob_difference": largest(fast_p, per_point),
                "largest_prob_difference_one_pass": largest(one_pass, per_point),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
