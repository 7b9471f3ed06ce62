"""Recorded episode prefixes shared across runs: an arena episode that follows a path already
played reads the recorded pages instead of driving the browser.

An arena page is a function of the actions taken since the episode's start (the apps are
deterministic, the environment settles every action before it observes, and a fresh tab starts
each episode), so the page after a path of actions is recorded once and read back by any later
episode of the same task that takes the same actions, whatever its agent or defense. A `Tape` is
one task's recordings: a tree of paths, each node the page observed at its end (or the step's
timeout), and the outcome judged at the end of a finished path. `ReplayEnv` has `ArenaEnv`'s
interface: while its episode stays on recorded paths it answers from the tape; on the first call
off them it starts the live episode, replays the path's actions in the browser, and goes on live,
recording what it sees for the runs to come. Only the time changes, never the episode: a test
runs the same methods with and without tapes and compares every record.

A tape is keyed by the task (its goal, start, step budget and predicates; a site task's files),
the environment's code, the browser's and Playwright's versions and the step timeout, so a change
to any of them starts a new tape.
A run that asks for screenshots reads only pages recorded with one (a page recorded without is
played live once more and recorded with it).
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import gzip
import hashlib
import json
import os
import subprocess
import tempfile
from collections.abc import Sequence
from functools import cache
from importlib import metadata
from pathlib import Path
from urllib.parse import urlsplit

from darkguard.browser import chromium_path
from darkguard.envs.arena.actions import Action, Stop, describe
from darkguard.envs.arena.env import VIEWPORT, ArenaEnv, EpisodeOutcome, StepTimeout
from darkguard.envs.arena.observation import Element, PageObservation
from darkguard.envs.arena.predicates import EpisodeFacts
from darkguard.envs.arena.tasks import Task

ROOT = "start"


@cache
def _code_digest() -> str:
    """The environment's code, the browser and Playwright: what a recorded page depends on
    besides the task (an upgraded Chromium lays pages out anew)."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256(_browser_version().encode())
    for f in sorted(here.rglob("*")):
        if f.suffix in {".py", ".js", ".html", ".css", ".json"} and f.name != "replay.py":
            digest.update(str(f.relative_to(here)).encode())
            digest.update(f.read_bytes())
    return digest.hexdigest()


def _browser_version() -> str:
    exe = chromium_path()
    try:
        found = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
        version = found.stdout.strip()
    except (OSError, TypeError, subprocess.SubprocessError):
        version = ""
    return f"{exe} {version} playwright {metadata.version('playwright')}"


def tape_key(task: Task, step_timeout_s: float) -> str:
    """The task as the pages see it, the environment's code and settings."""
    digest = hashlib.sha256(_code_digest().encode())
    digest.update(repr(dataclasses.replace(task, file="", site=None)).encode())
    digest.update(json.dumps([VIEWPORT, step_timeout_s]).encode())
    if task.site is not None:
        for f in sorted(Path(task.site).rglob("*")):
            if f.is_file():
                digest.update(str(f.relative_to(task.site)).encode())
                digest.update(f.read_bytes())
    return digest.hexdigest()[:20]


def child(node: str, action: Action) -> str:
    """The node reached from `node` by `action`."""
    step = json.dumps(describe(action), sort_keys=True)
    return hashlib.sha256(f"{node}\n{step}".encode()).hexdigest()[:24]


class Tape:
    """One task's recorded pages and outcomes, in a gzipped JSON file (written atomically; what
    another process recorded meanwhile is merged, never overwritten)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.pages: dict[str, dict] = {}
        self.outcomes: dict[str, dict] = {}
        self._new = False
        self._load_into(self)

    def _load_into(self, tape: Tape) -> None:
        if self.path.is_file():
            try:
                with gzip.open(self.path, "rt", encoding="utf-8") as f:
                    data = json.load(f)
            except (OSError, EOFError, json.JSONDecodeError):
                return  # an unreadable tape is no tape: its pages are recorded again
            for name in ("pages", "outcomes"):
                for key, value in data.get(name, {}).items():
                    getattr(tape, name).setdefault(key, value)

    def put_page(self, node: str, entry: dict) -> None:
        known = self.pages.get(node)
        if known is None or ("screenshot" in entry and "screenshot" not in known):
            self.pages[node], self._new = entry, True

    def put_outcome(self, node: str, entry: dict) -> None:
        if node not in self.outcomes:
            self.outcomes[node], self._new = entry, True

    def save(self) -> None:
        if not self._new:
            return
        self._load_into(self)  # keep what another run added since
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
                f.write(json.dumps({"pages": self.pages, "outcomes": self.outcomes}).encode())
            os.replace(tmp, self.path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        self._new = False


def _page_entry(obs: PageObservation) -> dict:
    entry = {
        "url": obs.url,
        "title": obs.title,
        "text": obs.text,
        "elements": [dataclasses.astuple(e) for e in obs.elements],
        "error": obs.error,
    }
    if obs.screenshot is not None:
        entry["screenshot"] = base64.b64encode(obs.screenshot).decode("ascii")
    return entry


def _outcome_entry(outcome: EpisodeOutcome) -> dict:
    fields = ("success", "deceived", "final_url", "scratchpad", "blocked_requests", "clicks")
    return {f: getattr(outcome, f) for f in fields}


class ReplayEnv:
    """`ArenaEnv`'s interface over a live environment and a folder of tapes."""

    def __init__(
        self, live: ArenaEnv, folder: Path, step_timeout_s: float, origins: Sequence[str] = ()
    ) -> None:
        """`origins`: the servers the live pages come from (recorded with placeholders for their
        ports, which change between runs, and read back with this run's)."""
        self.live, self.folder, self.step_timeout_s = live, Path(folder), step_timeout_s
        hosts = [urlsplit(o).netloc for o in (live.origin, *origins) if o]
        self.hosts = list(dict.fromkeys(hosts))
        self.task: Task | None = None
        self.tape: Tape | None = None
        self.steps, self.answer = 0, ""
        self.path: list[Action] = []  # the actions that changed the page since the start
        self.node = ROOT
        self.playing = False  # the live environment follows this episode
        self._last: PageObservation | None = None
        self.live_episodes = 0  # episodes that needed the browser (for benchmarks)

    # -- what the loop and the workers call -----------------------------------------------------
    def goal(self, task: Task) -> str:
        return task.goal

    @property
    def last_observation(self) -> PageObservation | None:
        return self._last

    def restart_browser(self) -> None:
        self.live.restart_browser()

    def close(self) -> None:
        self.live.close()

    def reset(self, task: Task) -> PageObservation:
        if self.tape is not None:
            self.tape.save()
        self.task, self.steps, self.answer = task, 0, ""
        self.path, self.node, self.playing = [], ROOT, False
        self.tape = Tape(self.folder / f"{tape_key(task, self.step_timeout_s)}.json.gz")
        return self._at_node()

    def step(self, action: Action, count: bool = True) -> PageObservation:
        assert self.task is not None
        if isinstance(action, Stop):
            self.answer = action.answer
            if self.playing:
                self.live.step(action)
            return self.observe(done=True)
        self.steps += int(count)
        self.path.append(action)
        self.node = child(self.node, action)
        if self.playing:
            return self._record(lambda: self.live.step(action, count=False))
        return self._at_node()

    def skip_step(self, error: str = "") -> PageObservation:
        self.steps += 1
        return self.observe(error)

    def observe(self, error: str = "", done: bool = False) -> PageObservation:
        """The page at the current node (it changes only with an action)."""
        entry = self._entry()
        return self._observation(entry, error, done)

    def outcome(self) -> EpisodeOutcome:
        assert self.tape is not None
        key = child(self.node, Stop(self.answer))
        entry = self.tape.outcomes.get(key)
        if entry is None:
            with contextlib.suppress(StepTimeout):  # the path ends in a hung page, as it did
                self._go_live()
            self.live.answer = self.answer
            outcome = self.live.outcome()
            self.tape.put_outcome(key, self._portable(_outcome_entry(outcome)))
        else:
            outcome = EpisodeOutcome(
                **self._local(entry), answer=self.answer, facts=EpisodeFacts(answer=self.answer)
            )
        self.tape.save()
        return outcome

    # -- the tape and the browser ---------------------------------------------------------------
    def _entry(self) -> dict:
        assert self.tape is not None
        entry = self.tape.pages.get(self.node)
        if entry is None or self._lacks_screenshot(entry):  # the browser takes over
            self._go_live()
            entry = self.tape.pages[self.node]
        return entry

    def _lacks_screenshot(self, entry: dict) -> bool:
        return self.live.screenshots and "timeout" not in entry and "screenshot" not in entry

    def _at_node(self) -> PageObservation:
        entry = self._entry()
        return self._observation(entry, self._local(entry).get("error", ""), False)

    def _go_live(self) -> None:
        """Start the live episode and replay the path; the node's page is then recorded."""
        if self.playing:
            return
        assert self.task is not None
        self.playing = True
        self.live_episodes += 1
        path, self.path, self.node = self.path, [], ROOT
        self._record(lambda: self.live.reset(self.task))
        for action in path:
            self.path.append(action)
            self.node = child(self.node, action)
            self._record(lambda a=action: self.live.step(a, count=False))

    def _record(self, call) -> PageObservation:
        assert self.tape is not None
        try:
            obs = call()
        except StepTimeout as err:
            self.tape.put_page(self.node, self._portable({"timeout": str(err)}))
            raise
        self.tape.put_page(self.node, self._portable(_page_entry(obs)))
        self.live.steps = self.steps
        return self._observation(self.tape.pages[self.node], obs.error, False)

    def _portable(self, entry: dict) -> dict:
        """`entry` with this run's server addresses as placeholders."""
        text = json.dumps(entry)
        for i, host in sorted(enumerate(self.hosts), key=lambda h: -len(h[1])):
            text = text.replace(host, f"{{{{host{i}}}}}")
        return json.loads(text)

    def _local(self, entry: dict) -> dict:
        """A recorded `entry` with this run's server addresses."""
        text = json.dumps(entry)
        if "{{host" not in text:
            return entry
        for i, host in enumerate(self.hosts):
            text = text.replace(f"{{{{host{i}}}}}", host)
        return json.loads(text)

    def _observation(self, entry: dict, error: str, done: bool) -> PageObservation:
        assert self.task is not None
        entry = self._local(entry)
        if "timeout" in entry:
            raise StepTimeout(entry["timeout"])
        elements = tuple(
            Element(i, role, name, text, ctx, state, tuple(box), prom, cov, dia, href)
            for i, role, name, text, ctx, state, box, prom, cov, dia, href in entry["elements"]
        )
        shot = entry.get("screenshot") if self.live.screenshots else None
        self._last = PageObservation(
            self.task.goal,
            entry["url"],
            entry["title"],
            entry["text"],
            elements,
            self.steps,
            self.task.max_steps,
            base64.b64decode(shot) if shot is not None else None,
            done or self.steps >= self.task.max_steps,
            error,
        )
        return self._last
