"""Work functions of the pool tests (module level: worker processes and Ray actors unpickle
them)."""

from __future__ import annotations

import os
import time
from pathlib import Path


class Counter:
    """A worker's state: its process id; `close()` leaves a mark in `marks` when given."""

    def __init__(self, marks: str | None = None) -> None:
        self.pid, self.marks, self.units = os.getpid(), marks, 0

    def close(self) -> None:
        if self.marks:
            (Path(self.marks) / f"closed-{self.pid}").write_text(str(self.units))


def square(state: Counter, unit: int) -> tuple[int, int]:
    """The unit squared, and the process that computed it (after a short wait, so that both
    workers get units)."""
    state.units += 1
    time.sleep(0.05)
    return unit * unit, state.pid


def fail_on_three(state: Counter, unit: int) -> int:
    if unit == 3:
        raise ValueError("unit three is bad")
    return unit


def die_on_three(state: Counter, unit: int) -> int:
    if unit == 3:
        os._exit(9)  # the worker process dies without a word
    time.sleep(0.2)
    return unit


def bulky_die_on_three(state: Counter, unit: int) -> bytes:
    """Four megabytes per unit, and unit 3 kills its worker at once: the worker dies while its
    previous result may still be on its way to the caller."""
    if unit == 3:
        os._exit(9)
    return bytes([unit]) * (4 << 20)
