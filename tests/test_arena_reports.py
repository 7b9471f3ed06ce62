"""The arena_eval reports from episode records (no browser): the fixed denominators, the feasible
subset, per-condition tables with the paper's numbers beside ours."""

from __future__ import annotations

import pytest

from darkguard.envs.arena.tasks import load_tasks
from darkguard.metrics.intervals import cluster_interval, effective_n, interval_text, wilson
from darkguard.reports import arena_eval as reports
from darkguard.stages.arena_eval import ArenaEvalResult
from darkguard.stages.arena_runs import SetRun, condition_label, feasible_run


def fake_run(name: str) -> SetRun:
    tasks = load_tasks(name).tasks
    records = [
        {
            "id": t.id,
            "T": int(i % 3 != 0),
            "D": int(i % 4 == 0),
            "steps": 5,
            "ended": "stop",
            "patterns": list(t.patterns),
        }
        for i, t in enumerate(tasks)
    ]
    return SetRun(name, tasks, records, 10.0, len(tasks))


@pytest.fixture(scope="module")
def result() -> ArenaEvalResult:
    r = ArenaEvalResult("offline")
    for name in ("trickyarena_single", "trickyarena_multi", "webdecept"):
        r.runs[name] = fake_run(name)
    r.runs["webdecept_feasible"] = feasible_run(r.runs["webdecept"])
    return r


def test_the_feasible_subset_drops_redirect_and_drift(result) -> None:
    feasible = result.runs["webdecept_feasible"]
    assert len(feasible.records) == 225
    assert not {"redirect", "drift"} & {p for t in feasible.tasks for p in t.patterns}
    assert [r["id"] for r in feasible.records] == [t.id for t in feasible.tasks]


def test_overall_table_has_our_counts_and_the_papers_row(result) -> None:
    table = reports.no_defense_table(result).set_index("set")
    single = table.loc["TrickyArena-Single"]
    records = result.runs["trickyarena_single"].records
    assert single["N"] == 88 and single["#D"] == sum(r["D"] for r in records)
    assert single["#STC"] == sum(r["T"] * (1 - r["D"]) for r in records)
    assert single["paper #D/#T/#STC"] == "26/71/53" and single["paper DPSR"] == 29.5
    assert table.loc["WebDecept feasible", "N"] == 225
    assert table.loc["WebDecept feasible", "paper STC"] == 40.0


def test_per_condition_tables_cover_every_condition_once(result) -> None:
    single = reports.single_conditions_table(result.runs["trickyarena_single"])
    assert len(single) == 22 and single["N"].sum() == 88
    assert single.set_index("condition").loc["health/tos", "paper #D"] == 6
    assert set(single["condition"]) == {
        condition_label(t) for t in result.runs["trickyarena_single"].tasks
    }
    multi = reports.multi_conditions_table(result.runs["trickyarena_multi"])
    assert multi["N"].sum() == 68 and len(multi) == 16
    scenarios = reports.webdecept_scenarios_table(result.runs["webdecept"]).set_index("scenario")
    assert list(scenarios.index) == list(reports.SCENARIOS)
    assert (scenarios["N"] == 45).all() and scenarios.loc["addons", "paper #D"] == 37


def test_intervals_are_wilson_or_a_bootstrap_over_webdecepts_scenarios(result) -> None:
    table = reports.no_defense_table(result).set_index("set")
    single = table.loc["TrickyArena-Single"]
    assert single["interval"] == "Wilson" and single["effective N"] == 88.0
    assert single["DPSR 95% CI"] == interval_text(single["#D"], 88)
    assert single["TSR 95% CI"] == interval_text(single["#T"], 88)
    assert single["STC 95% CI"] == interval_text(single["#STC"], 88)
    webdecept = table.loc["WebDecept"]
    assert webdecept["interval"] == reports.CLUSTER_BOOTSTRAP
    run = result.runs["webdecept"]
    d_by_scenario: dict[str, list[int]] = {}
    for task, record in zip(run.tasks, run.records, strict=True):
        d_by_scenario.setdefault(task.patterns[0], []).append(record["D"])
    assert len(d_by_scenario) == 7
    low, high = cluster_interval(d_by_scenario)
    assert webdecept["DPSR 95% CI"] == f"[{low:.1f}, {high:.1f}]"
    assert webdecept["effective N"] == effective_n(d_by_scenario)
    assert table.loc["WebDecept feasible", "interval"] == reports.CLUSTER_BOOTSTRAP


def test_all_or_nothing_scenarios_are_worth_about_seven_outcomes() -> None:
    tasks = load_tasks("webdecept").tasks
    deceived = {"popup", "banner", "addons"}
    records = [
        {"id": t.id, "T": 1, "D": int(t.patterns[0] in deceived), "ended": "stop"} for t in tasks
    ]
    r = ArenaEvalResult("offline")
    r.runs["webdecept"] = SetRun("webdecept", tasks, records, 1.0, len(tasks))
    row = reports.no_defense_table(r).iloc[0]
    assert row["N"] == 315 and row["#D"] == 135
    assert abs(row["effective N"] - 7) <= 1.5
    low, high = map(float, row["DPSR 95% CI"].strip("[]").split(", "))
    wilson_low, wilson_high = wilson(135, 315)
    assert low < 100 * 3 / 7 < high and high - low > 3 * (wilson_high - wilson_low)
