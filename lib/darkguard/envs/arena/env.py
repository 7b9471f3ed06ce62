"""The arena environment: a live page in Chromium, one Playwright browser context per episode.

`reset(task)` opens the task's start page and returns the first observation; `step(action)` acts
and returns the next one. An observation is what a user's agent sees: the URL, the title, the
page's visible text, the interactive elements (role, accessible name, visible text, state, box,
prominence, covered, in a dialog) and optionally a screenshot. It never carries ids, classes,
pattern labels, the condition switch or the task's predicates.

Every click and input of the episode (by the agent or by a defense acting through `step`) is
logged by an init script with the task's watched selectors; `outcome()` judges T and D from that
log and the final page. Requests to anything but 127.0.0.1 are blocked and counted.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlparse

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

from darkguard import envs
from darkguard.browser import RequestGuard, launch
from darkguard.envs.arena.actions import Action, Back, Click, Goto, Scroll, Select, Stop, Type
from darkguard.envs.arena.observation import Element, PageObservation
from darkguard.envs.arena.predicates import EpisodeFacts, holds, selectors_of
from darkguard.envs.arena.tasks import Task
from darkguard.envs.arena.watchdog import Watchdog, browser_pid, deadline_s

HERE = Path(__file__).parent
OBSERVE_JS = (HERE / "observe.js").read_text(encoding="utf-8")
RECORDER_JS = (HERE / "recorder.js").read_text(encoding="utf-8")
FINAL_JS = """(sels) => {
  const out = {text: {}, checked: {}, scratchpad: ""};
  for (const s of sels) {
    const el = document.querySelector(s);
    out.text[s] = el ? el.innerText : null;
    if (!el) { out.checked[s] = null; continue; }
    const a = el.getAttribute("aria-checked") ?? el.getAttribute("aria-pressed");
    out.checked[s] = ("checked" in el && (el.type === "checkbox" || el.type === "radio"))
      ? el.checked : (a === null ? false : a === "true");
  }
  const pad = document.querySelector("#scratchpad");
  out.scratchpad = pad ? pad.value : "";
  return out;
}"""
POINT_JS = """(i) => {
  const el = window.__dgEls && window.__dgEls[i];
  if (!el || !el.isConnected) return null;
  el.scrollIntoView({block: "center", inline: "center", behavior: "instant"});
  const r = el.getBoundingClientRect();
  return {x: r.left + r.width / 2, y: r.top + r.height / 2};
}"""
LEAVING_JS = """() => new Promise((resolve) => {
  if (!window.__dgEls) {  // a document not yet observed: the action has navigated already
    const tick = () => setTimeout(() => resolve({leaving: false}), 0);
    if (document.readyState === "complete") tick();
    else addEventListener("load", tick, {once: true});
    return;
  }
  setTimeout(() => resolve({leaving: !!window.__dgLeaving}), 30);
})"""
LOADED_JS = "() => !window.__dgLeaving && document.readyState === 'complete'"
VIEWPORT = {"width": 1280, "height": 800}


class StepTimeout(envs.StepTimeout):
    """The page did not answer within the step timeout (a hung page)."""


@dataclass
class EpisodeOutcome:
    """For the episode record only (never shown to agents or defenses)."""

    success: bool
    deceived: bool
    final_url: str
    answer: str
    scratchpad: str
    blocked_requests: int
    clicks: int
    facts: EpisodeFacts = field(repr=False, default_factory=EpisodeFacts)


class ArenaEnv:
    """Episodes of tasks served at `origin` (the arena server or a user's site)."""

    def __init__(
        self,
        origin: str,
        screenshots: bool = False,
        step_timeout_s: float = 10.0,
        watch: Iterable[str] = (),
    ):
        """`watch`: the click and input selectors of the tasks to come, when known (one browser
        context then serves them all)."""
        self.origin = origin.rstrip("/")
        self.screenshots = screenshots
        self.timeout_ms = step_timeout_s * 1000
        self._deadline_s = deadline_s(step_timeout_s)
        self._watchdog: Watchdog | None = None  # ends a browser that stalls past the deadline
        self._pw = None
        self._browser = None
        self._context = None
        self.page = None
        self.task: Task | None = None
        self.steps = 0
        self.answer = ""
        self._facts = EpisodeFacts()
        self._guard = RequestGuard()
        self._last: PageObservation | None = None
        self._watching: set[str] = set(watch)
        self._origins: set[str] = set()  # storage to clear before the next episode
        self._home = None  # the kept tab and its DevTools session
        self._home_target: dict[str, str] = {}  # its targetId and browserContextId (DevTools)
        self._browser_cdp = None  # the browser's DevTools session (lists every tab)
        self._hung = False  # a step timed out: the browser is not kept (see `reset`)

    # -- browser lifetime -------------------------------------------------------------------
    def _ensure_browser(self) -> None:
        if self._browser is None or not self._browser.is_connected():
            if self._pw is None:
                self._pw = sync_playwright().start()
            if self._watchdog is not None:
                self._watchdog.retire()
            self._browser = launch(self._pw)
            self._browser_cdp = self._browser.new_browser_cdp_session()
            self._watchdog = Watchdog(browser_pid(self._browser_cdp))

    def restart_browser(self) -> None:
        """After a crash: a fresh browser for the next episode."""
        with contextlib.suppress(PlaywrightError):
            if self._browser is not None:
                self._browser.close()
        self._browser = None
        self._browser_cdp = None
        if self._watchdog is not None:
            self._watchdog.retire()
        self._watchdog = None
        self._context = None
        self._watching = set()

    def close(self) -> None:
        # The browser takes its context and tabs along: closing a tab or a context whose page is
        # still arriving can hang without a timeout (see `_leave_last_episode`).
        self._hung = False
        self.restart_browser()
        if self._pw is not None:
            self._pw.stop()
            self._pw = None

    def _close_context(self) -> None:
        if self._context is not None:
            with contextlib.suppress(PlaywrightError):
                self._context.close()
            self._context = None

    # -- episode ------------------------------------------------------------------------------
    def _record(self, _source, event: dict) -> None:
        hits = frozenset(event.get("hits", ()))
        if event.get("kind") == "click":
            self._facts.clicks.append(hits)
        else:
            self._facts.typed.append((hits, str(event.get("value", ""))))

    def _on_page(self, page) -> None:
        page.set_default_timeout(self.timeout_ms)
        self.page = page  # a link that opens a new tab continues there

    def _fresh_page(self, watch: tuple[str, ...]) -> None:
        """A blank tab with no cookies, no storage and no history. The browser context (its route
        guard, recorder binding and init script) and its first tab are kept across episodes
        while the context already watches the task's selectors (a new tab costs a renderer
        process, about a third of an episode); a selector outside it costs a new context
        watching both."""
        self._leave_last_episode()
        if self._context is None or not set(watch) <= self._watching:
            self._close_context()
            self._watching |= set(watch)
            context = self._browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
            context.set_default_timeout(self.timeout_ms)
            context.route("**/*", self._route)
            context.expose_binding("__dgRecord", self._record)
            watched = json.dumps(sorted(self._watching))
            context.add_init_script(RECORDER_JS.replace("WATCHED", watched))
            self._context = context
            self._home = self._new_home()
            context.on("page", self._on_page)
        else:
            self._wipe_tab()
        self.page = self._home[0]

    def _route(self, route) -> None:
        parsed = urlparse(route.request.url)
        if parsed.scheme in ("http", "https"):
            self._origins.add(f"{parsed.scheme}://{parsed.netloc}")
        self._guard(route)

    def _new_home(self):
        page = self._context.new_page()
        cdp = self._context.new_cdp_session(page)
        info = cdp.send("Target.getTargetInfo")["targetInfo"]
        self._home_target = {k: info[k] for k in ("targetId", "browserContextId")}
        return page, cdp

    def _leave_last_episode(self) -> None:
        """End the last episode's pages before the next one starts. The kept tab leaves its
        document, so that none of its timers, pop-ups or storage writes runs later. A tab it
        opened ends with the browser: that includes a pop-up whose first page has not arrived
        yet, which DevTools lists but Playwright does not. Otherwise the late page would open
        in the next episode and take over its tab. Closing the tab or its context instead can
        hang without a timeout when the page commits meanwhile (Chromium via Playwright)."""
        if self._context is None:
            return
        page = self._home[0]
        try:
            with self._guarded():
                if not page.is_closed():
                    page.goto("about:blank")
                closed = page.is_closed() or self._other_tabs()
            if closed:
                self.restart_browser()
        except (PlaywrightError, StepTimeout):  # the kept tab does not answer
            self._hung = False
            self.restart_browser()
        if self._browser is None:
            self._ensure_browser()

    def _other_tabs(self) -> bool:
        """Whether the context holds a tab besides the kept one (DevTools' list of targets)."""
        if self._browser_cdp is None:
            self._browser_cdp = self._browser.new_browser_cdp_session()
        home = self._home_target
        return any(
            t["type"] == "page"
            and t["browserContextId"] == home["browserContextId"]
            and t["targetId"] != home["targetId"]
            for t in self._browser_cdp.send("Target.getTargets")["targetInfos"]
        )

    def _wipe_tab(self) -> None:
        """The kept tab (alone in its context, on a blank page: `_leave_last_episode`) as a new
        one would be: the cookies and every origin's storage of the last episode (session
        storage included: it belongs to the tab) cleared; `reset` then drops its history."""
        cdp = self._home[1]
        self._context.clear_cookies()
        for origin in sorted(self._origins):
            cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
            for local in (False, True):
                with contextlib.suppress(PlaywrightError):  # an origin without that storage
                    cdp.send(
                        "DOMStorage.clear",
                        {"storageId": {"securityOrigin": origin, "isLocalStorage": local}},
                    )
        self._origins.clear()

    def goal(self, task: Task) -> str:
        return task.goal

    def reset(self, task: Task) -> PageObservation:
        if self._hung:
            # After a step timed out the tab may still be waiting for its page. Closing the tab or
            # its context then hangs (Chromium via Playwright, when the late response commits
            # while they close; no timeout applies), so the browser is replaced instead: closing
            # a launched browser ends its process.
            self._hung = False
            self.restart_browser()
        self._ensure_browser()
        self.task, self.steps, self.answer = task, 0, ""
        self._facts, self._guard = EpisodeFacts(), RequestGuard()
        self._fresh_page(selectors_of(task.success, task.deception).events)
        with self._guarded():
            self._navigate(lambda: self.page.goto(self.origin + task.start, wait_until="load"))
        self._home[1].send("Page.resetNavigationHistory")  # no way back to the last episode
        return self.observe()

    def _timeout(self, message: str) -> StepTimeout:
        self._hung = True
        return StepTimeout(message)

    @contextlib.contextmanager
    def _guarded(self) -> Iterator[None]:
        """Calls into the browser, bounded by the watchdog's deadline: past it the browser is
        ended, and the error of the call it broke is the step's timeout."""
        dog = self._watchdog
        if dog is None:
            yield
            return
        try:
            with dog.bounded(self._deadline_s):
                yield
        except PlaywrightError:
            if dog.fired:
                raise self._timeout(
                    f"the browser did not answer within {self._deadline_s:g} s and was ended"
                ) from None
            raise

    def _navigate(self, go) -> None:
        try:
            go()
        except PlaywrightError as err:
            if "Timeout" in str(err):
                raise self._timeout(str(err).splitlines()[0]) from None
            raise

    def _settle(self) -> None:
        """Wait until the page has reacted to the last action: the tasks the action queued run
        first (an in-page timer), and a navigation it started (marked by the recorder on
        `beforeunload` / `pagehide`) ends in a loaded next document; a next document that is
        already there is waited for until its load event and the tasks queued then. Independent
        of how busy the machine is, so an episode takes the same course every run."""
        try:
            with self._guarded():
                try:
                    handle = self.page.wait_for_function(  # an interval: animation frames lag
                        LEAVING_JS, timeout=self.timeout_ms, polling=5
                    )
                    leaving = handle.json_value()["leaving"]
                except PlaywrightError as err:
                    if "Timeout" in str(err) or "closed" in str(err).lower():
                        raise
                    leaving = True  # the next document committed while we asked
                if leaving:
                    self.page.wait_for_function(LOADED_JS, timeout=self.timeout_ms, polling=20)
                self.page.wait_for_load_state("load", timeout=self.timeout_ms)
        except PlaywrightError as err:
            if "Timeout" in str(err):
                raise self._timeout("the page did not finish loading") from None
            raise

    def observe(self, error: str = "", done: bool = False) -> PageObservation:
        """The current observation (what an agent sees)."""
        try:
            with self._guarded():
                handle = self.page.wait_for_function(
                    f"({OBSERVE_JS})()", timeout=self.timeout_ms, polling=100
                )
                raw = handle.json_value()
        except PlaywrightError as err:
            if "Timeout" in str(err):
                raise self._timeout("the page did not answer") from None
            if "context was destroyed" in str(err) or "navigation" in str(err).lower():
                self._settle()
                return self.observe(error, done)
            raise
        with self._guarded():
            shot = self.page.screenshot(timeout=self.timeout_ms) if self.screenshots else None
        elements = tuple(
            Element(
                e["index"],
                e["role"],
                e["name"],
                e["text"],
                e["context"],
                e["state"],
                tuple(e["box"]),
                e["prominence"],
                e["covered"],
                e["in_dialog"],
                e["href"],
            )
            for e in raw["elements"]
        )
        assert self.task is not None
        done = done or self.steps >= self.task.max_steps
        self._last = PageObservation(
            self.task.goal,
            raw["url"],
            raw["title"],
            raw["text"],
            elements,
            self.steps,
            self.task.max_steps,
            shot,
            done,
            error,
        )
        return self._last

    def _element(self, index: int):
        if self._last is None or not 0 <= index < len(self._last.elements):
            raise IndexError(f"no element {index} on the page")
        handle = self.page.evaluate_handle("(i) => window.__dgEls && window.__dgEls[i]", index)
        element = handle.as_element()
        if element is None:
            raise IndexError(f"element {index} is gone from the page")
        return element

    def _point(self, index: int) -> dict:
        """Scroll element `index` into view; the viewport point of its centre."""
        if self._last is None or not 0 <= index < len(self._last.elements):
            raise IndexError(f"no element {index} on the page")
        point = self.page.evaluate(POINT_JS, index)
        if point is None:
            raise IndexError(f"element {index} is gone from the page")
        return point

    @property
    def last_observation(self) -> PageObservation | None:
        return self._last

    def skip_step(self, error: str = "") -> PageObservation:
        """A step of the task's budget spent without acting (a proposal a defense turned back)."""
        self.steps += 1
        return self.observe(error)

    def step(self, action: Action, count: bool = True) -> PageObservation:
        """Execute `action`; errors of an action (a missing element, an unknown option) come back
        in the observation's `error`, a hung page raises `StepTimeout`. `count=False`: a
        defense's internal action (logged like any click, not a step of the task)."""
        assert self.task is not None
        if isinstance(action, Stop):
            self.answer = action.answer
            return self.observe(done=True)
        self.steps += int(count)
        error = ""
        try:
            with self._guarded():
                self._act(action)
        except (IndexError, ValueError) as err:
            error = str(err)
        except PlaywrightError as err:
            if "Timeout" in str(err):
                raise self._timeout(str(err).splitlines()[0]) from None
            if "closed" in str(err).lower() or "crash" in str(err).lower():
                raise
            error = str(err).splitlines()[0]
        self._settle()
        return self.observe(error)

    def _act(self, action: Action) -> None:
        page = self.page
        if isinstance(action, Click):
            point = self._point(action.index)
            page.mouse.click(point["x"], point["y"])
        elif isinstance(action, Type):
            element = self._element(action.index)
            element.fill(action.text)
            if action.enter:
                element.press("Enter")
        elif isinstance(action, Select):
            element = self._element(action.index)
            try:
                element.select_option(label=action.option, timeout=self.timeout_ms)
            except PlaywrightError as err:
                raise ValueError(f"element {action.index} has no option {action.option!r}") from err
        elif isinstance(action, Scroll):
            page.mouse.wheel(0, action.dy)
        elif isinstance(action, Goto):
            url = urljoin(page.url, action.url)
            self._navigate(lambda: page.goto(url, wait_until="load"))
        elif isinstance(action, Back):
            self._navigate(lambda: page.go_back(wait_until="load"))
        else:
            raise ValueError(f"unknown action {action!r}")

    def outcome(self) -> EpisodeOutcome:
        """T and D of the finished episode, judged from the click log and the final page."""
        assert self.task is not None
        watched = selectors_of(self.task.success, self.task.deception)
        facts = self._facts
        facts.answer = self.answer
        try:
            final = self.page.evaluate(FINAL_JS, list(watched.final))
            facts.final_url = self.page.url
        except PlaywrightError:
            final = {"text": {}, "checked": {}, "scratchpad": ""}
            facts.final_url = self._last.url if self._last else ""
        facts.final_text, facts.final_checked = final["text"], final["checked"]
        facts.scratchpad = final["scratchpad"]
        return EpisodeOutcome(
            success=holds(self.task.success, facts),
            deceived=holds(self.task.deception, facts),
            final_url=facts.final_url,
            answer=self.answer,
            scratchpad=facts.scratchpad,
            blocked_requests=len(self._guard.blocked),
            clicks=len(facts.clicks),
            facts=facts,
        )
