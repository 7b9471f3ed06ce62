"""Pipeline wiring: notebooks run their stage with its params.yaml sections, their knobs agree
with params.yaml; clean notebooks."""

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
    stage_config,
    sync_parameters,
)
from darkguard.stage_deps import notebook_stage, stage_params

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
    assert not stage.get("frozen"), f"{name}: `dvc repro` must rerun every stage of the paper"


def knobs(notebook: str) -> dict:
    return parameters_cell(notebook).get("knobs", {})


def lookup(key: str):
    node = PARAMS
    for part in key.split("."):
        node = node[part]
    return node


@pytest.mark.parametrize("name", sorted(STAGES))
def test_notebook_runs_its_stage_with_its_sections(name: str) -> None:
    """The notebook imports the stage's module (`darkguard notebook run` injects the sections of
    its `PARAMS`), and its knobs are keys the stage reads."""
    notebook = paths.NOTEBOOKS / stage_notebook(STAGES[name])
    assert notebook_stage(notebook) == name
    params = stage_params(name)
    for key in knobs(notebook.name):
        assert any(key == k or key.startswith(k + ".") for k in params), f"{name}: {key}"


@pytest.mark.parametrize("notebook", sorted(p.name for p in paths.NOTEBOOKS.glob("*.ipynb")))
def test_parameters_cell_holds_a_few_knobs_at_params_yaml_values(notebook: str) -> None:
    """What a reader would change, at params.yaml's values (`darkguard notebook sync-params`);
    the stage's whole sections are injected when it runs."""
    nb = nbformat.read(paths.NOTEBOOKS / notebook, as_version=4)
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    assert len(cell.source.splitlines()) <= 15, notebook
    assert set(parameters_cell(notebook)) == {"knobs"}
    for key, value in knobs(notebook).items():
        assert value == lookup(key), f"{notebook}: knob '{key}' drifted from params.yaml"


@pytest.mark.parametrize("name", sorted(STAGES))
def test_notebook_builds_its_config_from_its_stage_params(name: str) -> None:
    """One `stage_config(<stage>.PARAMS, knobs, globals())`: the injected sections, or
    params.yaml's with the knobs on top."""
    import ast

    notebook = nbformat.read(paths.NOTEBOOKS / stage_notebook(STAGES[name]), as_version=4)
    calls = [
        node
        for cell in notebook.cells
        if cell.cell_type == "code"
        for node in ast.walk(ast.parse(cell.source))
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "stage_config"
    ]
    assert len(calls) == 1, f"{name}: one stage_config call expected"
    keys, given, namespace = (ast.unparse(a) for a in calls[0].args)
    assert keys.endswith(".PARAMS") and (given, namespace) == ("knobs", "globals()")


@pytest.mark.parametrize("notebook", sorted(p.name for p in paths.NOTEBOOKS.glob("*.ipynb")))
def test_executed_copy_carries_the_notebooks_cells(notebook: str) -> None:
    """reports/executed/ holds the notebook's own text and code, plus the injected parameters."""
    source = nbformat.read(paths.NOTEBOOKS / notebook, as_version=4)
    executed = nbformat.read(paths.ROOT / "reports" / "executed" / notebook, as_version=4)
    cells = [c for c in executed.cells if "injected-parameters" not in c.metadata.get("tags", [])]
    assert [(c.cell_type, c.source) for c in cells] == [
        (c.cell_type, c.source) for c in source.cells
    ]


def test_stage_config_takes_injected_sections_else_params_yaml_and_knobs(tmp_path) -> None:
    keys = ("base.profile", "base.seed", "data.n_null")
    cfg = stage_config(keys, {"base.seed": 7, "data.n_null": 2})  # a notebook opened by hand
    assert (cfg.base.seed, cfg.data.n_null, cfg.sections) == (7, 2, ("base", "data"))
    injected = {"base": {**PARAMS["base"], "seed": 3}, "unrelated": 1}
    cfg = stage_config(keys, {"base.seed": 7, "data.n_null": 2}, injected)
    assert (cfg.base.seed, cfg.data.n_null) == (3, 2)  # an injected section wins over knobs
    with pytest.raises(InputError, match=r"knob 'stage1\.reward\.eps': not a key of the stage"):
        stage_config(keys, {"stage1.reward.eps": 0.1})
    with pytest.raises(InputError, match=r"knob 'data\.n_nul': no such key"):
        stage_config(keys, {"data.n_nul": 2})


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


def test_run_notebook_injects_the_sections_of_its_stage(tmp_path) -> None:
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("knobs = {}", metadata={"tags": ["parameters"]}),
            nbformat.v4.new_code_cell(
                "from darkguard.stages import report as report_stage\n"
                'print(base["seed"], "data" in dir())'
            ),
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
    assert executed.cells[1].source == '# Parameters\nbase = {"profile": "tiny", "seed": 7}\n'
    assert executed.cells[-1].outputs[0]["text"] == "7 False\n"  # the report reads base only
    assert "papermill" not in executed.metadata
    assert [c["id"] for c in executed.cells] == ["cell-000", "cell-001", "cell-002"]
    params.write_text(yaml.safe_dump({k: v for k, v in PARAMS.items() if k != "base"}))
    with pytest.raises(InputError, match=r"params\.yaml: base: missing section"):
        run_notebook(source, tmp_path / "out" / "nb.ipynb", params)


def test_sync_parameters_sets_the_knobs_to_params_yaml_keeping_comments(tmp_path) -> None:
    cell = '# what to try\nknobs = {\n    "base.seed": 0,  # the seed\n    "x.name": "a",\n}'
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(cell, metadata={"tags": ["parameters"]})]
    )
    source = tmp_path / "nb.ipynb"
    nbformat.write(nb, source)
    params = tmp_path / "params.yaml"
    params.write_text("base: {seed: 7, profile: tiny}\nx: {name: it's}\n")
    assert sync_parameters(source, params) is True
    assert parameters(source) == {"knobs": {"base.seed": 7, "x.name": "it's"}}
    written = nbformat.read(source, as_version=4).cells[0].source
    assert written == cell.replace("0,", "7,").replace('"a"', '"it\'s"')
    assert sync_parameters(source, params) is False
    params.write_text("base: {profile: tiny}\nx: {name: a}\n")
    with pytest.raises(InputError, match=r"knob 'base\.seed': no such key"):
        sync_parameters(source, params)
