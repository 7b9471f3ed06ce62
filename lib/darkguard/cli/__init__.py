"""The `darkguard` command line."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from darkguard.cli import arena as arena_cli
from darkguard.cli import pipeline as pipeline_cli
from darkguard.io import InputError

if TYPE_CHECKING:
    from darkguard.config import Config
    from darkguard.models.spec import ModelSpec


def _cmd_ruc_validate(args: argparse.Namespace) -> int:
    from darkguard.ruc.validate import counts, validate_dir

    report = validate_dir(Path(args.directory))
    print(
        f"{args.directory}: {len(report.records)} records "
        f"({', '.join(f'{k}: {len(v)}' for k, v in report.files.items())})"
    )
    for key, table in counts(report.records).items():
        print(f"  by {key}: " + ", ".join(f"{k}={v}" for k, v in table.items()))
    if report.issues:
        print(f"INVALID: {len(report.issues)} problem(s)", file=sys.stderr)
        for issue in report.issues:
            print(f"  {issue}", file=sys.stderr)
        return 1
    print("valid")
    return 0


def _cmd_ruc_build(args: argparse.Namespace) -> int:
    from darkguard.config import load_config
    from darkguard.stages import build_ruc

    cfg = load_config(Path(args.params) if args.params else None)
    data = cfg.data
    start = time.perf_counter()

    def progress(done: int, total: int) -> None:
        if done % 100 == 0 or done == total:
            print(f"  {done}/{total} pages", file=sys.stderr)

    build = build_ruc.run(cfg, progress)
    if args.reports:
        from darkguard.reports.build_ruc import write_ruc_reports

        write_ruc_reports(build, data)
    print(
        f"built {len(build.records)} records into {build.out_dir} in "
        f"{time.perf_counter() - start:.1f} s; splits "
        f"{ {k: len(v) for k, v in build.splits.items()} }; "
        f"{sum(len(v) for v in build.clicks.values())} clicks; "
        f"{len(build.rejected)} rejected; source {data.source}"
    )
    return 0


def _judge_spec(args: argparse.Namespace, cfg: Config) -> tuple[ModelSpec, Path | None]:
    """The evaluator `judge` runs and its adapter (None: none). No --evaluator: the profile's
    default evaluator with the Stage-1 adapter when trained, as the guard uses it; --evaluator:
    that model alone. --adapter DIR applies DIR instead; --adapter none applies nothing."""
    from darkguard.defenses.dude.evaluator import tuned_spec
    from darkguard.models.registry import resolve_spec
    from darkguard.stages.stage1_grpo import stage_dir

    spec = resolve_spec(args.evaluator, "evaluator", cfg)
    if args.adapter == "none":
        return spec, None
    if args.adapter:
        adapter = Path(args.adapter)
        if not (adapter / "adapter_config.json").is_file():
            raise InputError(f"--adapter {adapter}: not a LoRA adapter folder")
        if spec.backend != "hf":
            raise InputError(f"--adapter: evaluator {spec.name} is not a local (hf) model")
    elif args.evaluator is None and spec.backend == "hf":
        adapter = stage_dir() / "adapter"
        if not (adapter / "adapter_config.json").is_file():
            return spec, None  # Stage 1 not trained: the evaluator as built
    else:
        return spec, None
    return tuned_spec(spec, adapter.resolve()), adapter


def label_accuracy(labels: list[int], outputs: list) -> dict[str, dict]:
    """Per ground-truth label (benign 1, null 0, deceptive -1): the share of its clicks judged
    with that label (NaN without such clicks), and the counts."""
    from darkguard.metrics.judging import LABEL_NAMES
    from darkguard.models.parsing import predicted_label

    pairs = [(lab, predicted_label(o)) for lab, o in zip(labels, outputs, strict=True)]
    table = {}
    for label in (1, 0, -1):
        judged = [pred for lab, pred in pairs if lab == label]
        right = sum(pred == label for pred in judged)
        share = round(right / len(judged), 4) if judged else float("nan")
        table[LABEL_NAMES[label]] = {"accuracy": share, "right": right, "n": len(judged)}
    return table


def _cmd_judge(args: argparse.Namespace) -> int:
    import json

    from darkguard import paths
    from darkguard.config import load_config
    from darkguard.defenses.dude.evaluator import Evaluator, evaluator_aids
    from darkguard.defenses.dude.inputs import ObservationAids
    from darkguard.models.backends import load_backend
    from darkguard.training.dude.labelled import judge_clicks, labelled_clicks

    cfg = load_config(Path(args.params) if args.params else None)
    spec, adapter = _judge_spec(args, cfg)
    clicks, records = labelled_clicks(Path(args.data), args.split, cfg.data.n_null, cfg.base.seed)
    if args.limit:
        clicks = clicks[: args.limit]
    experience = Path(args.experience).read_text(encoding="utf-8") if args.experience else None
    if args.zoom or args.ocr:
        aids = ObservationAids(zoom=args.zoom, ocr=args.ocr)
    else:
        aids = evaluator_aids(spec)  # a built model knows the aids it was trained with
    start = time.perf_counter()
    run = judge_clicks(
        Evaluator(load_backend(spec), aids), Path(args.data), clicks, records, experience
    )
    seconds = time.perf_counter() - start
    m = run.metrics
    per_label = label_accuracy([c["label"] for c in clicks], run.outputs)
    default = " (the profile's default)" if args.evaluator is None else ""
    adapter_text = paths.display(adapter) if adapter else "none"
    print(
        f"evaluator {spec.name}{default}, adapter {adapter_text}, aids zoom={aids.zoom} "
        f"ocr={aids.ocr}"
    )
    print(
        f"  on {len(clicks)} clicks of {args.data}"
        f"{f' ({args.split})' if args.split else ''}: {len(clicks) / seconds:.1f} judgements/s"
    )
    print(
        f"  accuracy (pass rate) {m['pass_rate']:.4f}  C4 (deceptive judged benign) "
        f"{m['c4_fatal_error_rate']:.4f}  C1 {m['c1_rate']:.4f}  C2 {m['c2_rate']:.4f}  "
        f"C3 {m['c3_rate']:.4f}  parse failures {m['parse_failure_rate']:.4f}"
    )
    print(
        "  accuracy per label: "
        + "  ".join(
            f"{name} {row['accuracy']:.4f} ({row['right']}/{row['n']})"
            for name, row in per_label.items()
        )
    )
    if args.out:
        out = {
            "evaluator": spec.name,
            "adapter": paths.display(adapter) if adapter else None,
            **m,
            "label_accuracy": per_label,
        }
        Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    return 0


def _task_records(args: argparse.Namespace, sample=None) -> list[dict]:
    """The validated records of `--data` (its `--split` file when given), sampled by `sample`
    when `--per-domain` is set, then cut to `--limit`."""
    from darkguard.ruc.validate import validate_dir

    report = validate_dir(Path(args.data))
    report.raise_for_issues()
    records = (
        report.files.get(f"{args.split}.json", report.records) if args.split else report.records
    )
    if sample is not None and getattr(args, "per_domain", None):
        records = sample(records)
    return records[: args.limit] if args.limit else records


def _cmd_agent(args: argparse.Namespace) -> int:
    import json

    from darkguard.agents.offline import OfflineAgent
    from darkguard.agents.vlm import VLMAgent
    from darkguard.config import load_config
    from darkguard.models.backends import load_backend
    from darkguard.models.registry import resolve_spec
    from darkguard.stages.guard_eval import agent_alone

    cfg = load_config(Path(args.params) if args.params else None)
    spec = resolve_spec(args.agent, "agent", cfg)
    records = _task_records(args)
    agent = OfflineAgent() if spec.backend == "offline" else VLMAgent(spec.name, load_backend(spec))
    start = time.perf_counter()
    _, m = agent_alone(agent, Path(args.data), records)
    seconds = time.perf_counter() - start
    print(
        f"agent {spec.name} on {m['tasks']} tasks of {args.data}: "
        f"{seconds / max(1, m['tasks']):.2f} s/step"
    )
    print(
        f"  SR {m['SR']:.2f}%  DFR {m['DFR']:.2f}%  NFR {m['NFR']:.2f}%  "
        f"(DFR on deceptive pages {m['DFR_on_deceptive_pages']:.2f}%)"
    )
    if args.out:
        Path(args.out).write_text(json.dumps({"agent": spec.name, **m}, indent=2) + "\n")
    return 0


def _cmd_evaluate(args: argparse.Namespace) -> int:
    import json
    import tempfile

    from darkguard.cli.guard_gate import choose_gate
    from darkguard.config import load_config
    from darkguard.envs.ruc_static import task_suite
    from darkguard.loop.pool import Pool
    from darkguard.models.registry import resolve_spec
    from darkguard.stages.guard_eval import Gate, guard_runs

    cfg = load_config(Path(args.params) if args.params else None)
    agent = resolve_spec(args.agent, "agent", cfg)
    gates = []
    if not args.no_gate:
        chosen = choose_gate(args, cfg)
        print(chosen.says)
        gates = [Gate(chosen.spec.name, chosen.spec, chosen.experience, threshold=chosen.threshold)]
    records = _task_records(args, lambda rs: task_suite(rs, args.per_domain, cfg.base.seed))
    with tempfile.TemporaryDirectory() as tmp:
        journals = Path(args.journal) if args.journal else Path(tmp)
        runs = guard_runs(
            [agent],
            gates,
            Path(args.data),
            records,
            journals,
            args.t_max,
            batch=args.batch_tasks,
            pool=Pool(args.workers, args.executor, args.ray_address),
        )
    out = []
    for run in runs:
        m = run.metrics
        name = "vanilla" if run.evaluator is None else f"with {run.evaluator}"
        print(
            f"agent {run.agent} {name} on {m['tasks']} tasks: SR {m['SR']:.2f}%  "
            f"DFR {m['DFR']:.2f}%  NFR {m['NFR']:.2f}%  steps {m['steps']:.2f}"
        )
        out.append({"agent": run.agent, "evaluator": run.evaluator, **m, "domains": run.by_domain})
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    return 0


def _cmd_train_stage1(args: argparse.Namespace) -> int:
    from darkguard.config import load_config
    from darkguard.reports.stage1_grpo import write_stage1_reports
    from darkguard.stages import stage1_grpo

    cfg = load_config(Path(args.params) if args.params else None)
    profile = cfg.base.profile
    split = cfg.stage1.pool_split
    start = time.perf_counter()
    result = stage1_grpo.run(cfg)
    tables = write_stage1_reports(result, profile, split) if args.reports else {}
    print(f"stage 1 ({profile}) trained {result.tuned.name} in {time.perf_counter() - start:.0f} s")
    for name, m in (("before", result.before.metrics), ("after", result.after.metrics)):
        print(
            f"  valid {name}: pass rate {100 * m['pass_rate']:.2f}%  "
            f"C4 {100 * m['c4_fatal_error_rate']:.2f}%"
        )
    print(f"  pools: |F| = {len(result.pools.failure)}, |S| = {len(result.pools.success)}")
    for name in tables:
        print(f"  wrote reports/tables/{name}.{{csv,md}}")
    return 0


def _cmd_train_stage2(args: argparse.Namespace) -> int:
    from darkguard.config import load_config
    from darkguard.reports.stage2_summarize import write_stage2_reports
    from darkguard.stages import stage2_summarize

    cfg = load_config(Path(args.params) if args.params else None)
    profile = cfg.base.profile
    start = time.perf_counter()
    result = stage2_summarize.run(cfg)
    if args.reports:
        write_stage2_reports(result, profile, result.experience_tokens)
    state = result.state
    print(
        f"stage 2 ({profile}): {state.log[-1]['iteration']} iterations in "
        f"{time.perf_counter() - start:.0f} s; success pool {result.initial_success} -> "
        f"{len(state.success)}, failure pool {result.initial_failure} -> {len(state.failure)}; "
        f"valid pass rate {100 * result.valid_before:.2f}% -> {100 * result.valid_after:.2f}%; "
        f"experience {result.experience_tokens} tokens"
    )
    print(state.experience or "(empty experience)")
    return 0


def _add_run_arguments(p: argparse.ArgumentParser, role: str) -> None:
    """Flags shared by the commands that run a model over a RUC directory."""
    p.add_argument("--data", required=True, help="a RUC-format directory")
    p.add_argument(f"--{role}", help="a model name of the profile in params.yaml, or a folder")
    p.add_argument(
        "--split",
        help="train/valid/test, or heldout_valid/heldout_test (the held-out style family's "
        "pages; default: every record)",
    )
    p.add_argument("--limit", type=int, help="use only the first N items")
    p.add_argument("--out", help="write the metrics as JSON")
    p.add_argument("--params", help="parameters file (default: params.yaml of the repository)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="darkguard", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    ruc = sub.add_parser("ruc", help="the RUC benchmark").add_subparsers(dest="ruc", required=True)
    p = ruc.add_parser("validate", help="validate a RUC-format directory and print its counts")
    p.add_argument("directory")
    p.set_defaults(func=_cmd_ruc_validate)
    p = ruc.add_parser("build", help="build the benchmark as the build_ruc stage does")
    p.add_argument("--params", help="parameters file (default: params.yaml of the repository)")
    p.add_argument("--reports", action="store_true", help="also write the report tables/figure")
    p.set_defaults(func=_cmd_ruc_build)

    p = sub.add_parser("judge", help="judge the benign/deceptive/null clicks of a RUC directory")
    _add_run_arguments(p, "evaluator")
    p.add_argument("--experience", help="a Stage-2 experience file for the guidance block")
    p.add_argument(
        "--zoom",
        action="store_true",
        help="add a zoomed crop around the click (default: as the model was trained)",
    )
    p.add_argument("--ocr", action="store_true", help="add OCR text near the click")
    p.add_argument(
        "--adapter",
        help="a LoRA adapter folder applied on the evaluator, or 'none' (default: the Stage-1 "
        "adapter when no --evaluator is given and it was trained, else none)",
    )
    p.set_defaults(func=_cmd_judge)

    p = sub.add_parser("agent", help="run an agent alone on the tasks of a RUC directory")
    _add_run_arguments(p, "agent")
    p.set_defaults(func=_cmd_agent)

    p = sub.add_parser(
        "evaluate",
        help="guard evaluation: the agent vanilla and with the evaluator gating its clicks",
    )
    _add_run_arguments(p, "agent")
    p.add_argument(
        "--evaluator",
        help="the gate's model (a name or folder), used bare unless the flags below add to it "
        "(default: the guard's own evaluator, with its Stage-1 adapter, Stage-2 experience and "
        "tuned threshold)",
    )
    p.add_argument("--adapter", help="a LoRA adapter folder on the evaluator, or 'none'")
    p.add_argument("--experience", help="a Stage-2 experience file for its guidance, or 'none'")
    p.add_argument(
        "--threshold",
        help="gate on P(L=1) >= this threshold, or 'none' (the paper's gate: the judged label)",
    )
    p.add_argument("--no-gate", action="store_true", help="run the agent vanilla only")
    p.add_argument(
        "--per-domain", type=int, help="a seeded sample of N tasks per domain (paper: 50)"
    )
    p.add_argument("--t-max", type=int, default=3, help="steps per episode (paper: 3)")
    p.add_argument(
        "--batch-tasks",
        type=int,
        default=16,
        help="tasks run in lockstep, their model calls batched (1: one at a time)",
    )
    p.add_argument("--journal", help="folder of resumable episode journals (default: temporary)")
    p.add_argument(
        "--workers", type=int, default=1, help="processes taking the batches (default: 1)"
    )
    arena_cli.executor_arguments(p)
    p.set_defaults(func=_cmd_evaluate)

    train = sub.add_parser("train", help="run a DUDE training stage outside its notebook")
    stages = train.add_subparsers(dest="stage", required=True)
    p = stages.add_parser("stage1", help="hybrid-reward GRPO + pools, as the stage1_grpo stage")
    p.add_argument("--params", help="parameters file (default: params.yaml of the repository)")
    p.add_argument("--reports", action="store_true", help="also write the report tables/figures")
    p.set_defaults(func=_cmd_train_stage1)
    p = stages.add_parser("stage2", help="experience summarization, as the stage2_summarize stage")
    p.add_argument("--params", help="parameters file (default: params.yaml of the repository)")
    p.add_argument("--reports", action="store_true", help="also write the report tables/figures")
    p.set_defaults(func=_cmd_train_stage2)

    arena_cli.add_parser(sub)

    pipeline_cli.add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
