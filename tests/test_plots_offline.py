"""`dvc plots show` renders offline: the page loads the chart libraries installed from npm, never
a CDN, and the charts draw in headless Chromium with every non-local request blocked."""

from __future__ import annotations

import functools
import http.server
import re
import shutil
import subprocess
import threading

import pytest

from darkguard import paths
from darkguard.browser import RequestGuard, launch

pytestmark = [pytest.mark.browser]
NODE_MODULES = paths.ROOT / "node_modules"


@pytest.fixture
def rendered(tmp_path):
    if not (NODE_MODULES / "vega-embed").is_dir():
        pytest.fail("node_modules/ is missing: run `make setup` (it runs `npm ci`)")
    out = tmp_path / "dvc_plots"
    dvc = shutil.which("dvc") or str(paths.ROOT / ".venv" / "bin" / "dvc")
    subprocess.run([dvc, "plots", "show", "-o", str(out)], cwd=paths.ROOT, check=True)
    (tmp_path / "node_modules").symlink_to(NODE_MODULES)
    return out / "index.html"


def test_plots_page_uses_local_chart_libraries(rendered) -> None:
    html = rendered.read_text()
    sources = re.findall(r'<script src="([^"]+)"', html)
    assert len(sources) == 3 and not any(s.startswith(("http:", "https:", "//")) for s in sources)
    for src in sources:
        assert (rendered.parent / src).resolve().is_file(), src
    assert "cdn.jsdelivr" not in html


def test_plots_draw_in_chromium_without_network(rendered) -> None:
    from playwright.sync_api import sync_playwright

    handler = functools.partial(
        http.server.SimpleHTTPRequestHandler, directory=str(rendered.parent.parent)
    )
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            page = browser.new_page()
            guard = RequestGuard()
            page.route("**/*", guard)
            page.goto(f"http://127.0.0.1:{server.server_port}/dvc_plots/index.html")
            page.wait_for_selector("svg.marks, canvas.marks", timeout=30_000)
            charts = page.locator("svg.marks, canvas.marks").count()
            browser.close()
    finally:
        server.shutdown()
    assert charts >= 2  # stage 1 reward and entropy at least
    assert guard.blocked == []
