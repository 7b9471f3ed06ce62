"""Pipeline wiring: notebook parameters agree with params.yaml and dvc.yaml; clean notebooks."""

from __future__ import annotations

import json

import nbformat
import pytest
import yaml

from darkguard import paths
from darkguard.io import InputError
from darkguard.notebook import (
    clean_notebook,
    parameters,
    run_notebook,
    sync_parameters,
)

DVC = yaml.safe_load((paths.ROOT / "dvc.yaml").read_text())
PARAMS = yaml.safe_load(paths.PARAMS_FILE.read_text())
STAGES = DVC["stages"]


def parameters_cell(notebook: str) -> dict:
    return parameters(paths.NOTEBOOKS / notebook)


def stage_notebook(stage: dict) -> str:
    return next(d for d in stage["deps"] if str(d).startswith("notebooks/")).split("/")[-1]


@pytest.mark.parametrize("name", sorted(STAGES))
def test_stage_runs_its_notebook_with_params_yaml(name: str) -> None:
    stage = STAGES[name]
    notebook = stage_notebook(stage)
    assert stage["cmd"] == f"darkguard notebook run notebooks/{notebook}"
    executed = f"reports/executed/{notebook}"
    assert executed in [out if isinstance(out, str) else next(iter(out)) for out in stage["outs"]]


@pytest.mark.parametrize("name", sorted(STAGES))
def test_notebook_parameters_equal_params_yaml(name: str) -> None:
    """The literal defaults in the notebook never drift from params.yaml."""
    stage = STAGES[name]
    cell = parameters_cell(stage_notebook(stage))
    sections = {key.split(".")[0] for key in stage["params"]}  # of the stage's dotted keys
    assert sorted(cell) == sorted(sections)
    for section in sections:
        assert cell[section] == PARAMS[section], f"{name}: section '{section}' drifted"


@pytest.mark.parametrize("name", sorted(STAGES))
def test_notebook_hands_every_declared_section_to_its_config(name: str) -> None:
    """The notebook builds its `Config` from every section its parameters cell declares (a
    section left out fails only when the stage reads it, deep into a run)."""
    import ast

    notebook = nbformat.read(paths.NOTEBOOKS / stage_notebook(STAGES[name]), as_version=4)
    calls = [
        node
        for cell in notebook.cells
        if cell.cell_type == "code" and "from_sections" in cell.source
        for node in ast.walk(ast.parse(cell.source))
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "from_sections"
    ]
    assert len(calls) == 1, f"{name}: one Config.from_sections call expected"
    given = {kw.arg for kw in calls[0].keywords}
    assert given == set(parameters_cell(stage_notebook(STAGES[name])))


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


def test_run_notebook_injects_only_the_declared_sections(tmp_path) -> None:
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell('base = {"seed": 0}', metadata={"tags": ["parameters"]}),
            nbformat.v4.new_code_cell('print(base["seed"], "other" in dir())'),
        ]
    )
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nb.metadata["language_info"] = {"name": "python"}
    source = tmp_path / "nb.ipynb"
    nbformat.write(nb, source)
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({**PARAMS, "base": {"profile": "tiny", "seed": 7}}))
    run_notebook(source, tmp_path / "out" / "nb.ipynb", params)
    executed = nbformat.read(tmp_path / "out" / "nb.ipynb", as_version=4)
    assert executed.cells[-1].outputs[0]["text"] == "7 False\n"
    assert "papermill" not in executed.metadata
    assert [c["id"] for c in executed.cells] == ["cell-000", "cell-001", "cell-002"]
    params.write_text(yaml.safe_dump({k: v for k, v in PARAMS.items() if k != "base"}))
    with pytest.raises(InputError, match=r"params\.yaml: base: missing section"):
        run_notebook(source, tmp_path / "out" / "nb.ipynb", params)


def test_sync_parameters_rewrites_the_cell_from_params_yaml(tmp_path) -> None:
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell('base = {"seed": 0}', metadata={"tags": ["parameters"]}),
            nbformat.v4.new_code_cell("print(base)"),
        ]
    )
    source = tmp_path / "nb.ipynb"
    nbformat.write(nb, source)
    params = tmp_path / "params.yaml"
    params.write_text("base: {seed: 7, profile: tiny}\nother: {x: 1}\n")
    assert sync_parameters(source, params) is True
    assert parameters(source) == {"base": {"seed": 7, "profile": "tiny"}}  # only declared ones
    assert sync_parameters(source, params) is False
    params.write_text("other: {x: 1}\n")
    with pytest.raises(InputError, match=r"section\(s\) \['base'\]"):
        sync_parameters(source, params)
