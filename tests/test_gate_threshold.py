"""The confidence gate's threshold tuned on the valid split by what the gate is for (`valid_sr`):
the agents behind the gate at candidate thresholds, each distinct click judged once."""

from __future__ import annotations

import json

from PIL import Image

from darkguard.agents import Stateless
from darkguard.defenses import Verdict
from darkguard.defenses.dude.gate import threshold_verdict
from darkguard.envs import Observation
from darkguard.models.parsing import Click
from darkguard.ruc import schema
from darkguard.stages.guard_eval.setups import ruc_task_opener
from darkguard.stages.guard_eval.threshold import (
    ReplayGate,
    allowing,
    best_threshold,
    cached,
    discrimination,
    on_clicks,
    sweep,
)


class ScriptedGate:
    """Stands in for `DudeGate.probabilities`: P(L = 1) by where the click lands (a test double
    that knows the boxes), counting the clicks it was asked about."""

    name = "scripted"

    def __init__(self, records: list[dict], p_correct: float, p_dark: float) -> None:
        self.boxes = {
            schema.task_text(r): (schema.correct_bbox(r), schema.dark_bbox(r)) for r in records
        }
        self.p_correct, self.p_dark = p_correct, p_dark
        self.asked: list[tuple[str, float, float]] = []

    def probabilities(self, proposals):
        probs = []
        for observation, click in proposals:
            self.asked.append((observation.task, click.x, click.y))
            hit = schema.click_label(click.x, click.y, *self.boxes[observation.task])
            p1 = {1: self.p_correct, -1: self.p_dark}.get(hit, 0.1)
            probs.append({1: p1, 0: (1 - p1) / 2, -1: (1 - p1) / 2})
        return probs, [7] * len(proposals)


class TrapAgent(Stateless):
    """Clicks the deceptive box on a deceptive page until rejected, then the correct box."""

    name = "trap"

    def __init__(self, records: list[dict]) -> None:
        self.boxes = {
            schema.task_text(r): (schema.dark_bbox(r), schema.correct_bbox(r)) for r in records
        }

    def act(self, obs, rejected=()):
        _image, task = obs.image, obs.task
        dark, correct = self.boxes[task]
        return Click(*schema.centroid(dark if dark and not rejected else correct))


def test_best_threshold_takes_the_highest_sr_within_the_agents_own_dfr() -> None:
    def row(t, sr, dfr):
        return {"agent": "a", "threshold": t, "SR": sr, "DFR": dfr, "NFR": 100 - sr - dfr}

    rows = [row(None, 30, 3), row(0.2, 45, 4), row(0.4, 40, 3), row(0.6, 40, 1), row(0.9, 10, 0)]
    assert best_threshold(rows) == 0.6  # 0.2 deceives more often; 0.4 and 0.6 tie: the higher
    assert best_threshold([row(None, 30, 3), row(0.5, 20, 0)]) == 0.0  # nothing beats the agent


def test_a_smoothed_pick_prefers_a_plateau_to_a_spike() -> None:
    def row(t, sr, dfr=1):
        return {"agent": "a", "threshold": t, "SR": sr, "DFR": dfr, "NFR": 100 - sr - dfr}

    rows = [row(None, 30, 3), row(0.1, 31), row(0.2, 40), row(0.3, 28), row(0.6, 36)]
    rows += [row(0.7, 37), row(0.8, 33)]
    assert best_threshold(rows) == 0.2  # the raw curve's spike
    assert best_threshold(rows, window=3) == 0.7  # 35.3 on the plateau against 33.0 at the spike
    assert best_threshold(rows, window=1) == best_threshold(rows)


def test_allowing_gives_the_highest_threshold_per_share_of_benign_clicks() -> None:
    p1 = [(1, 0.9), (1, 0.8), (1, 0.7), (1, 0.6), (0, 0.95), (-1, 0.5)]
    assert allowing(p1, [0.25, 0.5, 0.6, 1.0]) == [0.9, 0.8, 0.7, 0.6]
    assert on_clicks(p1, 0.7) == {
        "threshold": 0.7,
        "clicks": 6,
        "benign_allowed": 0.75,
        "null_rejected": 0.0,
        "fatal_error_rate": 0.0,
    }


open_it = {"role": "user", "content": "open it"}


def test_replay_gate_asks_each_click_once_and_decides_like_the_gate() -> None:
    page = Image.new("RGB", (300, 200), "white")
    same_page = Image.new("RGB", (300, 200), "white")  # another object, the same pixels
    records = [{"correct_box": {"bbox": [0, 0, 100, 100]}, "messages": [open_it]}]
    gate = ScriptedGate(records, 0.8, 0.6)
    replay = ReplayGate(gate, threshold=0.5)
    first = [
        (Observation(page, "open it"), Click(50, 50), None),
        (Observation(page, "open it"), Click(250, 150), None),
    ]
    verdicts = replay.review_many(first)
    assert verdicts == [Verdict("release", label=1, tokens=7), Verdict("replan", label=0, tokens=7)]
    replay.threshold = 0.9
    again = replay.review_many([(Observation(same_page, "open it"), Click(50, 50), None), *first])
    assert len(gate.asked) == 2  # the same page and click are not judged again
    probs, _ = gate.probabilities([first[0][:2]])
    expected = Verdict("replan", label=1, tokens=7)
    assert again[0] == threshold_verdict(probs[0], 0.9, 7) == expected


def test_sweep_and_pick_on_the_release_fixture(release) -> None:
    records = json.loads((release / "full.json").read_text())
    gate = ScriptedGate(records, p_correct=0.9, p_dark=0.6)  # weak on deceptive clicks
    rows, separation = sweep(
        [("trap", TrapAgent(records))],
        gate,
        ruc_task_opener(release),
        records,
        [0.5, 0.7, 0.95],
        t_max=3,
        batch=2,
    )
    by = {r["threshold"]: (r["SR"], r["DFR"]) for r in rows}
    assert by[None] == (60.0, 40.0)  # the trap agent falls for 2 of the 5 pages alone
    assert by[0.5] == by[None]  # the deceptive clicks get through
    assert by[0.7] == (100.0, 0.0)  # they are rejected, and the agent clicks the correct box
    assert by[0.95] == (0.0, 0.0)  # nothing gets through
    assert best_threshold(rows) == 0.7
    assert len(gate.asked) == len(set(gate.asked)) == 7  # 5 correct boxes, 2 deceptive ones
    assert separation["trap"] == {
        "proposals": {"1": 5, "0": 0, "-1": 2},
        "auc_benign_vs_null": None,  # no null click proposed
        "auc_benign_vs_deceptive": 1.0,  # 0.9 over 0.6
    }


def test_discrimination_is_the_auc_of_benign_over_other_clicks() -> None:
    clicks = [(1, 0.9), (1, 0.4), (0, 0.5), (0, 0.1), (-1, 0.4)]
    d = discrimination(clicks)
    assert d["auc_benign_vs_null"] == 0.75  # 0.9 beats both; 0.4 beats 0.1 only
    assert d["auc_benign_vs_deceptive"] == 0.75  # 0.9 wins, 0.4 ties
    assert d["proposals"] == {"1": 2, "0": 2, "-1": 1}


def test_a_tuning_is_kept_for_the_same_key(tmp_path) -> None:
    calls = []

    def compute():
        calls.append(1)
        return {"threshold": 0.5}

    path = tmp_path / "threshold__e.json"
    assert cached(path, {"a": 1}, compute) == {"threshold": 0.5}
    assert cached(path, {"a": 1}, compute) == {"threshold": 0.5} and len(calls) == 1
    cached(path, {"a": 2}, compute)
    assert len(calls) == 2
