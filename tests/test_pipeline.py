"""Pipeline wiring: notebook parameters agree with params.yaml and dvc.yaml; clean notebooks."""

from __future__ import annotations

import ast
import json

import nbformat
import pytest
import yaml

from darkguard import paths
from darkguard.pipeline.notebooks import clean_notebook

DVC = yaml.safe_load((paths.ROOT / "dvc.yaml").read_text())
PARAMS = yaml.safe_load(paths.PARAMS_FILE.read_text())
STAGES = DVC["stages"]


def parameters_cell(notebook: str) -> dict:
    nb = nbformat.read(paths.NOTEBOOKS / notebook, as_version=4)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, f"{notebook}: needs exactly one cell tagged 'parameters'"
    values = {}
    for node in ast.parse(cells[0].source).body:
        assert isinstance(node, ast.Assign), "the parameters cell holds assignments only"
        values[node.targets[0].id] = ast.literal_eval(node.value)  # literals only (papermill)
    return values


def stage_notebook(stage: dict) -> str:
    return next(d for d in stage["deps"] if str(d).startswith("notebooks/")).split("/")[-1]


@pytest.mark.parametrize("name", sorted(STAGES))
def test_stage_runs_its_notebook_with_params_yaml(name: str) -> None:
    stage = STAGES[name]
    notebook = stage_notebook(stage)
    assert f"papermill notebooks/{notebook} reports/executed/{notebook}" in stage["cmd"]
    assert "-f params.yaml" in stage["cmd"]
    assert f"darkguard notebook clean reports/executed/{notebook}" in stage["cmd"]


@pytest.mark.parametrize("name", sorted(STAGES))
def test_notebook_parameters_equal_params_yaml(name: str) -> None:
    """The literal defaults in the notebook never drift from params.yaml."""
    stage = STAGES[name]
    cell = parameters_cell(stage_notebook(stage))
    assert sorted(cell) == sorted(stage["params"])
    for section in stage["params"]:
        assert cell[section] == PARAMS[section], f"{name}: section '{section}' drifted"


@pytest.mark.parametrize("notebook", sorted(p.name for p in paths.NOTEBOOKS.glob("*.ipynb")))
def test_every_notebook_parameters_equal_params_yaml(notebook: str) -> None:
    """Also notebooks that are not (yet) a stage: their literals equal params.yaml sections."""
    for section, value in parameters_cell(notebook).items():
        assert value == PARAMS[section], f"{notebook}: section '{section}' drifted"


def test_notebooks_are_committed_without_outputs() -> None:
    for path in sorted(paths.NOTEBOOKS.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), path


def test_clean_notebook_removes_volatile_metadata() -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")])
    nb.metadata["papermill"] = {"start_time": "2026-01-01T00:00:00"}
    nb.cells[0].metadata["papermill"] = {"duration": 1.2}
    nb.cells[0].metadata["execution"] = {"iopub.status.busy": "x"}
    nb.cells[0]["id"] = "random-id-123"
    cleaned = json.loads(nbformat.writes(clean_notebook(nb)))
    assert "papermill" not in cleaned["metadata"]
    assert cleaned["cells"][0]["metadata"] == {}
    assert cleaned["cells"][0]["id"] == "cell-000"
