"""Numbers quoted from the papers live in `darkguard.reports.paper` only: no other module of the
package defines a PAPER_* constant or one of paper.py's names, or writes a distinctive paper number
as a literal; paper.py itself holds literal constants only and imports nothing from darkguard."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import darkguard
from darkguard.reports import paper

PACKAGE = Path(darkguard.__file__).resolve().parent
PAPER_MODULE = PACKAGE / "reports" / "paper.py"

# PAPER_* names that are not paper numbers: the paper's evaluator inputs (an ObservationAids
# setting of a lower layer, which may not import darkguard.reports).
NOT_NUMBERS = {"PAPER_INPUTS"}

# A few numbers that only the papers give us (DUDE Tables 5, 7, 13, 18, 19 and Section 5.2).
DISTINCTIVE_NUMBERS = {
    9.75,
    27.53,
    17.25,
    12.37,
    55.3,
    86.5,
    17.65,
    217.62,
    3.58,
    48.47,
    459,
    351,
    471,
    483,
    505,
    509,
    637,
    348,
}
DISTINCTIVE_TEXT = re.compile(
    r"(?<![\d.])("
    + "|".join(re.escape(str(n)) for n in sorted(DISTINCTIVE_NUMBERS, key=str))
    + r")(?![\d])|ShowUI-web"
)


def other_modules() -> list[Path]:
    modules = sorted(p for p in PACKAGE.rglob("*.py") if p != PAPER_MODULE)
    assert modules, PACKAGE
    return modules


def parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def assigned_names(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        else:
            continue
        for target in targets:
            for leaf in ast.walk(target):
                if isinstance(leaf, ast.Name):
                    names.add(leaf.id)
    return names


def docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes (documentation may cite the paper's numbers)."""
    found = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
        ):
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def paper_literals(tree: ast.AST) -> list[str]:
    skip = docstrings(tree)
    hits = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or id(node) in skip:
            continue
        value = node.value
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if (number and value in DISTINCTIVE_NUMBERS) or (
            isinstance(value, str) and DISTINCTIVE_TEXT.search(value)
        ):
            hits.append(f"line {node.lineno}: {value!r}")
    return hits


def paper_names() -> set[str]:
    return {name for name in vars(paper) if name.isupper()}


def test_paper_module_holds_the_quoted_numbers() -> None:
    names = paper_names()
    assert names
    assert all(name.startswith(("DUDE_", "VEER_")) for name in names), names  # named by paper
    assert paper.DUDE_TABLE5_REWARD_ABLATION["full"]["FER"] == 9.75
    assert paper.DUDE_TABLE18_INITIAL_POOLS == {"success": 459, "failure": 351}


def test_paper_module_is_literal_constants_importing_nothing_from_darkguard() -> None:
    tree = parse(PAPER_MODULE)
    assert ast.get_docstring(tree)
    for node in tree.body[1:]:
        assert not isinstance(node, ast.Import | ast.ImportFrom), ast.dump(node)
        assert isinstance(node, ast.Assign), f"line {node.lineno}: not a constant"
        assert all(isinstance(t, ast.Name) and t.id.isupper() for t in node.targets)
        ast.literal_eval(node.value)  # a literal: no logic, no name from elsewhere
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0 and not (node.module or "").startswith("darkguard")
        if isinstance(node, ast.Import):
            assert not any(a.name.startswith("darkguard") for a in node.names)


def test_no_other_module_defines_a_paper_constant() -> None:
    forbidden = paper_names()
    offenders = {}
    for path in other_modules():
        names = assigned_names(parse(path))
        bad = sorted(
            n for n in names if (n.startswith("PAPER_") and n not in NOT_NUMBERS) or n in forbidden
        )
        if bad:
            offenders[str(path.relative_to(PACKAGE))] = bad
    assert offenders == {}


def test_no_other_module_writes_a_paper_number() -> None:
    offenders = {}
    for path in other_modules():
        hits = paper_literals(parse(path))
        if hits:
            offenders[str(path.relative_to(PACKAGE))] = hits
    assert offenders == {}


def test_the_scan_sees_paper_numbers() -> None:
    """The scan itself: it finds the numbers in paper.py and a PAPER_* definition."""
    tree = parse(PAPER_MODULE)
    assert any("9.75" in hit for hit in paper_literals(tree))
    assert any("459" in hit for hit in paper_literals(tree))
    assert "PAPER_X" in assigned_names(ast.parse("PAPER_X = 1"))
    assert paper_literals(ast.parse('CAPTION = f"steps {x} (paper: 17.65)"'))
    assert not paper_literals(ast.parse('"""Docstring citing Table 13: 637 + 348."""'))
