"""A deadline outside the page: the browser's process is ended when a call into it outlives its
step timeout by a grace period.

Playwright's own timeouts run in its driver. Under load a renderer can stall so that a wait with a
1.5 s timeout returns only when the page's server answers (60 s later), and `evaluate` or a mouse
click take no timeout at all. The watchdog is a timer thread that touches no Playwright object: at
the deadline it kills the browser process, every pending call into it then fails at once, and the
environment reports the step as timed out and replaces the browser before the next episode."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator

GRACE_S = 5.0  # at least this long past the step timeout; a step's own timeouts fire first


def browser_pid(browser_cdp) -> int:
    """The browser process's id, from its DevTools session (`SystemInfo.getProcessInfo`)."""
    info = browser_cdp.send("SystemInfo.getProcessInfo")["processInfo"]
    return next(int(p["id"]) for p in info if p["type"] == "browser")


class Watchdog:
    """Kills process `pid` when a `bounded` block outlives `seconds`; `fired` says it did."""

    def __init__(self, pid: int) -> None:
        self.pid: int | None = pid
        self.fired = False

    def retire(self) -> None:
        """The browser was replaced: a deadline still armed kills nothing."""
        self.pid = None

    def _fire(self) -> None:
        pid = self.pid
        if pid is None:
            return
        self.fired = True
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)

    @contextlib.contextmanager
    def bounded(self, seconds: float) -> Iterator[None]:
        """Run the block with the deadline armed; it is disarmed when the block ends."""
        timer = threading.Timer(seconds, self._fire)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()


def deadline_s(step_timeout_s: float) -> float:
    """When a call with a step timeout of `step_timeout_s` counts as hung: twice the timeout, and
    at least `GRACE_S` past it."""
    return step_timeout_s + max(GRACE_S, step_timeout_s)
