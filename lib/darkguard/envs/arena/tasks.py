"""Arena tasks are data: YAML task files, for our apps and for a user's own site.

```yaml
site: site/                # folder served statically on 127.0.0.1, relative to this file
# or: app: shop            # a built-in arena app
max_steps: 30              # optional default of the file's tasks
tasks:
  - id: rail-1             # unique in the file (and in a set of files)
    goal: "Book one adult seat on the 09:40 train from Lyon to Paris."
    start: /index.html     # path and query on the site (an app's conditions: ?dp=a_b)
    max_steps: 20          # optional; default from the file, else from params
    patterns: [sneaking]   # labels for reports only; never shown to agents or defenses
    success: PREDICATE     # T = 1 when it holds for the episode
    deception: PREDICATE   # D = 1 when it holds (absent: never)
```

Every error names the file, the task and the field (`TaskFileError`). A built-in set is a folder
under `tasksets/` (`trickyarena_single`, `trickyarena_multi`, `webdecept`); `webdecept_feasible`
is WebDecept without the redirect and drift scenarios.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import yaml

from darkguard.envs.arena.predicates import Predicate, PredicateError, parse

TASKSETS = Path(__file__).parent / "tasksets"
# The paper's configuration counts (Veer §4.1): every built-in set must have exactly this size.
EXPECTED_SIZES = {
    "trickyarena_single": 88,
    "trickyarena_multi": 68,
    "webdecept": 315,
    "webdecept_feasible": 225,
    "held_out": 12,  # sites written without the defenses' rules (generalization; not a paper set)
}
INFEASIBLE_PATTERNS = frozenset({"redirect", "drift"})  # WebDecept: success requires deception
TASK_FIELDS = {"id", "goal", "start", "max_steps", "patterns", "success", "deception"}
FILE_FIELDS = {"site", "app", "max_steps", "tasks"}


class TaskFileError(ValueError):
    """A bad task file; the message names the file, the task and the field."""

    def __init__(self, file: Path | str, task: str | None, field_: str, message: str) -> None:
        where = f"{file}" + (f": task {task!r}" if task else "") + f": field {field_!r}"
        super().__init__(f"{where}: {message}")
        self.file, self.task, self.field, self.message = str(file), task, field_, message


@dataclass(frozen=True)
class Task:
    id: str
    goal: str
    start: str
    max_steps: int
    patterns: tuple[str, ...]
    success: Predicate
    deception: Predicate | None
    file: str  # the task file it came from
    app: str | None = None  # a built-in app, or
    site: Path | None = None  # a static site folder

    @property
    def conditions(self) -> tuple[str, ...]:
        """The app conditions switched on by the start URL (`?dp=a_b`); for the server only."""
        values = parse_qs(urlsplit(self.start).query).get("dp", [])
        return tuple(c for v in values for c in v.split("_") if c)


@dataclass
class TaskSet:
    name: str
    tasks: list[Task] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.tasks)


def _known_conditions(app: str) -> frozenset[str] | None:
    from darkguard.envs.arena.apps import registry

    found = registry().get(app)
    return None if found is None else found.conditions


def _task(raw: Any, index: int, path: Path, base: dict, default_steps: int) -> Task:
    if not isinstance(raw, dict):
        raise TaskFileError(path, f"#{index}", "tasks", "each task must be a mapping")
    tid = raw.get("id")
    if not isinstance(tid, str | int) or not str(tid).strip():
        raise TaskFileError(path, f"#{index}", "id", "is missing (a unique name per task)")
    tid = str(tid)
    unknown = set(raw) - TASK_FIELDS
    if unknown:
        raise TaskFileError(path, tid, sorted(unknown)[0], "is not a known task field")
    goal = raw.get("goal")
    if not isinstance(goal, str) or not goal.strip():
        raise TaskFileError(path, tid, "goal", "is missing (the user's task, in words)")
    start = raw.get("start", "/")
    if not isinstance(start, str) or not start.startswith("/"):
        raise TaskFileError(path, tid, "start", "must be a path on the site, starting with '/'")
    steps = raw.get("max_steps", default_steps)
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
        raise TaskFileError(path, tid, "max_steps", "must be a positive integer")
    patterns = raw.get("patterns", [])
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise TaskFileError(path, tid, "patterns", "must be a list of labels")
    if "success" not in raw:
        raise TaskFileError(path, tid, "success", "is missing (the predicate for T)")
    try:
        success = parse(raw["success"], "success")
        deception = parse(raw["deception"], "deception") if raw.get("deception") else None
    except PredicateError as err:
        raise TaskFileError(path, tid, err.where, err.message) from None
    task = Task(
        tid, goal.strip(), start, steps, tuple(patterns), success, deception, str(path), **base
    )
    if task.app is not None:
        known = _known_conditions(task.app) or frozenset()
        bad = [c for c in task.conditions if c not in known]
        if bad:
            raise TaskFileError(
                path,
                tid,
                "start",
                f"condition {bad[0]!r} is not one of app {task.app!r}: {', '.join(sorted(known))}",
            )
    return task


def load_task_file(path: Path | str, default_steps: int = 30) -> list[Task]:
    """The tasks of one YAML file, validated."""
    path = Path(path)
    if not path.is_file():
        raise TaskFileError(path, None, "file", "does not exist")
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        raise TaskFileError(path, None, "file", f"is not valid YAML: {err}") from None
    if not isinstance(doc, dict):
        raise TaskFileError(path, None, "file", "must be a mapping with site|app and tasks")
    unknown = set(doc) - FILE_FIELDS
    if unknown:
        raise TaskFileError(path, None, sorted(unknown)[0], "is not a known file field")
    if ("site" in doc) == ("app" in doc):
        raise TaskFileError(path, None, "site", "give exactly one of site (a folder) or app")
    if "site" in doc:
        site = (path.parent / str(doc["site"])).resolve()
        if not site.is_dir():
            raise TaskFileError(path, None, "site", f"folder {site} does not exist")
        base: dict = {"site": site}
    else:
        app = str(doc["app"])
        if _known_conditions(app) is None:
            from darkguard.envs.arena.apps import registry

            known = ", ".join(sorted(registry()))
            raise TaskFileError(path, None, "app", f"unknown app {app!r}; known: {known}")
        base = {"app": app}
    steps = doc.get("max_steps", default_steps)
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
        raise TaskFileError(path, None, "max_steps", "must be a positive integer")
    raw_tasks = doc.get("tasks")
    if not isinstance(raw_tasks, list) or not raw_tasks:
        raise TaskFileError(path, None, "tasks", "must be a non-empty list")
    tasks, seen = [], set()
    for i, raw in enumerate(raw_tasks):
        task = _task(raw, i, path, base, steps)
        if task.id in seen:
            raise TaskFileError(path, task.id, "id", "is used twice in this file")
        seen.add(task.id)
        tasks.append(task)
    return tasks


def builtin_sets() -> list[str]:
    return sorted(EXPECTED_SIZES)


def load_tasks(spec: Path | str, default_steps: int = 30) -> TaskSet:
    """A task file, a folder of task files (`*.yaml`, sorted), or a built-in set's name."""
    name = str(spec)
    feasible = name == "webdecept_feasible"
    folder = TASKSETS / ("webdecept" if feasible else name)
    path = folder if name in EXPECTED_SIZES else Path(spec)
    files = sorted(path.glob("*.yaml")) if path.is_dir() else [path]
    if path.is_dir() and not files:
        raise TaskFileError(path, None, "file", "holds no *.yaml task files")
    if not path.exists():
        sets = ", ".join(builtin_sets())
        raise TaskFileError(
            path, None, "file", f"is neither a task file, a folder nor one of {sets}"
        )
    tasks: list[Task] = []
    owner: dict[str, str] = {}
    for file in files:
        for task in load_task_file(file, default_steps):
            if task.id in owner:
                raise TaskFileError(file, task.id, "id", f"is also used in {owner[task.id]}")
            owner[task.id] = str(file)
            tasks.append(task)
    if feasible:
        tasks = [t for t in tasks if not INFEASIBLE_PATTERNS & set(t.patterns)]
    return TaskSet(path.name if not feasible else name, tasks)
