"""The built-in arena apps, one package each (`news`, `shop`, `music`, `health`, `store`).

A package exposes `APP = ArenaApp(...)`: a Flask blueprint mounted at `/<name>`, the conditions it
can switch on (the `?dp=a_b` of a task's start URL, as TrickyArena does) and a factory of the
per-episode state. Pages extend `layout.html`, which carries the scratchpad every page has. A
package may add a `partner` blueprint, served on a second origin (WebDecept's redirect scenario).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from flask import Blueprint


@dataclass(frozen=True)
class ArenaApp:
    name: str
    blueprint: Blueprint
    conditions: frozenset[str]
    new_state: Callable[[frozenset[str]], Any]  # conditions -> a fresh state of one episode
    title: str = ""
    partner: Blueprint | None = None  # served on the second origin


@cache
def registry() -> dict[str, ArenaApp]:
    """Every app package under this folder, by name."""
    apps: dict[str, ArenaApp] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        app = getattr(module, "APP", None)
        if isinstance(app, ArenaApp):
            apps[app.name] = app
    return apps
