"""`darkguard arena ...`: validate task files, run tasks, serve an app or a site to browse."""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from pathlib import Path

from darkguard.io import atomic_write_text


def _cmd_validate(args: argparse.Namespace) -> int:
    from darkguard.envs.arena.tasks import TaskFileError, load_tasks

    failed = 0
    for spec in args.files:
        try:
            tasks = load_tasks(spec)
        except TaskFileError as err:
            print(f"INVALID {err}", file=sys.stderr)
            failed += 1
            continue
        print(f"{spec}: {len(tasks)} tasks, valid")
    return 1 if failed else 0


def _endpoint(model: str, url: str, key_env: str | None, max_new_tokens: int) -> dict:
    """The model spec of a model served behind an OpenAI-compatible endpoint."""
    return {
        "backend": "openai",
        "path": model,
        "base_url": url,
        "api_key_env": key_env,
        "max_new_tokens": max_new_tokens,
        "batch_size": 1,
    }


def _agent_spec(args: argparse.Namespace) -> str | dict:
    if args.agent == "offline":
        return "offline"
    if args.agent == "llm":
        if not (args.llm_url and args.llm_model):
            raise SystemExit("error: --agent llm needs --llm-url and --llm-model")
        return _endpoint(args.llm_model, args.llm_url, args.llm_key_env, 300)
    raise SystemExit(f"error: unknown agent {args.agent!r}; known: offline, llm")


def _reasoner_spec(args: argparse.Namespace) -> str | dict:
    """Veer's reasoner: offline, or the model behind --reasoner-url and --reasoner-model."""
    if not args.reasoner_model:
        return "offline"
    if not args.reasoner_url:
        raise SystemExit("error: --reasoner-model needs --reasoner-url")
    return _endpoint(args.reasoner_model, args.reasoner_url, args.llm_key_env, 800)


def _cmd_run(args: argparse.Namespace) -> int:
    from darkguard import registry
    from darkguard.defenses.build import DefenseOptions, defense_factory
    from darkguard.envs.arena.tasks import EXPECTED_SIZES, TaskFileError, load_tasks
    from darkguard.loop.arena import run_tasks
    from darkguard.loop.pool import Pool
    from darkguard.metrics.arena import score
    from darkguard.stages.arena_runs import make_web_agent

    try:
        make_defense = defense_factory(args.defense, DefenseOptions(_reasoner_spec(args)))
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    try:
        taskset = load_tasks(args.tasks)
    except TaskFileError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    tasks = taskset.tasks[: args.limit] if args.limit else taskset.tasks
    expected = EXPECTED_SIZES.get(str(args.tasks)) if not args.limit else None
    start = time.perf_counter()
    records = run_tasks(
        tasks,
        functools.partial(make_web_agent, _agent_spec(args), args.seed),
        journal_path=Path(args.journal) if args.journal else None,
        screenshots=args.screenshots or registry.screenshots(args.defense),
        step_timeout_s=args.step_timeout,
        make_defense=make_defense,
        pool=Pool(args.workers, args.executor, args.ray_address),
        tapes=Path(args.tapes) if args.tapes else None,
    )
    seconds = time.perf_counter() - start
    scores = score(records, expected)
    print(
        f"{taskset.name}: N={scores.N} DPSR={scores.DPSR:.1f} TSR={scores.TSR:.1f} "
        f"STC={scores.STC:.1f} (#D={scores.n_D} #T={scores.n_T} #STC={scores.n_STC}; "
        f"{seconds:.0f} s, {scores.N / max(seconds, 1e-9):.2f} episodes/s)"
    )
    if args.out:
        result = {
            **scores.as_dict(),
            "tasks": taskset.name,
            "agent": args.agent,
            "defense": args.defense,
            "seed": args.seed,
            "records": records,
        }
        atomic_write_text(Path(args.out), json.dumps(result, indent=1, sort_keys=True) + "\n")
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from darkguard.envs.arena.server import Served

    served = Served(site=Path(args.site)) if args.site else Served([args.app] if args.app else None)
    with served:
        target = served.origin + (f"/{args.app}/" if args.app else "/")
        print(f"serving {target} (Ctrl-C to stop)", flush=True)
        if served.partner_origin:
            print(f"second origin {served.partner_origin}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            return 0


def _cmd_synth(args: argparse.Namespace) -> int:
    from darkguard.envs.arena.synth import generate

    try:
        manifest = generate(args.split, args.tasks, args.seed, Path(args.out))
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"{args.out}: arena-synth {manifest.split}, {manifest.tasks} tasks (seed {args.seed})")
    return 0


def _cmd_train_scorer(args: argparse.Namespace) -> int:
    from darkguard.training.arena_scorer import train_from_split

    out = Path(args.out) if args.out else None
    weights = train_from_split(Path(args.dev), out, l2=args.l2, steps=args.steps)
    print(json.dumps(weights.meta, indent=1, sort_keys=True))
    return 0


def add_parser(sub) -> None:
    """The `arena` command group."""
    from darkguard.registry import DEFENSES, STACK

    arena = sub.add_parser("arena", help="the arena: live deceptive web apps and task files")
    cmds = arena.add_subparsers(dest="arena", required=True)
    p = cmds.add_parser("validate", help="check task files (errors name file, task and field)")
    p.add_argument("files", nargs="+", help="task files, folders of them, or built-in set names")
    p.set_defaults(func=_cmd_validate)
    p = cmds.add_parser("run", help="run an agent (and a defense) on tasks; print DPSR/TSR/STC")
    p.add_argument("--tasks", required=True, help="a task file, a folder, or a built-in set")
    p.add_argument("--agent", default="offline", help="base agent: offline (default) | llm")
    p.add_argument("--llm-url", help="llm: the OpenAI-compatible endpoint, e.g. http://h:8000/v1")
    p.add_argument("--llm-model", help="llm: the served model name")
    p.add_argument("--llm-key-env", help="llm: the environment variable holding the API key")
    p.add_argument("--workers", type=int, default=1, help="browsers side by side (default: 1)")
    executor_arguments(p)
    p.add_argument(
        "--defense",
        default="none",
        help=f"one of {', '.join(DEFENSES)}, or several joined by '{STACK}' (dude-s2+veer)",
    )
    p.add_argument("--reasoner-url", help="Veer's llm reasoner: an OpenAI-compatible endpoint")
    p.add_argument(
        "--reasoner-model",
        help="Veer's llm reasoner, also Guardrail's, VIGIL's and SafePred's judge: the served "
        "model (default: offline)",
    )
    p.add_argument("--out", help="write N, DPSR, TSR, STC, counts and episode records as JSON")
    p.add_argument("--journal", help="resumable episode journal (JSONL)")
    p.add_argument(
        "--tapes",
        help="folder of recorded pages: episodes on a path played before read them (pages that "
        "depend only on the actions taken, as the built-in apps' do)",
    )
    p.add_argument("--limit", type=int, help="only the first N tasks")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--screenshots", action="store_true", help="observations carry screenshots")
    p.add_argument("--step-timeout", type=float, default=10.0, help="seconds before a step hangs")
    p.set_defaults(func=_cmd_run)
    p = cmds.add_parser("synth", help="generate an arena-synth split (sites and task files)")
    p.add_argument(
        "--split",
        required=True,
        choices=["dev", "eval", "valid"],
        help="dev: develop on; eval: report; valid: develop against unseen wording",
    )
    p.add_argument("--tasks", type=int, default=200, help="tasks: dark tasks and clean twins")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--out", required=True, help="the split's folder (rewritten)")
    p.set_defaults(func=_cmd_synth)
    p = cmds.add_parser(
        "train-scorer",
        help="train the offline agent's element scorer on a dev split's clean twins",
    )
    p.add_argument("--dev", required=True, help="a generated arena-synth dev split")
    p.add_argument("--out", default=None, help="weights file (default: the one the agent reads)")
    p.add_argument(
        "--l2", type=float, default=None, help="L2 (default: chosen on a held-out fifth)"
    )
    p.add_argument("--steps", type=int, default=400, help="gradient steps")
    p.set_defaults(func=_cmd_train_scorer)
    p = cmds.add_parser("serve", help="serve an app (or a site folder) on 127.0.0.1 to browse")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--app", help="one built-in app (default: all)")
    group.add_argument("--site", help="a static site folder")
    p.set_defaults(func=_cmd_serve)


def executor_arguments(p: argparse.ArgumentParser) -> None:
    """Where the workers run (params.yaml's `parallel` section, for one command)."""
    p.add_argument(
        "--executor",
        choices=["processes", "ray"],
        default="processes",
        help="workers as processes of this machine (default) or Ray actors",
    )
    p.add_argument("--ray-address", help="ray: a cluster's address (default: a local Ray)")
