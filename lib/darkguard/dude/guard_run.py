"""Guard evaluation over a task suite: the paper's test suite (5.1), the evaluator as a gate, and
a resumable episode journal."""

from __future__ import annotations

import random
import time
from pathlib import Path

from PIL import Image

from darkguard.dude.agents import Agent
from darkguard.dude.guard import T_MAX, Episode, Judge, run_episode
from darkguard.dude.inputs import PAPER_INPUTS, ObservationAids, Screenshot, evaluator_conversation
from darkguard.dude.judge_metrics import predicted_label
from darkguard.journal import Journal
from darkguard.models.backends import Backend
from darkguard.models.parsing import parse_judgement


def guard_suite(records: list[dict], per_domain: int, seed: int) -> list[dict]:
    """A fixed sample of `per_domain` tasks per domain (all of a smaller domain), seeded, in id
    order within each domain (paper 5.1: 50 per domain)."""
    by_domain: dict[str, list[dict]] = {}
    for r in sorted(records, key=lambda r: str(r["id"])):
        by_domain.setdefault(str(r.get("domain", "")), []).append(r)
    suite = []
    for domain in sorted(by_domain):
        group = by_domain[domain]
        picked = random.Random(f"{seed}:{domain}").sample(group, min(per_domain, len(group)))
        suite += sorted(picked, key=lambda r: str(r["id"]))
    return suite


class EvaluatorJudge:
    """The evaluator as a gate: one greedy judgement per proposed click, Stage-2 experience in the
    guidance block, the prompt rebuilt per call (paper 5.1)."""

    def __init__(
        self,
        backend: Backend,
        experience: str | None = None,
        aids: ObservationAids = PAPER_INPUTS,
        system_prompt: bool = True,
    ) -> None:
        self.backend, self.experience, self.aids = backend, experience or None, aids
        self.system_prompt = system_prompt  # False: no system message at all (paper 5.6 (i))
        self._shot: tuple[Image.Image, Screenshot] | None = None

    def __call__(self, image: Image.Image, task: str, x: float, y: float) -> tuple[int | None, int]:
        if self._shot is None or self._shot[0] is not image:  # holds the image: no id reuse
            self._shot = (image, Screenshot(image, self.backend.max_pixels))
        conv = evaluator_conversation(self._shot[1], task, x, y, self.experience, self.aids)
        if not self.system_prompt:
            conv = conv[1:]
        before = getattr(self.backend, "tokens_used", 0)
        text = self.backend.generate([conv])[0]
        return predicted_label(parse_judgement(text)), getattr(
            self.backend, "tokens_used", 0
        ) - before


def evaluate_agent(
    agent: Agent,
    judge: Judge | None,
    data_dir: Path,
    suite: list[dict],
    journal_path: Path,
    t_max: int = T_MAX,
    agent_backend: Backend | None = None,
) -> list[Episode]:
    """Run every task of `suite` once, resuming from `journal_path` (finished episodes are read
    back, not rerun); the journal is rewritten in suite order at the end."""
    journal = Journal(journal_path, key="sample_id")
    tokens = _token_counter(agent_backend)
    for record in suite:
        if str(record["id"]) in journal.done:
            continue
        start = time.perf_counter()
        with Image.open(Path(data_dir) / record["image_path"]) as img:
            image = img.convert("RGB")
        episode = run_episode(agent, judge, image, record, t_max, tokens)
        episode.seconds = round(time.perf_counter() - start, 3)
        journal.append(episode.to_json())
    order = [str(r["id"]) for r in suite]
    journal.finalize(order)
    return [Episode.from_json(journal.done[i]) for i in order]


def _token_counter(backend: Backend | None):
    """A callable returning the tokens `backend` used since the previous call (None: offline)."""
    if backend is None or not hasattr(backend, "tokens_used"):
        return None
    last = [backend.tokens_used]

    def used() -> int:
        now = backend.tokens_used
        delta, last[0] = now - last[0], now
        return delta

    return used
