"""The arena loop: journaled episodes that resume, a crashed browser costs one rerun, and a site
written from scratch runs end to end."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from darkguard.defenses import Passive
from darkguard.envs.arena.actions import Click, Stop
from darkguard.envs.arena.tasks import load_task_file
from darkguard.loop import arena as arena_loop

pytestmark = pytest.mark.browser
FIXTURE = Path(__file__).parent / "fixtures" / "arena_site" / "tasks.yaml"


class ScriptedAgent:
    """Takes the most prominent element, then stops (a stand-in for a base agent)."""

    name = "scripted"

    def __init__(self, crash_first: bool = False) -> None:
        self.crash_first = crash_first
        self.episodes = 0
        self.env = None

    def reset(self, goal: str, episode_key: str) -> None:
        self.episodes += 1
        self.acted = False

    def act(self, obs, rejected=()):
        if self.crash_first and self.episodes == 1 and self.env is not None:
            self.env._browser.close()  # the browser dies mid-episode
        if self.acted:
            return Stop("done")
        self.acted = True
        return Click(max(obs.elements, key=lambda e: e.prominence).index)


def tasks(n: int = 2):
    (task,) = load_task_file(FIXTURE)
    return [type(task)(**{**task.__dict__, "id": f"rail-{i}"}) for i in range(n)]


def test_episodes_are_journaled_and_a_rerun_resumes(tmp_path) -> None:
    journal = tmp_path / "episodes.jsonl"
    first = arena_loop.run_tasks(tasks(1), ScriptedAgent, journal_path=journal)
    assert [r["id"] for r in first] == ["rail-0"] and first[0]["D"] == 1
    assert first[0]["actions"][0]["name"] == "Yes, protect my trip"
    ran = []
    both = arena_loop.run_tasks(tasks(2), ScriptedAgent, journal, progress=ran.append)
    assert [r["id"] for r in ran] == ["rail-1"]  # rail-0 came from the journal
    assert [r["id"] for r in both] == ["rail-0", "rail-1"] and both[0] == first[0]
    lines = [json.loads(x) for x in journal.read_text().splitlines()]
    assert [r["id"] for r in lines] == ["rail-0", "rail-1"]


def test_a_crashed_browser_costs_one_rerun(monkeypatch) -> None:
    agent = ScriptedAgent(crash_first=True)
    real_env = arena_loop.ArenaEnv

    def make_env(*args, **kwargs):
        env = real_env(*args, **kwargs)
        agent.env = env
        return env

    monkeypatch.setattr(arena_loop, "ArenaEnv", make_env)
    (record,) = arena_loop.run_tasks(tasks(1), lambda: agent)
    assert record["attempts"] == 2 and record["ended"] == "stop" and record["D"] == 1


class AdvisedAgent(ScriptedAgent):
    """Clicks the most prominent element three times, then stops; keeps what a defense tells it."""

    def reset(self, goal: str, episode_key: str) -> None:
        super().reset(goal, episode_key)
        self.advice: list[str] = []
        self.clicks = 0

    def advise(self, text: str) -> None:
        self.advice.append(text)

    def act(self, obs, rejected=()):
        self.clicks += 1
        if self.clicks > 3:
            return Stop("done")
        return Click(max(obs.elements, key=lambda e: e.prominence).index)


class DeclineForTheAgent(Passive):
    """A defense that, at the agent's first click, clicks "No thanks" itself (an intervention
    through the browser), and turns back the agent's next proposal once."""

    name = "decline"

    def __init__(self, budget_probe: bool = False) -> None:
        self.budget_probe = budget_probe

    def reset(self, goal: str, episode_key: str) -> None:
        self.reviews = 0

    def brief(self) -> list[str]:
        return ["Be careful with pop-ups."]

    def review(self, obs, action, browser):
        from darkguard.defenses import RELEASE, Verdict

        self.reviews += 1
        if self.reviews == 1:
            decline = next(e for e in obs.elements if e.name == "No thanks")
            after = browser.act(Click(decline.index))
            while self.budget_probe:  # spends the budget: the loop ends the episode safely
                after = browser.act(Click(decline.index))
            return Verdict("intervened", observation=after)
        if self.reviews == 2:
            return Verdict("replan", "That button is not part of your task.")
        return RELEASE


def test_a_defense_reviews_every_proposal(tmp_path) -> None:
    agent = AdvisedAgent()
    (record,) = arena_loop.run_tasks(tasks(1), lambda: agent, make_defense=DeclineForTheAgent)
    first, second, *_ = record["actions"]
    assert first["defense"]["verdict"] == "intervened"
    assert first["defense_actions"][0]["name"] == "No thanks"  # its click, in the record
    assert second["defense"] == {
        "verdict": "replan",
        "message": "That button is not part of your task.",
    }
    assert agent.advice == ["Be careful with pop-ups.", "That button is not part of your task."]
    assert record["defense_actions"] == 1
    # the intervention is not a task step; the turned-back proposal is (then one click released)
    assert record["steps"] == 2


class MarkThePage(Passive):
    """A defense that shows the agent a delimited page text and warns it at every step."""

    name = "mark"

    def reset(self, goal: str, episode_key: str) -> None:
        self.steps = 0

    def prepare(self, obs):
        self.steps += 1
        return replace(obs, text=f"<<{obs.text}>>"), f"step {self.steps}: mind the pop-up"

    def review(self, obs, action, browser):
        from darkguard.defenses import RELEASE

        assert not obs.text.startswith("<<")  # the defense itself reviews the page as it is
        return RELEASE


def test_a_defense_prepares_what_the_agent_sees() -> None:
    agent = AdvisedAgent()
    seen: list[str] = []
    act = agent.act
    agent.act = lambda obs, rejected=(): (seen.append(obs.text), act(obs))[1]
    (record,) = arena_loop.run_tasks(tasks(1), lambda: agent, make_defense=MarkThePage)
    assert seen and all(t.startswith("<<") and t.endswith(">>") for t in seen)
    assert agent.advice[:2] == ["step 1: mind the pop-up", "step 2: mind the pop-up"]
    assert record["actions"][0]["advice"] == "step 1: mind the pop-up"


def test_a_defense_out_of_actions_ends_the_episode() -> None:
    agent = AdvisedAgent()
    (record,) = arena_loop.run_tasks(
        tasks(1),
        lambda: agent,
        make_defense=lambda: DeclineForTheAgent(budget_probe=True),
        defense_actions=3,
    )
    assert record["ended"] == "defense" and record["defense_actions"] == 3
    assert record["steps"] == 0 and record["D"] == 0


class AcceptForTheAgent(Passive):
    """A defense that itself clicks the pop-up's offer at the first proposal (a bad defense):
    its click must count as a click of the episode, judged like the agent's."""

    name = "accepts"

    def reset(self, goal: str, episode_key: str) -> None:
        self.done = False

    def review(self, obs, action, browser):
        from darkguard.defenses import RELEASE, Verdict

        if self.done:
            return RELEASE
        self.done = True
        offer = next(e for e in obs.elements if e.name == "Yes, protect my trip")
        return Verdict("intervened", observation=browser.act(Click(offer.index)))


def test_a_defenses_clicks_are_clicks_of_the_episode() -> None:
    class StopsAtOnce(AdvisedAgent):
        def act(self, obs, rejected=()):
            self.clicks += 1
            if self.clicks > 1:
                return Stop("done")
            return Click(next(e for e in obs.elements if e.name == "No thanks").index)

    (record,) = arena_loop.run_tasks(tasks(1), StopsAtOnce, make_defense=AcceptForTheAgent)
    # the agent never accepted the offer; the defense's own click did, and D counts it
    assert [a["name"] for a in record["actions"][0]["defense_actions"]] == ["Yes, protect my trip"]
    assert record["D"] == 1 and record["steps"] == 0  # its click is not a task step
