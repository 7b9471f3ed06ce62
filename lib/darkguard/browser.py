"""Chromium via Playwright, offline: the system Chromium, loopback only, other requests blocked."""

from __future__ import annotations

import os
import shutil
from urllib.parse import urlparse

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--font-render-hinting=none",
]
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}


def chromium_path() -> str | None:
    """The browser binary: `$DARKGUARD_CHROMIUM`, else the Debian package, else Playwright's own."""
    for candidate in (
        os.environ.get("DARKGUARD_CHROMIUM"),
        "/usr/bin/chromium",
        shutil.which("chromium"),
    ):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


def launch(playwright):
    """Launch Chromium with the offline flags."""
    return playwright.chromium.launch(
        executable_path=chromium_path(), headless=True, args=CHROMIUM_FLAGS
    )


class RequestGuard:
    """Route handler: lets loopback and inline (data:/about:) requests through, blocks and counts
    every other request."""

    def __init__(self) -> None:
        self.blocked: list[str] = []

    def __call__(self, route) -> None:
        url = route.request.url
        parsed = urlparse(url)
        if parsed.scheme in ("data", "about", "blob") or parsed.hostname in LOCAL_HOSTS:
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()


def off_event_loop(fn, *args, **kwargs):
    """Call `fn` in a fresh thread and return its result (or raise its error): Playwright's sync
    API refuses a thread whose asyncio loop runs, as a notebook kernel's does."""
    import threading

    box: dict = {}

    def run() -> None:
        try:
            box["result"] = fn(*args, **kwargs)
        except BaseException as err:  # handed to the caller
            box["error"] = err

    thread = threading.Thread(target=run, name="darkguard-browser")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box.get("result")
