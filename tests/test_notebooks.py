"""nbval: re-executing each executed notebook reproduces its outputs.

Outputs go to temporary folders (DARKGUARD_DATA / DARKGUARD_REPORTS), so tests never overwrite
pipeline outputs. The built data and reports are copied there first, so builds resume instead
of restarting, and trained models are reused (`DARKGUARD_REUSE_TRAINED=1`): the notebooks redo
their evaluations and reports from them. That the training itself reproduces is what CI's table
check covers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from darkguard import paths

pytestmark = [pytest.mark.browser, pytest.mark.slow]
EXECUTED = sorted((paths.ROOT / "reports" / "executed").glob("*.ipynb"))


@pytest.mark.parametrize("notebook", EXECUTED, ids=[p.name for p in EXECUTED])
def test_executed_notebook_reproduces(notebook, tmp_path) -> None:
    data, reports = tmp_path / "data", tmp_path / "reports"
    built_dirs = ("ruc", "models", "agents", "stage1", "stage2", "guard", "ablations", "arena",
                  "arena_synth")  # fmt: skip
    for built in built_dirs:
        if (paths.ROOT / "data" / built).is_dir():
            shutil.copytree(paths.ROOT / "data" / built, data / built)
    # The report stage reads the other stages' reports; each notebook rewrites its own outputs.
    for made in ("tables", "figures", "metrics", "plots", "experience", "timings"):
        if (paths.ROOT / "reports" / made).is_dir():
            shutil.copytree(paths.ROOT / "reports" / made, reports / made)
    env = {
        **os.environ,
        "DARKGUARD_DATA": str(data),
        "DARKGUARD_REPORTS": str(reports),
        "DARKGUARD_REUSE_TRAINED": "1",
    }
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--nbval",
            str(notebook),
            "-q",
            "-p",
            "no:cacheprovider",
            "--nbval-cell-timeout=1200",
            "--rootdir",
            str(tmp_path),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
