"""The one loop (`darkguard.loop.episode`) on a scripted static page with scripted defenses: a
defense's own clicks (through the episode's browser) act on the environment before the agent's
click, rejections are fed back to the agent, a stack of defenses reviews in order, and episodes
in lockstep run as each would alone (the RUC cases of the last are in test_guard.py)."""

from __future__ import annotations

from PIL import Image

from darkguard.agents import Rejection, Stateless
from darkguard.defenses import Reviewer, Stack, Verdict
from darkguard.envs import Observation
from darkguard.loop.ruc import run_episodes
from darkguard.metrics.clicks import Episode, Step
from darkguard.models.parsing import Click

POPUP = Image.new("RGB", (200, 100), "red")  # the page behind a pop-up
PAGE = Image.new("RGB", (200, 100), "white")  # the page once the pop-up is closed
CLOSE, GOAL, TRAP, LEAVE, ELSEWHERE = (5, 5), (50, 50), (150, 50), (195, 95), (100, 90)


class PopupEnv:
    """A page behind a pop-up. A click on CLOSE removes the pop-up (another screenshot); one on
    GOAL ends the episode in success, on TRAP deceived, on LEAVE with no result; anything else
    changes nothing. Records every executed action."""

    def __init__(self) -> None:
        self.executed: list[tuple[float, float]] = []
        self.result = "null"
        self.popup = True
        self.task = ""
        self.t_max, self.steps = 3, 0

    def goal(self, task: str) -> str:
        return task

    def reset(self, task: str) -> Observation:
        self.task, self.popup, self.result, self.steps = task, True, "null", 0
        return self.observe()

    def observe(self, done: bool = False) -> Observation:
        page = POPUP if self.popup else PAGE
        return Observation(page, self.task, done=done or self.steps >= self.t_max)

    def skip_step(self, error: str = "") -> Observation:
        self.steps += 1
        return self.observe()

    def grade(self, action: Click) -> int:
        return {GOAL: 1, TRAP: -1}.get((action.x, action.y), 0)

    def step(self, action: Click, count: bool = True) -> Observation:
        self.steps += int(count)
        xy = (action.x, action.y)
        self.executed.append(xy)
        self.popup = self.popup and xy != CLOSE
        hit = self.grade(action)
        if hit:
            self.result = "success" if hit == 1 else "deceived"
        return self.observe(done=hit != 0 or xy == LEAVE)


class ScriptedAgent(Stateless):
    """Proposes the scripted clicks in turn; records every request it gets."""

    name = "scripted"

    def __init__(self, clicks) -> None:
        self.clicks = list(clicks)
        self.requests: list[tuple[Image.Image, str, list]] = []

    def act(self, obs, rejected=()):
        self.requests.append((obs.image, obs.task, list(rejected)))
        return Click(*self.clicks.pop(0))


def act_then(verdict: Verdict, *clicks: tuple[float, float]) -> tuple:
    """A scripted review: the defense clicks `clicks` itself (until the episode ends), then
    answers `verdict`."""
    return (clicks, verdict)


class ScriptedDefense(Reviewer):
    """Answers the scripted reviews in turn (a verdict, or `act_then`); records what it reviews."""

    name = "scripted"

    def __init__(self, verdicts) -> None:
        self.verdicts = list(verdicts)
        self.reviewed: list[tuple[Observation, Click]] = []

    def review(self, obs, action, browser):
        self.reviewed.append((obs, action))
        return scripted_review(self.verdicts.pop(0), browser)


def scripted_review(script, browser) -> Verdict:
    clicks, verdict = script if isinstance(script, tuple) else ((), script)
    for xy in clicks:
        if browser.act(Click(*xy)).done:
            break
    return verdict


def episode_of(env: PopupEnv, task: str = "buy it", page_type: str = "Deception") -> tuple:
    return env, task, Episode(task, page_type, "Shop", "Pop-up")


def test_interventions_run_in_the_environment_before_the_agents_click() -> None:
    env = PopupEnv()
    agent = ScriptedAgent([GOAL])
    close = act_then(Verdict("release", label=1, tokens=5), CLOSE)
    defense = ScriptedDefense([close])
    (episode,) = run_episodes(agent, defense, [episode_of(env)])
    assert env.executed == [CLOSE, GOAL]  # the defense's action first, then the agent's
    assert episode.result == "success"
    assert episode.steps == [
        # the first intervention carries the tokens of the proposal and of its review
        Step("intervention", [5.0, 5.0], 0, None, True, "INTERVENTION", 0, 5),
        Step("click", [50.0, 50.0], 1, 1, True, "SAFE_MISS", 0, 0),
    ]
    assert defense.reviewed[0][0].image is POPUP  # reviewed on what the agent saw


def test_an_intervention_before_a_rejected_click_changes_what_the_agent_sees_next() -> None:
    env = PopupEnv()
    agent = ScriptedAgent([TRAP, GOAL])
    verdicts = [
        act_then(Verdict("replan", label=-1, tokens=5), CLOSE),
        Verdict("release", label=1, tokens=5),
    ]
    (episode,) = run_episodes(agent, ScriptedDefense(verdicts), [episode_of(env)])
    assert env.executed == [CLOSE, GOAL]  # the rejected TRAP click never executed
    assert [s.action for s in episode.steps] == ["intervention", "click", "click"]
    assert [s.outcome for s in episode.steps] == ["INTERVENTION", "SAFE_BLOCK", "SAFE_MISS"]
    assert [r[0] for r in agent.requests] == [POPUP, PAGE]  # the pop-up is gone
    assert agent.requests[1][2] == [Rejection(Click(*TRAP), -1)]
    assert episode.result == "success"


def test_an_intervention_that_ends_the_episode_ends_it() -> None:
    env = PopupEnv()
    agent = ScriptedAgent([ELSEWHERE, GOAL, GOAL])
    leave = act_then(Verdict("release", label=1, tokens=5), LEAVE, CLOSE)
    defense = ScriptedDefense([leave])
    (episode,) = run_episodes(agent, defense, [episode_of(env)])
    # neither the defense's later action nor the agent's click executes; no further step
    assert env.executed == [LEAVE]
    (step,) = episode.steps  # (which step carries the review's tokens is not pinned here)
    assert (step.action, step.click, step.hit, step.verdict, step.executed, step.outcome) == (
        "intervention",
        [195.0, 95.0],
        0,
        None,
        True,
        "INTERVENTION",
    )
    assert episode.result == "null" and len(agent.requests) == 1
    assert len(defense.reviewed) == 1

    env = PopupEnv()
    trap = act_then(Verdict("release", label=1), TRAP)  # a harmful defense
    (episode,) = run_episodes(ScriptedAgent([GOAL]), ScriptedDefense([trap]), [episode_of(env)])
    assert env.executed == [TRAP] and episode.result == "deceived"
    assert [s.hit for s in episode.steps] == [-1] and episode.step_count == 10


def test_a_rejected_click_is_fed_back_with_the_defenses_label() -> None:
    env = PopupEnv()
    agent = ScriptedAgent([TRAP, ELSEWHERE, GOAL])
    verdicts = [
        Verdict("replan", label=-1, tokens=3),
        Verdict("replan", label=None, tokens=3),  # unreadable: rejected, no label
        Verdict("replan", label=0, tokens=3),
    ]
    (episode,) = run_episodes(agent, ScriptedDefense(verdicts), [episode_of(env)], t_max=3)
    rejected = [r[2] for r in agent.requests]
    assert rejected == [
        [],
        [Rejection(Click(*TRAP), -1)],
        [Rejection(Click(*TRAP), -1), Rejection(Click(*ELSEWHERE), None)],
    ]
    assert all(isinstance(r, Rejection) for told in rejected for r in told)
    assert env.executed == [] and episode.result == "null"
    assert [s.verdict for s in episode.steps] == [-1, None, 0]
    assert [s.executed for s in episode.steps] == [False] * 3
    assert all(s.evaluator_tokens == 3 for s in episode.steps)


def test_an_allowed_click_is_not_fed_back() -> None:
    env = PopupEnv()
    agent = ScriptedAgent([ELSEWHERE, TRAP])
    verdicts = [Verdict("release", label=1), Verdict("release", label=1)]
    (episode,) = run_episodes(agent, ScriptedDefense(verdicts), [episode_of(env)])
    assert agent.requests[1][2] == [] and env.executed == [ELSEWHERE, TRAP]
    assert episode.result == "deceived"


class TaskAgent(Stateless):
    """Scripted clicks per task, answering whole batches (`act_many`)."""

    name = "batch"

    def __init__(self, scripts: dict[str, list]) -> None:
        self.scripts = {task: list(clicks) for task, clicks in scripts.items()}
        self.requests: dict[str, list] = {task: [] for task in scripts}

    def act_many(self, requests):
        out = []
        for obs, rejected in requests:
            self.requests[obs.task].append((obs.image, rejected))
            out.append((Click(*self.scripts[obs.task].pop(0)), 2))
        return out


class TaskDefense(Reviewer):
    """Scripted reviews per task (the observation's task text), answering whole batches."""

    name = "batch"

    def __init__(self, scripts: dict[str, list]) -> None:
        self.scripts = {task: list(verdicts) for task, verdicts in scripts.items()}
        self.batches: list[int] = []

    def review_many(self, proposals):
        self.batches.append(len(proposals))
        return [scripted_review(self.scripts[o.task].pop(0), b) for o, _, b in proposals]


def test_episodes_with_interventions_in_lockstep_run_as_each_would_alone() -> None:
    allow, reject = Verdict("release", label=1, tokens=4), Verdict("replan", label=-1, tokens=4)
    close_allow = act_then(allow, CLOSE)
    close_reject = act_then(Verdict("replan", label=0, tokens=4), CLOSE)
    leave = act_then(allow, LEAVE)
    cases = {
        "a": ([GOAL], [close_allow]),
        "b": ([TRAP, ELSEWHERE, GOAL], [close_reject, allow, allow]),
        "c": ([TRAP, GOAL], [reject, leave]),
        "d": ([ELSEWHERE, ELSEWHERE, ELSEWHERE], [allow, allow, allow]),
        "e": ([TRAP], [allow]),
    }
    envs = {task: PopupEnv() for task in cases}
    agent = TaskAgent({task: clicks for task, (clicks, _) in cases.items()})
    defense = TaskDefense({task: verdicts for task, (_, verdicts) in cases.items()})
    together = run_episodes(agent, defense, [episode_of(envs[t], t) for t in cases])
    assert [e.result for e in together] == ["success", "success", "null", "null", "deceived"]
    for task, episode in zip(cases, together, strict=True):
        clicks, verdicts = cases[task]
        env = PopupEnv()
        alone_agent = ScriptedAgent(clicks)
        (alone,) = run_episodes(alone_agent, ScriptedDefense(verdicts), [episode_of(env, task)])
        assert episode.sample_id == task
        assert [
            (s.action, s.click, s.hit, s.verdict, s.executed, s.outcome) for s in episode.steps
        ] == [(s.action, s.click, s.hit, s.verdict, s.executed, s.outcome) for s in alone.steps]
        assert episode.result == alone.result and envs[task].executed == env.executed
        assert agent.requests[task] == [
            (image, rejected) for image, _, rejected in alone_agent.requests
        ]
    assert defense.batches[0] == len(cases)  # the first reviews of all episodes in one batch


def test_a_stack_reviews_in_order_and_the_first_that_does_not_release_decides() -> None:
    first = ScriptedDefense([Verdict(label=1, tokens=2), Verdict(label=1, tokens=2)])
    second = ScriptedDefense([Verdict("replan", "no", tokens=3), Verdict(tokens=3)])
    third = ScriptedDefense([Verdict("terminate", "never asked")])
    env = PopupEnv()
    agent = ScriptedAgent([TRAP, GOAL])
    stack = Stack([first, second, third])
    assert stack.name == "scripted+scripted+scripted"
    (episode,) = run_episodes(agent, stack, [episode_of(env)])
    # both proposals went to the first two in turn; the third saw only what both released
    assert [a for _, a in first.reviewed] == [Click(*TRAP), Click(*GOAL)]
    assert [a for _, a in second.reviewed] == [Click(*TRAP), Click(*GOAL)]
    assert [a for _, a in third.reviewed] == [Click(*GOAL)]
    assert env.executed == [] and episode.result == "null"  # the third stopped the episode
    assert [s.executed for s in episode.steps] == [False, False]
    assert [s.evaluator_tokens for s in episode.steps] == [5, 5]  # every review's tokens
    assert [s.verdict for s in episode.steps] == [None, None]  # the deciding verdicts' labels
    assert agent.requests[1][2] == [Rejection(Click(*TRAP), None, "no")]
    # when all release, the stack releases with a judge's label and every review's tokens
    judge = ScriptedDefense([Verdict(label=1, tokens=2)])
    (released,) = Stack([judge, ScriptedDefense([Verdict(tokens=3)])]).review_many(
        [(Observation(PAGE, "t"), Click(*GOAL), None)]
    )
    assert (released.kind, released.label, released.tokens) == ("release", 1, 5)
