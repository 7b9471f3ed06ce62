"""The agent x environment x defense loop (`darkguard.loop`) on a scripted environment with a
scripted defense: a defense's interventions act on the environment before the agent's click,
rejections are fed back to the agent, and episodes in lockstep run as each would alone (the RUC
cases of the last are in test_guard.py)."""

from __future__ import annotations

from PIL import Image

from darkguard.agents import Rejection
from darkguard.defenses import Verdict
from darkguard.envs import Observation
from darkguard.loop import run_episodes
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

    def reset(self, task: str) -> Observation:
        self.task, self.popup, self.result = task, True, "null"
        return Observation(POPUP, task)

    def grade(self, action: Click) -> int:
        return {GOAL: 1, TRAP: -1}.get((action.x, action.y), 0)

    def step(self, action: Click) -> Observation:
        xy = (action.x, action.y)
        self.executed.append(xy)
        self.popup = self.popup and xy != CLOSE
        hit = self.grade(action)
        if hit:
            self.result = "success" if hit == 1 else "deceived"
        done = hit != 0 or xy == LEAVE
        return Observation(POPUP if self.popup else PAGE, self.task, done=done)


class ScriptedAgent:
    """Proposes the scripted clicks in turn; records every request it gets."""

    name = "scripted"

    def __init__(self, clicks) -> None:
        self.clicks = list(clicks)
        self.requests: list[tuple[Image.Image, str, list]] = []

    def propose(self, image, task, rejected):
        self.requests.append((image, task, list(rejected)))
        return Click(*self.clicks.pop(0))


class ScriptedDefense:
    """Answers the scripted verdicts in turn; records what it reviews."""

    name = "scripted"

    def __init__(self, verdicts) -> None:
        self.verdicts = list(verdicts)
        self.reviewed: list[tuple[Observation, Click]] = []

    def review_many(self, proposals):
        self.reviewed += proposals
        return [self.verdicts.pop(0) for _ in proposals]


def episode_of(env: PopupEnv, task: str = "buy it", page_type: str = "Deception") -> tuple:
    return env, task, Episode(task, page_type, "Shop", "Pop-up")


def test_interventions_run_in_the_environment_before_the_agents_click() -> None:
    env = PopupEnv()
    agent = ScriptedAgent([GOAL])
    close = Verdict(allow=True, label=1, tokens=5, interventions=(Click(*CLOSE),))
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
        Verdict(allow=False, label=-1, tokens=5, interventions=(Click(*CLOSE),)),
        Verdict(allow=True, label=1, tokens=5),
    ]
    (episode,) = run_episodes(agent, ScriptedDefense(verdicts), [episode_of(env)])
    assert env.executed == [CLOSE, GOAL]  # the rejected TRAP click never executed
    assert [s.action for s in episode.steps] == ["intervention", "click", "click"]
    assert [s.outcome for s in episode.steps] == ["INTERVENTION", "SAFE_BLOCK", "SAFE_MISS"]
    assert [r[0] for r in agent.requests] == [POPUP, PAGE]  # the pop-up is gone
    assert agent.requests[1][2] == [Rejection(*TRAP, -1)]
    assert episode.result == "success"


def test_an_intervention_that_ends_the_episode_ends_it() -> None:
    env = PopupEnv()
    agent = ScriptedAgent([ELSEWHERE, GOAL, GOAL])
    leave = Verdict(allow=True, label=1, tokens=5, interventions=(Click(*LEAVE), Click(*CLOSE)))
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
    trap = Verdict(allow=True, label=1, interventions=(Click(*TRAP),))  # a harmful defense
    (episode,) = run_episodes(ScriptedAgent([GOAL]), ScriptedDefense([trap]), [episode_of(env)])
    assert env.executed == [TRAP] and episode.result == "deceived"
    assert [s.hit for s in episode.steps] == [-1] and episode.step_count == 10


def test_a_rejected_click_is_fed_back_with_the_defenses_label() -> None:
    env = PopupEnv()
    agent = ScriptedAgent([TRAP, ELSEWHERE, GOAL])
    verdicts = [
        Verdict(allow=False, label=-1, tokens=3),
        Verdict(allow=False, label=None, tokens=3),  # unreadable: rejected, no label
        Verdict(allow=False, label=0, tokens=3),
    ]
    (episode,) = run_episodes(agent, ScriptedDefense(verdicts), [episode_of(env)], t_max=3)
    rejected = [r[2] for r in agent.requests]
    assert rejected == [
        [],
        [Rejection(*TRAP, -1)],
        [Rejection(*TRAP, -1), Rejection(*ELSEWHERE, None)],
    ]
    assert all(isinstance(r, Rejection) for told in rejected for r in told)
    assert env.executed == [] and episode.result == "null"
    assert [s.verdict for s in episode.steps] == [-1, None, 0]
    assert [s.executed for s in episode.steps] == [False] * 3
    assert all(s.evaluator_tokens == 3 for s in episode.steps)


def test_an_allowed_click_is_not_fed_back() -> None:
    env = PopupEnv()
    agent = ScriptedAgent([ELSEWHERE, TRAP])
    verdicts = [Verdict(allow=True, label=1), Verdict(allow=True, label=1)]
    (episode,) = run_episodes(agent, ScriptedDefense(verdicts), [episode_of(env)])
    assert agent.requests[1][2] == [] and env.executed == [ELSEWHERE, TRAP]
    assert episode.result == "deceived"


class TaskAgent:
    """Scripted clicks per task, answering whole batches (`propose_many`)."""

    name = "batch"

    def __init__(self, scripts: dict[str, list]) -> None:
        self.scripts = {task: list(clicks) for task, clicks in scripts.items()}
        self.requests: dict[str, list] = {task: [] for task in scripts}

    def propose_many(self, requests):
        out = []
        for image, task, rejected in requests:
            self.requests[task].append((image, rejected))
            out.append((Click(*self.scripts[task].pop(0)), 2))
        return out


class TaskDefense:
    """Scripted verdicts per task (the observation's task text)."""

    name = "batch"

    def __init__(self, scripts: dict[str, list]) -> None:
        self.scripts = {task: list(verdicts) for task, verdicts in scripts.items()}

    def review_many(self, proposals):
        return [self.scripts[observation.task].pop(0) for observation, _ in proposals]


def test_episodes_with_interventions_in_lockstep_run_as_each_would_alone() -> None:
    allow, reject = Verdict(allow=True, label=1, tokens=4), Verdict(False, -1, 4)
    close_allow = Verdict(True, 1, 4, (Click(*CLOSE),))
    close_reject = Verdict(False, 0, 4, (Click(*CLOSE),))
    leave = Verdict(True, 1, 4, (Click(*LEAVE),))
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
