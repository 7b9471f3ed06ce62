"""Guard evaluation over a task suite: the paper's test suite (5.1), the evaluator as a gate, and
a resumable episode journal."""

from __future__ import annotations

import random
import time
from collections import OrderedDict
from pathlib import Path

from PIL import Image

from darkguard.dude.agents import Agent
from darkguard.dude.guard import T_MAX, Episode, Judge, run_episodes
from darkguard.dude.inputs import PAPER_INPUTS, ObservationAids, Screenshot, evaluator_conversation
from darkguard.dude.judge_metrics import predicted_label
from darkguard.dude.screen_cache import MemoryCache, file_key
from darkguard.journal import Journal
from darkguard.models.backends import Backend, generate_counted
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
    guidance block, the prompt rebuilt per call (paper 5.1); `judge_many` judges many proposed
    clicks in the backend's batches."""

    def __init__(
        self,
        backend: Backend,
        experience: str | None = None,
        aids: ObservationAids = PAPER_INPUTS,
        system_prompt: bool = True,
    ) -> None:
        self.backend, self.experience, self.aids = backend, experience or None, aids
        self.system_prompt = system_prompt  # False: no system message at all (paper 5.6 (i))
        # resized screenshots of recent pages; each entry holds its image, so no id is reused
        self._shots: OrderedDict[int, tuple[Image.Image, Screenshot]] = OrderedDict()

    def __call__(self, image: Image.Image, task: str, x: float, y: float) -> tuple[int | None, int]:
        return self.judge_many([(image, task, x, y)])[0]

    def judge_many(
        self, clicks: list[tuple[Image.Image, str, float, float]]
    ) -> list[tuple[int | None, int]]:
        """(L̂ or None when unreadable, tokens used) per (screenshot, task, x, y)."""
        conversations = []
        for image, task, x, y in clicks:
            conv = evaluator_conversation(self._shot(image), task, x, y, self.experience, self.aids)
            conversations.append(conv if self.system_prompt else conv[1:])
        texts, tokens = generate_counted(self.backend, conversations)
        return [
            (predicted_label(parse_judgement(text)), used)
            for text, used in zip(texts, tokens, strict=True)
        ]

    def _shot(self, image: Image.Image) -> Screenshot:
        if id(image) not in self._shots:
            self._shots[id(image)] = (image, Screenshot(image, self.backend.max_pixels))
            while len(self._shots) > SHOTS_KEPT:
                self._shots.popitem(last=False)
        return self._shots[id(image)][1]


SHOTS_KEPT = 64  # pages whose resized screenshot an `EvaluatorJudge` keeps


def evaluate_agent(
    agent: Agent,
    judge: Judge | None,
    data_dir: Path,
    suite: list[dict],
    journal_path: Path,
    t_max: int = T_MAX,
    agent_backend: Backend | None = None,
    batch: int = 1,
) -> list[Episode]:
    """Run every task of `suite` once, `batch` tasks at a time in lockstep (`run_episodes`: their
    agent calls and evaluator calls batched), resuming from `journal_path`: a batch whose
    episodes are all journaled is read back, not rerun; a partly journaled one runs again whole
    (the same batches as an uninterrupted run) and keeps its journaled episodes. Each episode's
    `seconds` is its batch's wall time over the batch's tasks. The journal is rewritten in suite
    order at the end."""
    if batch < 1:
        raise ValueError(f"batch {batch} must be at least 1")
    journal = Journal(journal_path, key="sample_id")
    tokens = _token_counter(agent_backend)
    for start in range(0, len(suite), batch):
        chunk = suite[start : start + batch]
        if all(str(r["id"]) in journal.done for r in chunk):
            continue
        began = time.perf_counter()
        pages = [(_page(Path(data_dir) / record["image_path"]), record) for record in chunk]
        episodes = run_episodes(agent, judge, pages, t_max, tokens)
        seconds = round((time.perf_counter() - began) / len(chunk), 3)
        for episode in episodes:
            if episode.sample_id not in journal.done:
                episode.seconds = seconds
                journal.append(episode.to_json())
    order = [str(r["id"]) for r in suite]
    journal.finalize(order)
    return [Episode.from_json(journal.done[i]) for i in order]


def _page(path: Path) -> Image.Image:
    """A task's screenshot, decoded once per process while it fits `_PAGES` (the runs of a stage
    share one suite)."""
    key = file_key(path)
    cached = _PAGES.get(key)
    if cached is None:
        with Image.open(path) as img:
            image = img.convert("RGB")
        cached = _PAGES.put(key, (image, image.size))
    return cached[0]


_PAGES = MemoryCache(budget=1024 * 2**20)  # decoded screenshots, 1 GiB of pixels at most


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
