"""`darkguard notebook ...` and `darkguard dvc-deps`: running stage notebooks, their parameters
cells, and dvc.yaml's per-stage code deps and params."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _cmd_notebook_run(args: argparse.Namespace) -> int:
    from darkguard import paths
    from darkguard.notebook import run_notebook

    notebook = Path(args.notebook)
    out = Path(args.out) if args.out else paths.reports_dir() / "executed" / notebook.name
    run_notebook(notebook, out, Path(args.params) if args.params else None)
    return 0


def _cmd_notebook_sync(args: argparse.Namespace) -> int:
    from darkguard.notebook import sync_parameters

    for path in args.notebooks:
        changed = sync_parameters(Path(path), Path(args.params) if args.params else None)
        print(f"{path}: {'updated' if changed else 'up to date'}")
    return 0


def _cmd_notebook_clean(args: argparse.Namespace) -> int:
    from darkguard.notebook import clean_file

    for path in args.paths:
        clean_file(Path(path))
    return 0


def _cmd_dvc_deps(args: argparse.Namespace) -> int:
    from darkguard import dvc_file

    if args.write:
        print(f"dvc.yaml: {'updated' if dvc_file.write() else 'up to date'}")
        return 0
    if args.check:
        problems = dvc_file.differences()
        for line in problems:
            print(line, file=sys.stderr)
        if problems:
            print("run `darkguard dvc-deps --write`", file=sys.stderr)
        return 1 if problems else 0
    for stage, count in dvc_file.summary().items():
        print(f"{stage}: {count} files of lib/darkguard")
    return 0


def add_parsers(sub) -> None:
    """The `notebook` command group and `dvc-deps`."""
    p = sub.add_parser(
        "dvc-deps", help="each stage's code deps and params in dvc.yaml, read from the sources"
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite them in dvc.yaml")
    mode.add_argument("--check", action="store_true", help="fail when dvc.yaml differs")
    p.set_defaults(func=_cmd_dvc_deps)

    nb = sub.add_parser("notebook", help="notebook utilities").add_subparsers(
        dest="nb", required=True
    )
    p = nb.add_parser(
        "run", help="execute a stage notebook with its params.yaml sections, then clean it"
    )
    p.add_argument("notebook")
    p.add_argument("--out", help="executed notebook (default: reports/executed/<name>)")
    p.add_argument("--params", help="parameters file (default: params.yaml of the repository)")
    p.set_defaults(func=_cmd_notebook_run)
    p = nb.add_parser(
        "sync-params", help="set the knobs of notebooks' parameters cells to params.yaml's values"
    )
    p.add_argument("notebooks", nargs="+")
    p.add_argument("--params", help="parameters file (default: params.yaml of the repository)")
    p.set_defaults(func=_cmd_notebook_sync)
    p = nb.add_parser("clean", help="make executed notebooks byte-stable")
    p.add_argument("paths", nargs="+")
    p.set_defaults(func=_cmd_notebook_clean)
