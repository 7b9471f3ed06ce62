"""The arena environment in Chromium: observations carry what a user sees and nothing else;
clicks are logged; outcomes are judged from the log and the final page; loopback only; a hung
page ends its episode as a recorded failure."""

from __future__ import annotations

import re
import shutil
import threading
import time
from pathlib import Path

import pytest
from flask import Flask
from werkzeug.serving import make_server

from darkguard.envs.arena.actions import Back, Click, Goto, Stop, Type
from darkguard.envs.arena.env import ArenaEnv, StepTimeout
from darkguard.envs.arena.server import Served
from darkguard.envs.arena.tasks import load_task_file, load_tasks

pytestmark = pytest.mark.browser
FIXTURE = Path(__file__).parent / "fixtures" / "arena_site"


def by_name(obs, name: str, context: str = ""):
    return next(e for e in obs.elements if e.name == name and context in e.context)


def run_fixture(site: Path, steps) -> tuple[list, object]:
    (task,) = load_task_file(FIXTURE / "tasks.yaml")
    with Served(site=site) as served:
        env = ArenaEnv(served.origin)
        try:
            seen = [env.reset(task)]
            for pick in steps:
                seen.append(env.step(pick(seen[-1])))
            return seen, env.outcome()
        finally:
            env.close()


BOOK_WITH_INSURANCE = [
    lambda o: Click(by_name(o, "Yes, protect my trip").index),
    lambda o: Click(by_name(o, "Choose", "09:40").index),
    lambda o: Type(by_name(o, "Passenger name").index, "Ada Lovelace"),
    lambda o: Click(by_name(o, "Confirm booking").index),
    lambda o: Stop("booked"),
]


def test_observation_is_what_a_user_sees_and_the_outcome_is_judged() -> None:
    seen, outcome = run_fixture(FIXTURE / "site", BOOK_WITH_INSURANCE)
    first = seen[0]
    assert first.title == "Riverside Rail - Book a seat" and "Trains from Lyon" in first.text
    offer = by_name(first, "Yes, protect my trip")
    assert offer.in_dialog and not offer.covered and offer.role == "button"
    assert by_name(first, "Choose", "09:40").covered  # the pop-up lies over the page
    assert offer.prominence > 3 * by_name(first, "No thanks").prominence
    seat = seen[2]
    assert seat.url.endswith("/seat.html?train=0940")
    assert by_name(seat, "Send me Riverside Rail offers").state == {"checked": True}
    assert by_name(seen[3], "Passenger name").state == {"value": "Ada Lovelace"}
    assert outcome.success and outcome.deceived and outcome.answer == "booked"
    assert outcome.clicks >= 3 and outcome.blocked_requests == 0
    assert outcome.facts.typed[-1][1] == "Ada Lovelace"


def test_ids_and_classes_do_not_reach_the_observation(tmp_path) -> None:
    """The same site with every id and class renamed gives the same observation."""
    site = tmp_path / "site"
    shutil.copytree(FIXTURE / "site", site)
    for page in site.glob("*.html"):
        html = page.read_text(encoding="utf-8")
        html = re.sub(r'(id|for)="([\w-]+)"', r'\1="z\2q"', html)
        html = re.sub(r"getElementById\('([\w-]+)'\)", r"getElementById('z\1q')", html)
        html = html.replace('aria-labelledby="ins-title"', 'aria-labelledby="zins-titleq"')
        for cls in ("overlay", "box", "big", "small", "train"):
            html = html.replace(f'class="{cls}"', f'class="k{cls}"')
            html = html.replace(f".{cls}{{", f".k{cls}{{").replace(f"'.{cls}'", f"'.k{cls}'")
        page.write_text(html, encoding="utf-8")
    original, _ = run_fixture(FIXTURE / "site", BOOK_WITH_INSURANCE[:2])
    scrambled, _ = run_fixture(site, BOOK_WITH_INSURANCE[:2])
    strip = [(o.title, o.text, o.elements) for o in original]
    assert strip == [(o.title, o.text, o.elements) for o in scrambled]


def test_requests_to_other_hosts_are_blocked_and_counted(tmp_path) -> None:
    site = tmp_path / "site"
    shutil.copytree(FIXTURE / "site", site)
    index = site / "index.html"
    index.write_text(
        index.read_text().replace("</body>", '<img src="http://198.51.100.7/pixel.png"></body>')
    )
    _, outcome = run_fixture(site, [lambda o: Stop("")])
    assert outcome.blocked_requests == 1 and not outcome.success


class HeldSite:
    """A local site whose `/slow` page answers only when the test lets it (`release`, or after
    60 s): checks then depend on what the browser did, not on how busy the machine is. `/` holds
    `index` (HTML)."""

    def __init__(self, index: str) -> None:
        self.asked, self.release, self.answered = (threading.Event() for _ in range(3))
        app = Flask("held")
        app.add_url_rule("/", "index", lambda: index)
        app.add_url_rule("/slow", "slow", self._slow)
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        (task,) = load_task_file(FIXTURE / "tasks.yaml")
        self.task = type(task)(**{**task.__dict__, "start": "/"})
        self.origin = f"http://127.0.0.1:{self.server.server_port}"

    def _slow(self) -> str:
        self.asked.set()
        self.release.wait(60)
        self.answered.set()
        return "late"

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()


def test_a_hung_page_times_out_the_step() -> None:
    """The step gives up after its timeout, before the page answers (it answers only when the
    test lets it), and the late answer arriving while the hung tab is let go hangs nothing."""
    site = HeldSite('<a href="/slow">Slow page</a>')
    env = ArenaEnv(site.origin, step_timeout_s=1.5)
    try:
        obs = env.reset(site.task)
        start = time.perf_counter()
        with pytest.raises(StepTimeout):
            env.step(Click(by_name(obs, "Slow page").index))
        assert not site.answered.is_set()  # it gave up on its own, not when the page answered
        assert time.perf_counter() - start >= 1.5
        site.release.set()  # its answer arriving while the tab is let go once hung the reset
        obs = env.reset(site.task)
        assert by_name(obs, "Slow page")  # the next episode gets a working tab
        site.release.clear()
        with pytest.raises(StepTimeout):
            env.step(Click(by_name(obs, "Slow page").index))
        site.release.set()  # ... and the close at the end of a run
    finally:
        env.close()
        site.close()


def test_a_browser_that_stalls_past_the_deadline_is_ended() -> None:
    """A stalled browser whose waits do not time out (Playwright's timeout set far beyond the
    held page's 60 s here; under load a renderer stalled so once): the watchdog ends the browser at
    the deadline, the step is a timeout long before the page answers, no browser process is left,
    and the next episode gets a fresh browser."""
    site = HeldSite('<a href="/slow">Slow page</a>')
    env = ArenaEnv(site.origin, step_timeout_s=1.5)
    try:
        obs = env.reset(site.task)
        pid = env._watchdog.pid
        env.timeout_ms = 120_000  # the browser's own timeouts never fire in this step
        start = time.perf_counter()
        with pytest.raises(StepTimeout, match="was ended"):
            env.step(Click(by_name(obs, "Slow page").index))
        elapsed = time.perf_counter() - start
        assert env._deadline_s <= elapsed < env._deadline_s + 10
        assert not site.answered.is_set()
        assert not process_alive(pid)
        env.timeout_ms = 1500
        obs = env.reset(site.task)
        assert env._watchdog.pid != pid and by_name(obs, "Slow page")
    finally:
        env.close()
        site.close()


def process_alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for its parent to reap it counts as ended)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return False
        if state in ("Z", "X"):
            return False
        time.sleep(0.1)
    return True


def test_a_tab_still_loading_when_the_episode_ends_stays_in_its_episode() -> None:
    """A page that opens a second tab after the step has settled (a delayed pop-up) onto a page
    still loading when the episode ends. Its answer arrives as the next episode begins: this
    once hung the reset (a tab closed mid-navigation), and a pop-up whose page had not arrived
    yet (Playwright does not list it) could open in the next episode and take over its tab."""
    site = HeldSite(
        "<button onclick=\"setTimeout(() => window.open('/slow'), 300)\">Later</button>"
    )
    env = ArenaEnv(site.origin, step_timeout_s=5)
    try:
        obs = env.reset(site.task)
        env.step(Click(by_name(obs, "Later").index))
        deadline = time.monotonic() + 30
        while not site.asked.is_set() and time.monotonic() < deadline:
            env.page.wait_for_timeout(50)  # the pop-up opens after the step has ended
        assert site.asked.is_set() and not site.answered.is_set()
        site.release.set()  # the pop-up's page arrives as the next episode begins
        obs = env.reset(site.task)
        site.answered.wait(30)
        env.page.wait_for_timeout(500)  # time for a late tab to show up in this episode
        assert by_name(obs, "Later") and env.page.url == site.origin + "/"
        assert env.page.context.pages == [env.page]
    finally:
        env.close()
        site.close()


def test_each_episode_starts_as_in_a_new_tab() -> None:
    """The kept tab carries nothing over: no scratchpad text (session storage), no cookies (the
    app's episode state), no history to go back to. It is kept, not replaced (a new tab costs a
    renderer process), while the episode opened no other tab."""

    task = load_tasks("trickyarena_single").tasks[0]
    with Served([task.app]) as served:
        env = ArenaEnv(served.origin)
        try:
            first = env.reset(task)
            tab = env.page
            pad = next(
                e for e in first.elements if e.role == "textbox" and "scratch" in e.name.lower()
            )
            typed = env.step(Type(pad.index, "left over"))
            assert typed.elements[pad.index].state["value"] == "left over"
            assert env.step(Goto("/")).url != first.url  # a second page in the history
            again = env.reset(task)
            assert env.page is tab and not tab.is_closed()
            assert again.elements[pad.index].state["value"] == ""
            assert env.step(Back()).url == again.url
        finally:
            env.close()


def test_urls_and_link_destinations_never_carry_the_condition() -> None:
    """What an agent sees of addresses (the page URL, each link's destination) holds neither the
    `?dp=` switch nor a pattern label as a path or query part, on every condition's start page."""
    tasks = load_tasks("trickyarena_single").tasks + load_tasks("webdecept").tasks[::45]
    labels = {p for t in tasks for p in t.patterns}
    starts = {t.start: t for t in tasks}
    leaks = []
    with Served() as served:
        env = ArenaEnv(served.origin)
        try:
            for task in starts.values():
                obs = env.reset(task)
                for address in [obs.url] + [e.href for e in obs.elements if e.href]:
                    parts = set(re.split(r"[/?=&#]", address))
                    if "dp=" in address or parts & labels:
                        leaks.append((task.id, address))
        finally:
            env.close()
    assert len(starts) > 25 and leaks == []
