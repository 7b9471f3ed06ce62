"""Run stage notebooks with papermill and clean them so that reruns on one machine are
byte-identical; `quiet_libraries` keeps volatile library output (progress rates, warnings with
file paths) out of executed notebooks."""

from __future__ import annotations

import ast
import os
import warnings
from pathlib import Path
from typing import Any

import nbformat
import yaml

from darkguard import paths
from darkguard.config import load_config, load_params
from darkguard.io import InputError, atomic_write_text

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


def sync_parameters(notebook: Path, params_file: Path | None = None) -> bool:
    """Rewrite the notebook's parameters cell with the current params.yaml sections it declares
    (so that its literal defaults never drift); True when the cell changed."""
    import pprint

    params_file = Path(params_file or paths.PARAMS_FILE)
    values = yaml.safe_load(params_file.read_text())
    names = list(parameters(notebook))
    missing = sorted(set(names) - set(values))
    if missing:
        raise InputError(f"{params_file}: section(s) {missing} needed by {notebook} are missing")
    nb = nbformat.read(notebook, as_version=4)
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    source = "\n".join(
        f"{name} = {pprint.pformat(values[name], width=96, sort_dicts=False)}" for name in names
    )
    if ast.dump(ast.parse(source)) == ast.dump(ast.parse(cell.source)):
        return False
    cell.source = source
    nbformat.write(nb, notebook)
    return True


def run_notebook(notebook: Path, out: Path, params_file: Path | None = None) -> None:
    """Validate the whole params.yaml (a bad key fails here, naming it, before anything runs),
    execute `notebook` with papermill into `out`, injecting only the params.yaml sections its
    parameters cell declares, then clean `out`."""
    import papermill

    params_file = Path(params_file or paths.PARAMS_FILE)
    load_config(params_file)
    values = load_params(params_file)
    missing = sorted(set(parameters(notebook)) - set(values))
    if missing:
        raise InputError(f"{params_file}: section(s) {missing} needed by {notebook} are missing")
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    papermill.execute_notebook(
        str(notebook),
        str(out),
        parameters={name: values[name] for name in parameters(notebook)},
        cwd=str(paths.ROOT),
        progress_bar=False,
    )
    clean_file(Path(out))


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
