"""JupyterLab: the notebooks and their outputs render in a browser (as `make lab` serves them)."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from darkguard import paths
from darkguard.browser import RequestGuard, launch

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}


VISIBLE_NOTEBOOK = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    home = tmp_path_factory.mktemp("lab")
    for name, value in SETTINGS.items():
        path = home / "settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    root = home / "root"  # copies, so that the lab never writes into the repository
    for folder in ("notebooks", "reports/executed"):
        shutil.copytree(paths.ROOT / folder, root / folder)
    token, port = secrets.token_hex(16), free_port()
    env = {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={port}",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            *(["--allow-root"] if os.geteuid() == 0 else []),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(home / "lab.log").open("w"),
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            if proc.poll() is not None:
                break
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("JupyterLab did not start: " + (home / "lab.log").read_text()[-2000:])
        yield base, token
    finally:
        proc.terminate()  # JupyterLab shuts its kernels down first; on a loaded machine
        try:  # that can outlast the grace period, after which it is killed
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


def open_notebook(lab, relative: Path):
    base, token = lab
    pw = sync_playwright().start()
    browser = launch(pw)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    guard = RequestGuard()
    page.route("**/*", guard)
    # A fresh workspace per test, so that no tab of an earlier test is restored.
    workspace = secrets.token_hex(4)
    page.goto(f"{base}/lab/workspaces/{workspace}/tree/{relative.as_posix()}?reset&token={token}")
    page.wait_for_selector(f"{VISIBLE_NOTEBOOK} .jp-Cell", timeout=60_000)
    return pw, browser, page, guard


def test_source_notebook_renders(lab) -> None:
    pw, browser, page, guard = open_notebook(lab, Path("notebooks/01_build_ruc.ipynb"))
    try:
        page.wait_for_selector(f"{VISIBLE_NOTEBOOK} .jp-MarkdownOutput h1", timeout=30_000)
        heading = page.inner_text(f"{VISIBLE_NOTEBOOK} .jp-MarkdownOutput h1")
        assert "Build the RUC benchmark" in heading
        assert page.locator(f"{VISIBLE_NOTEBOOK} .jp-CodeCell").count() >= 5
        assert guard.blocked == []
    finally:
        browser.close()
        pw.stop()


def test_executed_notebook_outputs_render(lab) -> None:
    executed = Path("reports/executed/01_build_ruc.ipynb")
    assert (paths.ROOT / executed).is_file(), "run `make repro` first"
    pw, browser, page, guard = open_notebook(lab, executed)
    try:
        page.wait_for_selector(f"{VISIBLE_NOTEBOOK} .jp-OutputArea-output img", timeout=30_000)
        outputs = page.locator(f"{VISIBLE_NOTEBOOK} .jp-OutputArea")
        for text in ("1407 records in data/ruc; valid: True", "ruc/split", "637", "348"):
            # Markdown outputs render asynchronously: expect() retries until they appear.
            expect(outputs.filter(has_text=text).first).to_be_visible(timeout=30_000)
        image = page.locator(f"{VISIBLE_NOTEBOOK} .jp-OutputArea-output img").first
        assert image.evaluate("img => img.naturalWidth") > 500
        assert guard.blocked == []
    finally:
        browser.close()
        pw.stop()
