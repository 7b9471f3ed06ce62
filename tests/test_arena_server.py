"""The arena server: per-episode state, the condition switch, static sites, loopback only."""

from __future__ import annotations

import pytest
from flask import Blueprint

from darkguard.envs.arena import server
from darkguard.envs.arena.apps import ArenaApp
from darkguard.metrics.arena import by_pattern, score


@pytest.fixture
def demo(monkeypatch):
    bp = Blueprint("demo", __name__)

    @bp.get("/")
    def index():
        ep = server.episode()
        ep.state["visits"] += 1
        return f"visits={ep.state['visits']} on={sorted(ep.conditions)}"

    app = ArenaApp("demo", bp, frozenset({"a", "b"}), lambda c: {"visits": 0})
    monkeypatch.setattr(server, "registry", lambda: {"demo": app})
    main, partner = server.create_app()
    assert partner is None
    return main


def test_the_switch_makes_a_fresh_episode_and_leaves_the_address_bar(demo) -> None:
    client = demo.test_client()
    first = client.get("/demo/?dp=a_b")
    assert first.status_code == 302 and first.headers["Location"] == "/demo/"
    assert client.get("/demo/").text == "visits=1 on=['a', 'b']"
    assert client.get("/demo/").text == "visits=2 on=['a', 'b']"
    client.get("/demo/?dp=a")  # a new episode: fresh state
    assert client.get("/demo/").text == "visits=1 on=['a']"
    other = demo.test_client()  # another browser context: another episode
    assert other.get("/demo/").text == "visits=1 on=[]"
    assert client.get("/demo/?dp=zz").status_code == 400


def test_a_site_folder_is_served_with_index_pages(tmp_path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "index.html").write_text("home")
    (tmp_path / "sub" / "index.html").write_text("sub home")
    client = server.site_app(tmp_path).test_client()
    assert client.get("/").text == "home" and client.get("/sub/").text == "sub home"
    assert client.get("/../etc/passwd").status_code == 404


def test_served_binds_loopback_only(tmp_path) -> None:
    (tmp_path / "index.html").write_text("x")
    with server.Served(site=tmp_path) as served:
        assert served.origin.startswith("http://127.0.0.1:")


def test_scores_are_per_episode_and_stc_is_not_a_product() -> None:
    records = [
        {"id": "1", "T": 1, "D": 1, "patterns": ["p1"]},
        {"id": "2", "T": 1, "D": 0, "patterns": ["p1"]},
        {"id": "3", "T": 0, "D": 0, "patterns": ["w"], "ended": "timeout"},
        {"id": "4", "T": 0, "D": 1, "patterns": ["w"]},
    ]
    s = score(records, expected=4)
    assert (s.N, s.n_D, s.n_T, s.n_STC, s.timeouts) == (4, 2, 2, 1, 1)
    assert (s.DPSR, s.TSR, s.STC) == (50.0, 50.0, 25.0)
    correlated = score([{"id": "1", "T": 1, "D": 1}, {"id": "2", "T": 0, "D": 0}])
    assert correlated.STC == 0.0  # TSR x (1 - DPSR) would say 25
    assert by_pattern(records)["p1"].STC == 50.0
    with pytest.raises(ValueError, match="expected 88"):
        score(records, expected=88)
    with pytest.raises(ValueError, match="must be 0 or 1"):
        score([{"id": "x", "T": 2, "D": 0}])
