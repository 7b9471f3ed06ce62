"""Training the offline agent's element scorer and completion model by imitation on arena-synth.

Demonstrations are careful users' solutions (`truth.jsonl`'s `solution`) replayed in the browser
on the CLEAN twins of a split: at each click the observation and the index of the control the
user clicked; after the last step, the finished page. Pages with a deceptive pattern are never
shown to the scorer, so what it learns is forward progress and the goal's words, and its habits
(keep defaults, prefer the prominent control) are those of pages without a pattern.

The scorer is a listwise softmax over a page's candidate elements, the completion model a logistic
model over the page's head; both are fitted by full-batch gradient descent with L2 (deterministic,
float64). `fit_from_split` writes the weights the agent ships with (`element_scorer.json`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from darkguard.agents.web.element_scorer import (
    ScorerWeights,
    element_features,
    page_features,
)
from darkguard.agents.web.generic import CLICK_ROLES
from darkguard.agents.web.grounding import Grounder
from darkguard.envs.arena.actions import Click, Select, Type
from darkguard.envs.arena.env import ArenaEnv
from darkguard.envs.arena.observation import PageObservation
from darkguard.envs.arena.server import Served
from darkguard.envs.arena.tasks import Task, load_tasks

log = logging.getLogger(__name__)

# the observation element that is (or holds, or is labelled by) the selector's element
FIND_JS = """(sel) => {
  const t = document.querySelector(sel);
  if (!t || !window.__dgEls) return -1;
  const labels = t.labels ? Array.from(t.labels) : [];
  return window.__dgEls.findIndex(
    (e) => e === t || e.contains(t) || t.contains(e) || labels.includes(e));
}"""


@dataclass(frozen=True)
class Demo:
    """One page of a demonstration: the goal, the observation, the clicked element (or -1 on the
    finished page) and the candidates' indices."""

    task: str
    goal: str
    obs: PageObservation
    clicked: int
    candidates: tuple[int, ...]
    done: bool


def read_truth(split_dir: Path) -> dict[str, dict]:
    """`truth.jsonl` of a generated split, by task id."""
    path = Path(split_dir) / "truth.jsonl"
    out: dict[str, dict] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            out[record["id"]] = record
        except (json.JSONDecodeError, KeyError) as err:
            raise ValueError(f"{path}: record {n}: field 'id': {err}") from None
    return out


def _candidates(obs: PageObservation) -> tuple[int, ...]:
    return tuple(
        e.index
        for e in obs.elements
        if e.role in CLICK_ROLES
        and (e.name or e.text).strip()
        and not e.state.get("disabled")
        and not (e.covered and not e.in_dialog)
    )


def replay(env: ArenaEnv, task: Task, truth: dict) -> list[Demo]:
    """The demonstration pages of one task (its solution replayed); [] when a step cannot be
    found on the page (logged)."""
    obs = env.reset(task)
    demos: list[Demo] = []
    for n, step in enumerate(truth["solution"]):
        op = step["op"]
        if op == "answer":
            continue
        index = env.page.evaluate(FIND_JS, step["selector"])
        if index < 0:
            log.warning("%s: solution step %d: selector %r not on the page", task.id, n, step)
            return []
        if op in ("click", "check", "uncheck"):
            cands = _candidates(obs)
            if index in cands:
                demos.append(Demo(task.id, task.goal, obs, index, cands, False))
            action = Click(index)
        elif op == "type":
            action = Type(index, str(step.get("value", "")))
        elif op == "select":
            action = Select(index, str(step.get("value", "")))
        else:
            raise ValueError(f"truth of {task.id}: solution step {n}: field 'op': unknown {op!r}")
        obs = env.step(action)
    demos.append(Demo(task.id, task.goal, obs, -1, (), True))
    return demos


def collect(split_dir: Path, clean_only: bool = True, limit: int | None = None) -> list[Demo]:
    """Demonstrations of a generated split's (clean) tasks, in task order."""
    split_dir = Path(split_dir)
    truth = read_truth(split_dir)
    tasks = [t for t in load_tasks(split_dir).tasks if not (clean_only and truth[t.id]["dark"])]
    tasks = tasks[:limit] if limit else tasks
    if not tasks:
        return []
    demos: list[Demo] = []
    with Served(site=tasks[0].site) as served:
        env = ArenaEnv(served.origin)
        try:
            for task in tasks:
                demos += replay(env, task, truth[task.id])
        finally:
            env.close()
    return demos


def _softmax_groups(scores: np.ndarray, groups: list[slice]) -> np.ndarray:
    probs = np.empty_like(scores)
    for g in groups:
        s = scores[g] - scores[g].max()
        e = np.exp(s)
        probs[g] = e / e.sum()
    return probs


def _fit_listwise(x: np.ndarray, target: np.ndarray, groups: list[slice], l2: float, steps: int):
    w = np.zeros(x.shape[1])
    lr = 0.5
    n = len(groups)
    for _ in range(steps):
        p = _softmax_groups(x @ w, groups)
        grad = x.T @ (p - target) / n + l2 * w
        w -= lr * grad
    return w


def _fit_logistic(x: np.ndarray, y: np.ndarray, l2: float, steps: int) -> np.ndarray:
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        w -= 0.5 * (x.T @ (p - y) / len(y) + l2 * w)
    return w


@dataclass(frozen=True)
class Design:
    """The scorer's design matrix: rows of candidates, a one-hot target, one slice per page."""

    x: np.ndarray
    target: np.ndarray
    groups: list[slice]
    pages: np.ndarray  # the done model's rows
    done: np.ndarray


def design(demos: Iterable[Demo], grounder: Grounder) -> Design:
    rows, targets, groups, pages, done = [], [], [], [], []
    start = 0
    for d in demos:
        pages.append(page_features(d.obs, grounder))
        done.append(float(d.done))
        if d.clicked < 0:
            continue
        els = [d.obs.elements[i] for i in d.candidates]
        feats = element_features(d.goal, d.obs, els, grounder)
        rows.append(feats)
        targets.append(np.array([float(i == d.clicked) for i in d.candidates]))
        groups.append(slice(start, start + len(els)))
        start += len(els)
    return Design(
        np.vstack(rows), np.concatenate(targets), groups, np.vstack(pages), np.array(done)
    )


def top1(w: np.ndarray, d: Design) -> float:
    """The share of pages whose demonstrated click the scorer ranks first."""
    scores = d.x @ w
    hits = [int(np.argmax(scores[g]) == np.argmax(d.target[g])) for g in d.groups]
    return float(np.mean(hits)) if hits else 0.0


def done_accuracy(w: np.ndarray, d: Design) -> float:
    return float(np.mean(((d.pages @ w) > 0) == (d.done > 0.5))) if len(d.done) else 0.0


def fit(
    demos: list[Demo],
    grounder: Grounder,
    l2: float = 1e-3,
    steps: int = 400,
    meta: dict | None = None,
) -> tuple[ScorerWeights, Design]:
    """Both models fitted on `demos`."""
    d = design(demos, grounder)
    w = _fit_listwise(d.x, d.target, d.groups, l2, steps)
    wd = _fit_logistic(d.pages, d.done, l2, steps)
    info = dict(meta or {})
    info.update(pages=len(d.groups), done_pages=int(d.done.sum()), train_top1=round(top1(w, d), 4))
    return ScorerWeights(w, wd, info), d


L2_GRID = (1e-4, 1e-3, 1e-2)


def _holdout(demos: list[Demo], share: float = 0.2) -> tuple[list[Demo], list[Demo]]:
    """Demonstrations split by task (every fifth task held out, in task order)."""
    ids = list(dict.fromkeys(d.task for d in demos))
    every = max(2, round(1 / share))
    held = {t for i, t in enumerate(ids) if i % every == every - 1}
    return [d for d in demos if d.task not in held], [d for d in demos if d.task in held]


def train_from_split(
    dev: Path, out: Path | None = None, l2: float | None = None, steps: int = 400
) -> ScorerWeights:
    """Train on a dev split's clean twins: `l2` chosen on a held-out fifth of its tasks (from
    `L2_GRID` unless given), then both models refitted on all of them; written to `out` (default:
    the weights file the agent reads)."""
    from darkguard.agents.web.element_scorer import WEIGHTS_FILE

    dev = Path(dev)
    manifest = json.loads((dev / "manifest.json").read_text(encoding="utf-8"))
    if manifest.get("split") != "dev":
        raise ValueError(f"{dev}/manifest.json: field 'split': the scorer trains on dev only")
    grounder = Grounder()
    demos = collect(dev)
    fit_part, held = _holdout(demos)
    held_design = design(held, grounder)
    selection = {}
    for value in (l2,) if l2 is not None else L2_GRID:
        weights, _ = fit(fit_part, grounder, value, steps)
        selection[f"{value:g}"] = round(top1(weights.weights, held_design), 4)
    chosen = l2 if l2 is not None else max(L2_GRID, key=lambda v: (selection[f"{v:g}"], v))
    meta = {
        "trained_on": f"arena-synth dev ({manifest['tasks']} tasks, seed {manifest['seed']}), "
        "clean twins",
        "l2": chosen,
        "steps": steps,
        "holdout_top1_by_l2": selection,
    }
    weights, _ = fit(demos, grounder, chosen, steps, meta)
    weights.save(out or WEIGHTS_FILE)
    return weights
