"""What computing each repeated GRPO prompt once saves (`stage1.grpo.<profile>.shared_prompts`,
`accel.grpo_prompts`): Stage 1's GRPO on the train clicks as the stage builds them,
`--steps` steps each with trl's own path, with the shared prompts in the log-probabilities only
(the rollouts' prefill left to `generate`), and with both, one torch thread each (as the ablation
jobs train), one after the other.

    .venv/bin/python benchmarks/bench_grpo_prompts.py [--steps 20] [--threads 1]

Prints one JSON line per setting: seconds per step (trl's `step_time`), the training's runtime,
and the first and last steps' loss, KL and reward (the two runs part in the last bits at the first
step and then follow their own samples). Writes only into a temporary folder; reads data/.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

LOGGED = ("loss", "kl", "reward", "entropy")


@contextlib.contextmanager
def _plain_generation(model):
    """`grpo_prompts.prefill_shared` turned off: the rollouts' prefill as `generate` runs it."""
    yield


def main() -> None:
    import torch

    from darkguard import paths
    from darkguard.accel import grpo_prompts
    from darkguard.config import load_config, view
    from darkguard.defenses.dude.evaluator import evaluator_aids
    from darkguard.models.backends import load_backend
    from darkguard.models.registry import resolve_spec
    from darkguard.notebook import quiet_libraries
    from darkguard.stages import stage1_grpo
    from darkguard.training.dude.stage1 import grpo_rows, train_grpo

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    quiet_libraries()
    torch.set_num_threads(args.threads)
    cfg = view(load_config(), stage1_grpo.PARAMS)
    data_dir = paths.resolve(cfg.data.out_dir)
    spec = resolve_spec(None, "evaluator", cfg)
    train, records = stage1_grpo._clicks(data_dir, "train")
    max_pixels = load_backend(spec).max_pixels
    rows = grpo_rows(train, records, data_dir, max_pixels, evaluator_aids(spec))
    own_prefill = grpo_prompts.prefill_shared
    for setting in ("trl", "log-probabilities", "log-probabilities and prefill"):
        shared = setting != "trl"
        grpo_prompts.prefill_shared = own_prefill if "prefill" in setting else _plain_generation
        params = cfg.stage1.grpo.model_copy(update={"steps": args.steps, "shared_prompts": shared})
        with tempfile.TemporaryDirectory() as tmp:
            run = train_grpo(
                spec.path,
                rows,
                Path(tmp) / "adapter",
                Path(tmp) / "checkpoints",
                params,
                cfg.stage1.reward,
                cfg.base.seed,
            )
        steps = [e for e in run.log_history if "step_time" in e]
        summary = run.log_history[-1]
        print(
            json.dumps(
                {
                    "shared": setting,
                    "threads": args.threads,
                    "steps": len(steps),
                    "s_per_step_mean": round(statistics.mean(e["step_time"] for e in steps), 3),
                    "train_runtime_s": round(summary["train_runtime"], 1),
                    "first_step": {k: round(steps[0][k], 6) for k in LOGGED},
                    "last_step": {k: round(steps[-1][k], 6) for k in LOGGED},
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
