"""Run stage notebooks with papermill and clean them so that reruns on one machine are
byte-identical; `stage_config` gives a notebook its stage's parameters; `quiet_libraries` keeps
volatile library output (progress rates, warnings with file paths) out of executed notebooks.

A stage notebook's `parameters` cell holds only `knobs`: the few dotted params.yaml keys a reader
would turn, at params.yaml's values. `darkguard notebook run` injects the stage's whole sections
(those of its module's `PARAMS`) after that cell; `stage_config` builds the notebook's `Config`
from them, or, in a notebook opened by hand, from params.yaml with the knobs set on top.
"""

from __future__ import annotations

import ast
import copy
import json
import logging
import os
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import nbformat

from darkguard import paths
from darkguard.config import Config, load_config, load_params
from darkguard.io import InputError, atomic_write_text
from darkguard.stage_deps import notebook_stage, stage_sections

VOLATILE_CELL_METADATA = ("papermill", "execution", "ExecuteTime", "collapsed", "scrolled")


def clean_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Drop timestamps and run metadata, and number the cells with stable ids."""
    nb.metadata.pop("papermill", None)
    nb.metadata.pop("widgets", None)
    for i, cell in enumerate(nb.cells):
        for key in VOLATILE_CELL_METADATA:
            cell.metadata.pop(key, None)
        cell["id"] = f"cell-{i:03d}"
        for output in cell.get("outputs", []):
            output.get("metadata", {}).pop("execution", None)
    return nb


def clean_file(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    atomic_write_text(Path(path), nbformat.writes(clean_notebook(nb)) + "\n")


def parameters(notebook: Path) -> dict[str, Any]:
    """The literal assignments of the notebook's one cell tagged `parameters`."""
    nb = nbformat.read(notebook, as_version=4)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise InputError(f"{notebook}: needs exactly one cell tagged 'parameters'")
    values = {}
    for node in ast.parse(cells[0].source).body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            raise InputError(f"{notebook}: the parameters cell may hold assignments only")
        values[node.targets[0].id] = ast.literal_eval(node.value)  # literals only
    return values


def _knobs_node(notebook: Path, source: str) -> ast.Dict | None:
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "knobs":
            if not isinstance(node.value, ast.Dict):
                raise InputError(f"{notebook}: `knobs` must be a dict literal")
            return node.value
    return None


def _lookup(sections: Mapping[str, Any], key: str, where: str) -> Any:
    node: Any = sections
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            raise InputError(f"{where}: knob '{key}': no such key")
        node = node[part]
    return node


def _literal(value: Any) -> str:
    """`value` as Python source, strings in double quotes (as ruff formats them)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


def sync_parameters(notebook: Path, params_file: Path | None = None) -> bool:
    """Set the values of the notebook's knobs to params.yaml's (their comments kept), so that
    they never drift; True when the cell changed."""
    params_file = Path(params_file or paths.PARAMS_FILE)
    values = load_params(params_file)
    nb = nbformat.read(notebook, as_version=4)
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    knobs = _knobs_node(notebook, cell.source)
    if knobs is None:
        return False
    lines = cell.source.split("\n")
    edits = []
    for key_node, value_node in zip(knobs.keys, knobs.values, strict=True):
        key = ast.literal_eval(key_node) if key_node else None
        if not isinstance(key, str):
            raise InputError(f"{notebook}: each knob is a dotted params.yaml key")
        new, old = _lookup(values, key, paths.display(params_file)), ast.literal_eval(value_node)
        if old != new or type(old) is not type(new):
            edits.append((value_node, _literal(new)))
    if not edits:
        return False
    for node, text in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True):
        first, last = node.lineno - 1, node.end_lineno - 1
        lines[first : last + 1] = [
            lines[first][: node.col_offset] + text + lines[last][node.end_col_offset :]
        ]
    cell.source = "\n".join(lines)
    nbformat.write(nb, notebook)
    return True


def stage_config(
    keys: Iterable[str],
    knobs: Mapping[str, Any] | None = None,
    namespace: Mapping[str, Any] | None = None,
    params_file: Path | None = None,
) -> Config:
    """The `Config` of the sections a stage reads (those of its dotted `keys`, its `PARAMS`).

    Args:
        keys: the stage's `PARAMS`.
        knobs: dotted params.yaml keys set on top of params.yaml's values.
        namespace: the notebook's `globals()`: a section `darkguard notebook run` injected there
            is taken whole, and wins over the knobs.
        params_file: params.yaml (default: the repository's).
    """
    names = list(dict.fromkeys(key.split(".")[0] for key in keys))
    namespace = namespace or {}
    sections = {name: namespace[name] for name in names if name in namespace}
    if len(sections) < len(names):
        params_file = Path(params_file or paths.PARAMS_FILE)
        raw = load_params(params_file)
        where = paths.display(params_file)
        missing = [name for name in names if name not in raw]
        if missing:
            raise InputError(f"{where}: section(s) {missing} needed by the stage are missing")
        read = {name: copy.deepcopy(raw[name]) for name in names}
        for key, value in (knobs or {}).items():
            parent, _, leaf = key.rpartition(".")
            if key.split(".")[0] not in names or not parent:
                raise InputError(f"knob '{key}': not a key of the stage's sections {names}")
            _lookup(read, key, where)  # knobs set values of existing keys, they add none
            _lookup(read, parent, where)[leaf] = value
        sections = {name: sections.get(name, read[name]) for name in names}
    return Config.from_sections(**sections)


def run_notebook(notebook: Path, out: Path, params_file: Path | None = None) -> None:
    """Validate the whole params.yaml (a bad key fails here, naming it, before anything runs),
    execute `notebook` with papermill into `out`, injecting the params.yaml sections of the stage
    it runs (the `darkguard.stages` module it imports), then clean `out`."""
    import papermill

    params_file = Path(params_file or paths.PARAMS_FILE)
    load_config(params_file)
    values = load_params(params_file)
    stage = notebook_stage(Path(notebook))
    names = stage_sections(stage) if stage else []
    missing = sorted(set(names) - set(values))
    if missing:
        raise InputError(f"{params_file}: section(s) {missing} needed by {notebook} are missing")
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    log = logging.getLogger("papermill")
    log.addFilter(_sections_declared)  # the cell declares knobs only: a section is no surprise
    try:
        papermill.execute_notebook(
            str(notebook),
            str(out),
            parameters={name: values[name] for name in names},
            cwd=str(paths.ROOT),
            progress_bar=False,
        )
    finally:
        log.removeFilter(_sections_declared)
    clean_file(Path(out))


def _sections_declared(record: logging.LogRecord) -> bool:
    return not record.getMessage().startswith("Passed unknown parameter")


def quiet_libraries() -> None:
    """No progress bars and no FutureWarning/UserWarning chatter from the ML libraries."""
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    os.environ["TQDM_DISABLE"] = "1"
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    warnings.filterwarnings("ignore", category=FutureWarning)
    # the same in the processes started from here (OCR readers, jobs): spawned interpreters read
    # their warning filters from the environment, and their stderr lands in the cell's output
    inherited = [w for w in os.environ.get("PYTHONWARNINGS", "").split(",") if w]
    if "ignore::FutureWarning" not in inherited:
        os.environ["PYTHONWARNINGS"] = ",".join([*inherited, "ignore::FutureWarning"])
    warnings.filterwarnings("ignore", message="IProgress not found")
    for module in ("transformers", "trl", "peft", "torch", "accelerate", "datasets"):
        warnings.filterwarnings("ignore", category=UserWarning, module=module)
    from transformers.utils import logging

    logging.set_verbosity_error()
    logging.disable_progress_bar()
