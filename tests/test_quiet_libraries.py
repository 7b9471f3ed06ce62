"""A notebook's quiet libraries stay quiet in the processes it starts (their stderr would land in
the executed notebook's outputs)."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

from darkguard.notebook import quiet_libraries


def test_processes_started_after_quiet_libraries_hide_future_warnings(monkeypatch) -> None:
    for name in ("HF_HUB_DISABLE_PROGRESS_BARS", "TQDM_DISABLE", "TRANSFORMERS_VERBOSITY"):
        monkeypatch.setenv(name, "")  # restored after the test, like PYTHONWARNINGS
    monkeypatch.setenv("PYTHONWARNINGS", "default::DeprecationWarning")
    with warnings.catch_warnings():
        quiet_libraries()
        quiet_libraries()  # twice: the filter is not repeated

    assert os.environ["PYTHONWARNINGS"] == "default::DeprecationWarning,ignore::FutureWarning"
    child = subprocess.run(
        [sys.executable, "-c", "import warnings; warnings.warn('old', FutureWarning); print('ok')"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert child.stdout == "ok\n" and child.stderr == ""
