"""Agents and defenses see only observations: every module of `darkguard.agents` and
`darkguard.defenses` (found by walking them, no hand list) stays clear of the environments'
answer key by import (the forbidden modules of pyproject's import-linter contracts: RUC's schema
and environment, the metrics, the loop, the training side, the arena's task files, predicates,
server, apps and environment) and by name, and in an episode they receive only screenshots, task
texts, rejected clicks, observations and clicks.

The training side (`darkguard.training`: DUDE's rewards, Stage 1, Stage 2, warm-ups, summarizers,
the evaluator's labelled-click runs; the agent's warm-up rows) legitimately reads labelled data;
the contracts keep every runtime path from importing it.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import tomllib
from pathlib import Path

import pytest
from PIL import Image

import darkguard
from darkguard.agents import Rejection, Stateless
from darkguard.defenses import Reviewer, Verdict
from darkguard.defenses.dude.evaluator import Evaluator
from darkguard.defenses.dude.gate import DudeGate
from darkguard.envs import Observation
from darkguard.loop.episode import EpisodeBrowser
from darkguard.loop.ruc import run_episodes
from darkguard.models.parsing import Click
from darkguard.ruc import schema
from darkguard.stages.guard_eval.setups import ruc_task_opener

LIB = Path(darkguard.__file__).parent
RUNTIME = sorted(
    str(p.relative_to(LIB))
    for folder in ("agents", "defenses")
    for p in (LIB / folder).rglob("*.py")
)


def contract_forbidden(source: str) -> tuple[str, ...]:
    """The modules pyproject's import-linter contract forbids `source` (the one list)."""
    config = tomllib.loads((LIB.parents[1] / "pyproject.toml").read_text())
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract["type"] == "forbidden" and contract["source_modules"] == [source]:
            return tuple(contract["forbidden_modules"])
    raise AssertionError(f"pyproject.toml: no forbidden-imports contract for {source}")


FORBIDDEN_MODULES = contract_forbidden("darkguard.agents")
ANSWER_KEY = {
    "correct_box",
    "dark_box",
    "bbox",
    "click_label",
    "grade",
    "correct_bbox",
    "dark_bbox",
    "deception",
    "selectors_of",
    "Watched",
    "EpisodeFacts",
    "conditions",
}


def module_name(path: Path) -> str:
    parts = path.relative_to(LIB.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_file(name: str) -> Path | None:
    """The source file of a `darkguard` module (None: not a module of the package)."""
    base = LIB.parent.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported_modules(tree: ast.AST, package: str) -> set[str]:
    """Every `darkguard` module an AST imports (at any depth, relative imports resolved),
    `from X import name` counted as X.name when that is a module."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            found.add(origin)
            for alias in node.names:
                if module_file(f"{origin}.{alias.name}") is not None:
                    found.add(f"{origin}.{alias.name}")
    darkguard_modules = {m for m in found if m == "darkguard" or m.startswith("darkguard.")}
    # importing a module runs its packages' __init__ too
    with_parents = set()
    for m in darkguard_modules:
        parts = m.split(".")
        with_parents |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    return with_parents


def forbidden(module: str) -> bool:
    return any(module == f or module.startswith(f + ".") for f in FORBIDDEN_MODULES)


def answer_key_reads(tree: ast.AST) -> list[str]:
    """Answer-key names read as attributes, names, imported names or string keys."""
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ANSWER_KEY:
            hits.append(f"line {node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Name) and node.id in ANSWER_KEY:
            hits.append(f"line {node.lineno}: {node.id}")
        elif isinstance(node, ast.alias) and node.name in ANSWER_KEY:
            hits.append(f"import of {node.name}")
        elif isinstance(node, ast.Constant) and node.value in ANSWER_KEY:
            hits.append(f"line {node.lineno}: {node.value!r}")
    return hits


def parsed(relative: str) -> tuple[ast.AST, str]:
    path = LIB / relative
    package = module_name(path) if path.name == "__init__.py" else module_name(path.parent)
    return ast.parse(path.read_text(), filename=str(path)), package


def test_both_contracts_keep_the_same_answer_key_out() -> None:
    """Agents and defenses are held to one list, and it names both benchmarks' answer keys and
    the training side."""
    assert contract_forbidden("darkguard.defenses") == FORBIDDEN_MODULES
    for key in ("darkguard.ruc.schema", "darkguard.training", "darkguard.envs.arena.tasks"):
        assert key in FORBIDDEN_MODULES
    assert "defenses/dude/gate.py" in RUNTIME and "defenses/dude/evaluator.py" in RUNTIME


@pytest.mark.parametrize("relative", RUNTIME)
def test_runtime_modules_import_no_answer_key(relative: str) -> None:
    tree, package = parsed(relative)
    assert sorted(m for m in imported_modules(tree, package) if forbidden(m)) == []


@pytest.mark.parametrize("relative", RUNTIME)
def test_runtime_modules_read_no_answer_key(relative: str) -> None:
    tree, _ = parsed(relative)
    assert answer_key_reads(tree) == []


def test_runtime_modules_reach_no_answer_key_through_their_imports() -> None:
    """Following every `darkguard` import from every module of `agents` and `defenses` (the
    DUDE gate's evaluator included: its labelled-click runs live in `training`) reaches no
    forbidden module (the same rule `lint-imports` checks, read independently here)."""
    seen: set[str] = set()
    todo = [module_name(LIB / r) for r in RUNTIME]
    reached = {}
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        file = module_file(name)
        if file is None:
            continue
        package = name if file.name == "__init__.py" else name.rpartition(".")[0]
        for imported in imported_modules(ast.parse(file.read_text()), package):
            reached.setdefault(imported, name)
            todo.append(imported)
    assert {m: reached[m] for m in reached if forbidden(m)} == {}
    assert "darkguard.defenses.dude.evaluator" in seen


def test_the_scan_finds_what_it_looks_for() -> None:
    """The scanners on code that does read the answer key."""
    tree = ast.parse(
        "from darkguard.ruc import schema\n"
        "from darkguard import loop\n"
        "from ..metrics.clicks import Episode\n"
        "import darkguard.envs.ruc_static\n"
        "def f(record, env, click):\n"
        "    return record['correct_box'], env.grade(click), record.get('bbox')\n"
    )
    modules = imported_modules(tree, "darkguard.agents")
    assert sorted(m for m in modules if forbidden(m)) == [
        "darkguard.envs.ruc_static",
        "darkguard.loop",
        "darkguard.metrics",
        "darkguard.metrics.clicks",
        "darkguard.ruc.schema",
    ]
    assert len(answer_key_reads(tree)) == 3


# --- at run time ------------------------------------------------------------------------------

ALLOWED_LEAVES = (Image.Image, str, int, float, bool, type(None))


def leaves(value, where: str = "") -> list[tuple[str, object]]:
    """Every leaf of a received argument, descending into lists, tuples and the dataclasses an
    agent or a defense may receive; anything else (a dict, a record, an unknown object) is a
    leaf of its own and fails the check."""
    if isinstance(value, list | tuple):
        return [leaf for i, v in enumerate(value) for leaf in leaves(v, f"{where}[{i}]")]
    if isinstance(value, Observation | Click | Rejection):
        return [
            leaf
            for f in dataclasses.fields(value)
            for leaf in leaves(getattr(value, f.name), f"{where}.{f.name}")
        ]
    if isinstance(value, EpisodeBrowser):  # the defense's handle: look and act, nothing else
        public = {n for n in vars(value) if not n.startswith("_")}
        assert public <= {"actions_left", "log", "current"}, public
        return leaves([value.actions_left, value.log, value.current], f"{where}.browser")
    return [(where, value)]


class SpyAgent(Stateless):
    """Records every call; clicks a null corner first, then the page's centre."""

    name = "spy"

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def act(self, obs, rejected=(), *extra, **named):
        self.calls.append((obs, rejected, extra, named))
        image = obs.image
        return Click(1.0, 1.0) if not rejected else Click(image.width / 2, image.height / 2)


class SpyBatchAgent(SpyAgent):
    def act_many(self, requests, *extra, **named):
        self.calls.append(("many", requests, extra, named))
        return [(SpyAgent.act(self, *request), 0) for request in requests]


class SpyDefense(Reviewer):
    """Records every call; rejects a click near the corner, allows any other."""

    name = "spy"

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def review_many(self, proposals, *extra, **named):
        self.calls.append((proposals, extra, named))
        return [
            Verdict("release" if c.x > 10 else "replan", label=1 if c.x > 10 else 0)
            for _, c, _ in proposals
        ]


@pytest.mark.parametrize("agent_class", [SpyAgent, SpyBatchAgent])
def test_agents_and_defenses_receive_only_observations(release, agent_class) -> None:
    records = json.loads((release / "full.json").read_text())
    agent, defense = agent_class(), SpyDefense()
    opener = ruc_task_opener(release)
    episodes = run_episodes(agent, defense, [opener(r) for r in records])
    assert len(episodes) == len(records) and all(len(e.steps) >= 2 for e in episodes)

    tasks = {schema.task_text(r) for r in records}
    singles = [c for c in agent.calls if c[0] != "many"]
    assert len(singles) >= 2 * len(records)
    for obs, rejected, extra, named in singles:
        assert type(obs) is Observation and obs.task in tasks
        assert isinstance(obs.image, Image.Image) and obs.image.mode == "RGB"
        assert [f.name for f in dataclasses.fields(obs)] == ["image", "task", "done"]
        assert isinstance(rejected, list) and all(type(r) is Rejection for r in rejected)
        assert all(type(r.action) is Click for r in rejected)
        assert extra == () and named == {}
    for call in agent.calls:
        if call[0] == "many":
            _, requests, extra, named = call
            assert extra == () and named == {} and isinstance(requests, list)
            assert all(type(r) is tuple and len(r) == 2 for r in requests)

    assert defense.calls
    for proposals, extra, named in defense.calls:
        assert extra == () and named == {} and isinstance(proposals, list)
        for proposal in proposals:
            assert type(proposal) is tuple and len(proposal) == 3
            observation, click, browser = proposal
            assert type(observation) is Observation and type(click) is Click
            assert type(browser) is EpisodeBrowser
            assert isinstance(observation.image, Image.Image) and observation.task in tasks
            assert [f.name for f in dataclasses.fields(observation)] == ["image", "task", "done"]
            assert [f.name for f in dataclasses.fields(click)] == ["x", "y"]

    received = leaves([c[:2] for c in singles]) + leaves([c[0] for c in defense.calls])
    wrong = [
        (where, type(v).__name__) for where, v in received if not isinstance(v, ALLOWED_LEAVES)
    ]
    assert wrong == []
    # a screenshot carries no answer key in its metadata either
    images = [v for _, v in received if isinstance(v, Image.Image)]
    assert images and not any(name in str(im.info) for im in images for name in ANSWER_KEY)


class SpyBackend:
    """An evaluator backend that records what it is sent; judges every click benign."""

    max_pixels = 128 * 128

    def __init__(self) -> None:
        self.seen: list = []

    def generate(self, conversations, max_new_tokens=None):
        self.seen += conversations
        return ["<judge>1</judge> <conf>0.9</conf>"] * len(conversations)


def test_the_dude_gate_sends_its_model_only_the_observation_and_the_click(release) -> None:
    records = json.loads((release / "full.json").read_text())
    backend = SpyBackend()
    gate = DudeGate(Evaluator(backend), "- judge such clicks 1.")
    opener = ruc_task_opener(release)
    episodes = run_episodes(SpyAgent(), gate, [opener(r) for r in records])
    assert len(backend.seen) == sum(len(e.steps) for e in episodes) >= len(records)

    def parts(value):
        if isinstance(value, list | tuple):
            return [p for v in value for p in parts(v)]
        if isinstance(value, dict):
            assert set(value) <= {"role", "content", "type", "text", "image"}, set(value)
            return [p for v in value.values() for p in parts(v)]
        return [value]

    sent = parts(backend.seen)
    assert all(isinstance(p, str | Image.Image) for p in sent)
    texts = " ".join(p for p in sent if isinstance(p, str))
    assert not any(name in texts for name in ANSWER_KEY)
    for record in records:  # no box of the answer key is written out
        for box in (schema.correct_bbox(record), schema.dark_bbox(record)):
            if box:
                assert str(box) not in texts and ", ".join(map(str, box)) not in texts
