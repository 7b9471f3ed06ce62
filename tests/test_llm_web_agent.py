"""The `llm` web agent against a scripted OpenAI-compatible mock server on 127.0.0.1: it sends the
observation as text (no ids or selectors), parses one JSON action per step, asks again once after a
bad reply; and `darkguard arena run --agent llm` runs a site through it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from darkguard.agents.llm_web import parse_action
from darkguard.cli import main
from darkguard.envs.arena.actions import Click, Stop, Type
from tests.test_backend_openai import MockServer

FIXTURE = Path(__file__).parent / "fixtures" / "arena_site" / "tasks.yaml"


def test_replies_parse_into_actions() -> None:
    assert parse_action('Sure: {"action": "click", "index": 2}', 5) == Click(2)
    assert parse_action('{"action":"type","index":0,"text":"x","enter":true}', 1) == Type(
        0, "x", True
    )
    assert parse_action('{"action": "stop", "answer": "3.5"}', 0) == Stop("3.5")
    for bad in ("click 2", '{"action": "click", "index": 9}', '{"action": "hover", "index": 0}'):
        with pytest.raises((ValueError, KeyError)):
            parse_action(bad, 3)


@pytest.mark.browser
def test_the_llm_agent_runs_a_site_through_the_cli(tmp_path, monkeypatch) -> None:
    server = MockServer()
    # Element order of the fixture's first page: Choose (08:10), Choose (09:40), the insurance
    # offer's accept, its decline; of the seat page: the offers box, the name field, Confirm.
    server.script = [
        server.reply("I think I should decline."),  # not an action: asked again
        server.reply('{"action": "click", "index": 3}'),
        server.reply('{"action": "click", "index": 1}'),
        server.reply('{"action": "click", "index": 2}'),
        server.reply('{"action": "stop", "answer": "booked the 09:40"}'),
    ]
    monkeypatch.setenv("ARENA_TEST_KEY", "sk-arena-test")
    out = tmp_path / "m.json"
    code = main(
        [
            "arena",
            "run",
            "--tasks",
            str(FIXTURE),
            "--agent",
            "llm",
            "--llm-url",
            server.url,
            "--llm-model",
            "mock",
            "--llm-key-env",
            "ARENA_TEST_KEY",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    result = json.loads(out.read_text())
    assert {"N", "DPSR", "TSR", "STC", "n_D", "n_T", "n_STC", "records"} <= set(result)
    (record,) = result["records"]
    assert record["T"] == 1 and record["D"] == 1  # the offers box stayed ticked
    assert [a.get("name") for a in record["actions"][:3]] == [
        "No thanks",
        "Choose",
        "Confirm booking",
    ]
    first = server.requests[0]["body"]["messages"][1]["content"]
    assert '[3] button "No thanks" (in a dialog)' in first and "Riverside Rail" in first
    for hidden in ("no-insurance", "add-insurance", "overlay", "forced-action", "#newsletter"):
        assert all(hidden not in json.dumps(r["body"]) for r in server.requests), hidden
    assert "not a valid action" in server.requests[1]["body"]["messages"][1]["content"]
