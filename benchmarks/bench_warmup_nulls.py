"""Which text nulls teach the tiny evaluator the offline agent's wrong clicks: build and warm up
the evaluator exactly as the `build_models` stage does (`build_evaluators`), once per
`build_models.warmup.text_null_pick` (`random` lines around the benign click, or the `task`
lines, those reading most like the task as the offline agent ranks lines), and measure

- its valid-split judgements (pass rate, Fatal Error Rate, null-click accuracy), and
- how P(L = 1) ranks the offline agent's own proposals on the valid split's suite (the test
  suite's sampling, on valid records): the agent behind a gate that rejects every click, so
  that it proposes its three best clicks per task, as `guard_eval`'s threshold sweep measures
  (`threshold.sweep`, `discrimination`: AUC of benign over null and over deceptive proposals).

    .venv/bin/python benchmarks/bench_warmup_nulls.py [--pick random --pick task]

Prints one JSON line per pick. Warm-up only (no Stage 1, no experience). The test split is never
read. Models go to a temporary folder, never over data/models.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

REJECT_ALL = 2.0  # above any P(L = 1): every proposal is rejected and the agent proposes again


def main() -> None:
    from darkguard import paths
    from darkguard.config import load_config
    from darkguard.defenses.dude.evaluator import Evaluator, evaluator_aids
    from darkguard.defenses.dude.gate import DudeGate
    from darkguard.envs.ruc_static import task_suite
    from darkguard.models.backends import load_backend
    from darkguard.models.registry import resolve_spec
    from darkguard.reports.build_models import null_accuracy
    from darkguard.ruc.validate import load_records
    from darkguard.stages.build_models import build_evaluators
    from darkguard.stages.guard_eval import setups
    from darkguard.stages.guard_eval.threshold import sweep

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--evaluator", default="evaluator-large")
    parser.add_argument("--agent", default="offline_agent")
    parser.add_argument("--pick", action="append", help="random | task (repeatable)")
    args = parser.parse_args()
    cfg = load_config().for_profile("tiny")
    build, guard = cfg.build_models, cfg.guard_eval
    data = paths.resolve(cfg.data.out_dir)
    suite = task_suite(load_records(data, "valid.json"), guard.per_domain, cfg.base.seed)
    agent_spec = resolve_spec(args.agent, "agent", cfg)
    agent = setups.make_agent(agent_spec)[0]
    opener = setups.ruc_task_opener(data)
    base_spec = resolve_spec(args.evaluator.replace("-", "_"), "evaluator", cfg)
    for pick in args.pick or ["random", "task"]:
        params = build.model_copy(
            update={
                "evaluators": {args.evaluator: build.evaluators[args.evaluator]},
                "warmup": build.warmup.model_copy(update={"text_null_pick": pick}),
            }
        )
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            (built,) = build_evaluators(params, data, Path(tmp))
            spec = dataclasses.replace(base_spec, path=str(built.path))
            gate = DudeGate(Evaluator(load_backend(spec), evaluator_aids(spec)), None, pick)
            _, separation = sweep(
                [(agent_spec.name, agent)], gate, opener, suite, [REJECT_ALL], guard.t_max, 16
            )
        row = {
            "text_null_pick": pick,
            "seconds": round(time.perf_counter() - start, 1),
            "valid_pass_rate": built.valid_metrics["pass_rate"],
            "valid_fatal_error_rate": built.valid_metrics["c4_fatal_error_rate"],
            "valid_null_accuracy": null_accuracy(built.valid_confusion),
            "agent_proposals": separation[agent_spec.name],
        }
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
