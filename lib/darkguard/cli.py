"""The `darkguard` command line."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from darkguard.io import InputError


def _cmd_ruc_validate(args: argparse.Namespace) -> int:
    from darkguard.data.validate import counts, validate_dir

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
    from darkguard.config import BaseParams, DataParams, load_params
    from darkguard.data.build import build_ruc

    params = load_params(Path(args.params) if args.params else None)
    base, data = BaseParams.from_dict(params["base"]), DataParams.from_dict(params["data"])
    start = time.perf_counter()

    def progress(done: int, total: int) -> None:
        if done % 100 == 0 or done == total:
            print(f"  {done}/{total} pages", file=sys.stderr)

    build = build_ruc(data, base, progress)
    if args.reports:
        from darkguard.reports.ruc_outputs import write_ruc_reports

        write_ruc_reports(build, data)
    print(
        f"built {len(build.records)} records into {build.out_dir} in "
        f"{time.perf_counter() - start:.1f} s; splits "
        f"{ {k: len(v) for k, v in build.splits.items()} }; "
        f"{sum(len(v) for v in build.clicks.values())} clicks; "
        f"{len(build.rejected)} rejected; source {data.source}"
    )
    return 0


def _cmd_notebook_clean(args: argparse.Namespace) -> int:
    from darkguard.pipeline.notebooks import clean_file

    for path in args.paths:
        clean_file(Path(path))
    return 0


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

    nb = sub.add_parser("notebook", help="notebook utilities").add_subparsers(
        dest="nb", required=True
    )
    p = nb.add_parser("clean", help="make executed notebooks byte-stable")
    p.add_argument("paths", nargs="+")
    p.set_defaults(func=_cmd_notebook_clean)
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
