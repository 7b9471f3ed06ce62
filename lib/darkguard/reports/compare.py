"""Regenerated reports against the committed ones, numbers compared at the precision their
computation guarantees.

The tables carry some figures beyond what float32 inference repeats exactly: a confidence
threshold written with six decimals (0.468491) is the evaluator's P(L=1) of one click, and the
same code gave 0.468490 in another run on the same machine, and 0.489431 for 0.489439 on
another CPU; every outcome was identical. A text difference alone therefore does not make a
regenerated report different: files are compared token by token, words and signs exactly, integers
exactly, and decimals within `REL_TOL` of each other (relative to the larger, at least 1). Layout
that follows a number's width (Markdown padding and rule lengths) is not compared.

    python -m darkguard.reports.compare [PATH ...]   # default: reports/tables, metrics, ...

compares each file under the given paths with the committed version (`git show HEAD:path`), names
every file that differs beyond the tolerance with its first differing tokens, and exits 1 if any
does (or a file was added or removed), 0 otherwise.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

REL_TOL = 2e-5  # float32 rounding of a probability, written with 6 decimals: a few units of 1e-6
CHECKED = ("reports/tables", "reports/metrics", "reports/experience", "reports/README.md")
TOKEN = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|[A-Za-z_]+|[^\sA-Za-z0-9_]")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def tokens(text: str) -> list[str]:
    """Words, numbers and punctuation of `text`; whitespace dropped and runs of one punctuation
    mark (a Markdown rule's dashes, padding) counted once."""
    out: list[str] = []
    for token in TOKEN.findall(text):
        if len(token) == 1 and not token.isalnum() and out and out[-1] == token:
            continue
        out.append(token)
    return out


def same_token(a: str, b: str, rel_tol: float = REL_TOL) -> bool:
    """Equal words, or equal numbers: integers exactly, decimals within `rel_tol`."""
    if a == b:
        return True
    if not (NUMBER.fullmatch(a) and NUMBER.fullmatch(b)):
        return False
    if not any(c in t for t in (a, b) for c in ".eE"):
        return False  # two different integers (counts): never noise
    x, y = float(a), float(b)
    return abs(x - y) <= rel_tol * max(1.0, abs(x), abs(y))


def difference(old: str, new: str, rel_tol: float = REL_TOL) -> str:
    """ "" when `new` equals `old` within the tolerance, else where they part."""
    a, b = tokens(old), tokens(new)
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if not same_token(x, y, rel_tol):
            context = " ".join(a[max(0, i - 6) : i])
            return f"after '{context}': {x!r} -> {y!r}"
    if len(a) != len(b):
        return f"{len(a)} tokens -> {len(b)}"
    return ""


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def changed_files(paths: Sequence[str]) -> list[tuple[str, str]]:
    """(status, path) of every file under `paths` that differs from HEAD in text, untracked
    files included (git's porcelain codes: M, D, A, ??)."""
    out = []
    for line in _git("status", "--porcelain", "--untracked-files=all", "--", *paths).splitlines():
        status, path = line[:2].strip(), line[3:]
        out.append((status, path))
    return out


def compare(paths: Sequence[str] = CHECKED, rel_tol: float = REL_TOL) -> list[str]:
    """One line per regenerated file that differs from the committed one beyond the tolerance."""
    problems = []
    for status, path in changed_files(paths):
        if status != "M":
            problems.append(f"{path}: {'removed' if status == 'D' else 'added'}")
            continue
        old = _git("show", f"HEAD:{path}")
        why = difference(old, Path(path).read_text(), rel_tol)
        if why:
            problems.append(f"{path}: {why}")
        else:
            print(f"{path}: equal within the tolerance (rel {rel_tol:g})")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    paths = list(argv if argv is not None else sys.argv[1:]) or list(CHECKED)
    problems = compare(paths)
    for line in problems:
        print(line)
    print(f"{len(problems)} file(s) differ from the committed reports" if problems else "same")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
