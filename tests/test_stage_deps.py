"""dvc.yaml's per-stage code deps and params are what the sources say (`darkguard dvc-deps`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from darkguard import dvc_file, paths, stage_deps
from darkguard.dvc_file import render
from darkguard.stage_deps import PACKAGE, closure, notebook_references, references


def test_dvc_yaml_code_deps_and_params_are_the_computed_ones() -> None:
    """A module moved, added or no longer imported changes a stage's code: rewrite dvc.yaml."""
    problems = dvc_file.differences()
    assert problems == [], "run `darkguard dvc-deps --write`:\n" + "\n".join(problems)


# (source, module it is in, whether that module is a package, modules it references)
CASES = [
    # absolute imports, at module level and inside a function
    ("import darkguard.io\ndef f():\n    from darkguard import paths", "darkguard.x", False,
     {"darkguard.io", "darkguard", "darkguard.paths"}),
    # relative imports from a module and from a package's __init__
    ("from . import tables\nfrom ..io import dumps", "darkguard.reports.report", False,
     {"darkguard.reports", "darkguard.reports.tables", "darkguard.io", "darkguard.io.dumps"}),
    ("from .view import view", "darkguard.config", True,
     {"darkguard.config.view", "darkguard.config.view.view"}),
    # a module run by name (`python -m`); prose and other strings are not modules
    ('cmd = [python, "-m", "darkguard.config.view"]\nCARD = "darkguard.json"', "darkguard.x",
     False, {"darkguard.config.view"}),
    # imports under TYPE_CHECKING never run
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from darkguard import io", None,
     False, set()),
    # third-party imports are not followed
    ("import yaml\nfrom pydantic import BaseModel", None, False, set()),
]  # fmt: skip


@pytest.mark.parametrize(("source", "module", "package", "expected"), CASES)
def test_references(source: str, module: str | None, package: bool, expected: set) -> None:
    assert references(source, module, package).modules == expected


def test_a_factory_named_by_a_string_counts_once_a_module_imports_by_name() -> None:
    """Strings "module:attr" (a registry's) load only where importlib imports them."""
    refs = references('ENTRY = "darkguard.config.view:view"', "darkguard.x")
    assert (refs.modules, refs.factories, refs.by_name) == (set(), {"darkguard.config.view"}, False)
    assert references("importlib.import_module(name)").by_name
    view = PACKAGE / "config" / "view.py"
    assert view not in closure(["darkguard.io"], refs)
    refs.by_name = True
    assert view in closure(["darkguard.io"], refs)


def test_an_fstring_import_of_a_packages_modules_reaches_them_all() -> None:
    apps = references(
        'importlib.import_module(f"{__name__}.{name}")', "darkguard.envs.arena.apps", True
    ).modules
    assert {"darkguard.envs.arena.apps.shop", "darkguard.envs.arena.apps.shop.views"} <= apps
    files = references('CODE = "defenses/dude"', "darkguard.x").files
    assert PACKAGE / "defenses" / "dude" / "__init__.py" in files  # a path read for a fingerprint


def test_data_files_beside_a_module_are_deps() -> None:
    found = closure(["darkguard.envs.arena.tasks"])
    tasksets = PACKAGE / "envs" / "arena" / "tasksets"
    assert any(p.suffix == ".yaml" and tasksets in p.parents for p in found)
    assert PACKAGE / "__init__.py" in found and PACKAGE / "envs" / "__init__.py" in found


@pytest.mark.parametrize("stage", ["report", "build_ruc"])
def test_the_closure_holds_every_module_an_import_loads(stage: str) -> None:
    """What Python loads when the notebook's and the stage's imports run is in the closure."""
    notebook = dvc_file.stages()[stage]
    refs = notebook_references(notebook)
    roots = sorted({*refs.modules, f"darkguard.stages.{stage}", stage_deps.RUNNER})
    code = (
        "import importlib, json, sys\n"
        f"for m in {[m for m in roots if stage_deps.module_file(m)]!r}:\n"
        "    importlib.import_module(m)\n"
        "print(json.dumps([getattr(m, '__file__', None) for n, m in sys.modules.items()"
        " if n.startswith('darkguard')]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = {Path(f).resolve() for f in json.loads(out.stdout) if f}
    assert loaded - stage_deps.stage_files(stage, notebook) == set()


def test_render_rewrites_code_deps_and_params_only() -> None:
    text = (
        "# a comment\n"
        "stages:\n"
        "  report:\n"
        "    cmd: darkguard notebook run notebooks/11_report.ipynb\n"
        "    deps:\n"
        "      - notebooks/11_report.ipynb\n"
        "      - lib/darkguard\n"
        "      - reports/metrics/guard.json\n"
        "    params:\n"
        "      - base\n"
        "    outs:\n"
        "      - reports/README.md:\n"
        "          cache: false\n"
    )
    lines = render(text).splitlines()
    assert lines[:6] == text.splitlines()[:6] and lines[6] == "      - reports/metrics/guard.json"
    code = [x.removeprefix("      - ") for x in lines if x.startswith("      - lib/darkguard/")]
    assert "lib/darkguard/stages/report.py" in code and "lib/darkguard/notebook.py" in code
    assert all((paths.ROOT / x).exists() for x in code)
    assert lines[lines.index("    params:") + 1 :] == [
        "      - base.profile",
        "    outs:",
        "      - reports/README.md:",
        "          cache: false",
    ]
    assert render("\n".join(lines) + "\n") == "\n".join(lines) + "\n"  # a fixed point
