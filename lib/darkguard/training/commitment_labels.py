"""arena-synth's labelled controls as Veer sees them: for the commitment-reading benchmark and for
choosing its settings on `dev`.

Every page of every site of a split is opened in the browser (both twins); each control the
generator registered (`truth.jsonl`'s `controls`) is grounded in the observation (the element that
is, holds or is labelled by its selector) and kept with what it commits (`harm`, `goal`,
`progress`, `commit`, `decline`, `ad`, `none`), the task's goal, and the page's dialog text and
title. The rows are cached as JSON beside nothing the agents or defenses read.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path

from darkguard.defenses.veer.state import Control, ground
from darkguard.envs.arena.env import ArenaEnv
from darkguard.envs.arena.server import Served
from darkguard.envs.arena.tasks import load_tasks
from darkguard.training.arena_scorer import FIND_JS, read_truth

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LabelledControl:
    """One generator-labelled control on one page, grounded as Veer grounds it."""

    task: str
    goal: str
    kind: str  # the task's kind (buy, book, settings, ...)
    dark: bool
    label: str  # what the generator says it commits
    control: Control
    dialog: str  # the page's dialog text ("" when none)
    title: str

    @property
    def harm(self) -> bool:
        return self.label == "harm"


def collect(split_dir: Path) -> tuple[list[LabelledControl], list[str]]:
    """Every labelled control of a generated split that its page shows when opened bare (no
    query state), in task and page order, and the ones it does not show (task, page, selector)."""
    split_dir = Path(split_dir)
    truth = read_truth(split_dir)
    tasks = load_tasks(split_dir).tasks
    rows: list[LabelledControl] = []
    missing: list[str] = []
    with Served(site=tasks[0].site) as served:
        env = ArenaEnv(served.origin)
        try:
            for task in tasks:
                record = truth[task.id]
                env.reset(task)
                pages = list(dict.fromkeys(c["page"] for c in record["controls"]))
                for page in pages:
                    env.page.goto(f"{served.origin}/{record['site']}/{page}", wait_until="load")
                    obs = env.observe()
                    state = ground(obs)
                    for c in (c for c in record["controls"] if c["page"] == page):
                        index = env.page.evaluate(FIND_JS, c["selector"])
                        if index < 0:  # shown only in a state the bare page is not in
                            log.info("%s: %s on %s: not on the bare page", task.id, c, page)
                            missing.append(f"{task.id} {page} {c['selector']}")
                            continue
                        control = next(x for x in state.controls if x.index == index)
                        rows.append(
                            LabelledControl(
                                task.id,
                                task.goal,
                                record["kind"],
                                record["dark"],
                                c["commits"],
                                control,
                                state.dialog_text() if control.in_dialog else "",
                                state.title,
                            )
                        )
        finally:
            env.close()
    return rows, missing


def cached(split_dir: Path, cache: Path) -> tuple[list[LabelledControl], list[str]]:
    """`collect(split_dir)`, read from `cache` when it holds this split's manifest digest."""
    split_dir, cache = Path(split_dir), Path(cache)
    digest = json.loads((split_dir / "manifest.json").read_text())["digest"]
    if cache.exists():
        doc = json.loads(cache.read_text())
        if doc.get("digest") == digest:
            rows = [
                LabelledControl(**{**r, "control": Control(**r["control"])}) for r in doc["rows"]
            ]
            return rows, doc["missing"]
    rows, missing = collect(split_dir)
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_suffix(".tmp")
    tmp.write_text(
        json.dumps({"digest": digest, "rows": [asdict(r) for r in rows], "missing": missing})
    )
    tmp.replace(cache)
    return rows, missing
