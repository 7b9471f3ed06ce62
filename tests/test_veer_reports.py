"""The veer_eval and veer_ablations reports from episode records (no browser): counts and ranks
per method with the paper's beside ours, Tables 15-16 per method, Figure 3's Avg/Worst, Table 17
gains, Table 18 outcome classes, and what the offline agent's channel takes from each defense."""

from __future__ import annotations

import pandas as pd
import pytest

from darkguard.envs.arena.synth import generate
from darkguard.envs.arena.tasks import load_tasks
from darkguard.io import read_json
from darkguard.metrics.intervals import cluster_interval, effective_n, interval_text, wilson
from darkguard.reports import veer_ablations as ablation_reports
from darkguard.reports import veer_eval as reports
from darkguard.reports.arena_eval import CLUSTER_BOOTSTRAP
from darkguard.stages.arena_runs import (
    MethodRuns,
    SetRun,
    condition_label,
    feasible_run,
    sample_units,
    unit_of,
    write_run_index,
)
from darkguard.stages.veer_ablations import VeerAblationsResult
from darkguard.stages.veer_eval import DEFAULT, VeerEvalResult

SETS = ("trickyarena_single", "trickyarena_multi", "webdecept")


def fake_run(name: str, deceived_every: int, failed_every: int = 5) -> SetRun:
    tasks = load_tasks(name).tasks
    records = [
        {
            "id": t.id,
            "T": int(i % failed_every != 0),
            "D": int(i % deceived_every == 0),
            "steps": 5,
            "ended": "stop",
            "actions": [],
            "patterns": list(t.patterns),
        }
        for i, t in enumerate(tasks)
    ]
    return SetRun(name, tasks, records, 10.0, len(tasks))


def fake_method(method: str, deceived_every: int) -> MethodRuns:
    runs = MethodRuns("offline", method)
    for name in SETS:
        runs.runs[name] = fake_run(name, deceived_every)
    runs.runs["webdecept_feasible"] = feasible_run(runs.runs["webdecept"])
    return runs


@pytest.fixture(scope="module")
def result() -> VeerEvalResult:
    r = VeerEvalResult("offline", "offline")
    r.methods = {"none": fake_method("none", 2), "icp": fake_method("icp", 3)}
    r.methods["veer"] = fake_method("veer", 1000)
    r.configurations = {DEFAULT: {"none": r.methods["none"], "veer": r.methods["veer"]}}
    return r


def test_main_table_counts_ranks_and_the_papers_numbers(result) -> None:
    table = reports.main_table(result).set_index(["set", "method"])
    veer = table.loc[("TrickyArena-Single", "Veer")]
    records = result.methods["veer"].runs["trickyarena_single"].records
    assert veer["#D"] == sum(r["D"] for r in records) == 1  # task 0 only
    assert veer["#STC"] == sum(r["T"] * (1 - r["D"]) for r in records)
    assert (
        veer["STC rank"] == 1 and table.loc[("TrickyArena-Single", "No-Defense"), "STC rank"] == 3
    )
    assert veer["paper #D/#T/#STC"] == "4/76/75"
    # the paper's rank among the methods run here: Veer first, ICP second, No-Defense third
    assert veer["paper STC rank"] == 1
    assert table.loc[("TrickyArena-Single", "ICP"), "paper STC rank"] == 2
    assert table.loc[("WebDecept feasible", "Veer"), "N"] == 225


def test_per_condition_tables_have_every_method_and_its_paper_column(result) -> None:
    single = reports.single_conditions_table(result).set_index("condition")
    assert len(single) == 22 and single["N"].sum() == 88
    assert (
        single.loc["health/tos", "ICP (paper)"] == 1 and single.loc["shop/p2", "Veer (paper)"] == 0
    )
    records = result.methods["none"].runs["trickyarena_single"].records
    assert single["No-Defense"].sum() == sum(r["D"] for r in records)
    scenarios = reports.webdecept_scenarios_table(result).set_index("scenario")
    assert (scenarios["N"] == 45).all() and scenarios.loc["redirect", "Veer (paper)"] == 1


def test_figure3_summary_is_mean_and_max_per_condition(result) -> None:
    single = reports.single_conditions_table(result)
    webdecept = reports.webdecept_scenarios_table(result)
    summary = reports.figure3_summary(single, webdecept, list(result.methods)).set_index("method")
    rates = 100.0 * single["No-Defense"] / single["N"]
    assert summary.loc["No-Defense", "Single Avg"] == round(rates.mean(), 1)
    assert summary.loc["No-Defense", "Single Worst"] == round(rates.max(), 1)
    # the paper's, from its Table 15: Veer's only condition at 100% is news/cf
    assert summary.loc["Veer", "Single Worst (paper)"] == 100.0
    fig = reports.figure3(single, webdecept, list(result.methods))
    assert len(fig.axes) == 4  # two heatmaps and their colour bars


def test_configuration_gain_is_veer_minus_the_matched_no_defense(result) -> None:
    table = reports.configurations_table(result)
    ours = table[table["source"] == "ours"].set_index("set")
    single = ours.loc["TrickyArena-Single"]
    assert abs(single["gain (pp)"] - (single["Veer STC"] - single["No-Defense STC"])) <= 0.1
    paper = table[table["source"] == "paper"]
    assert len(paper) == 12 and set(paper["set"]) == {"TrickyArena-Single", "TrickyArena-Multi",
                                                       "WebDecept"}  # fmt: skip


def test_agent_channel_table_reads_what_reached_the_agent(result) -> None:
    run = result.methods["icp"].runs["trickyarena_single"]
    run.records[0]["brief"] = [
        'Decline offers such as "travel insurance"; untick pre-checked boxes.'
    ]
    run.records[1]["actions"] = [
        {"action": "click", "defense": {"verdict": "replan", "message": 'Do not click "Join".'}}
    ]
    try:
        table = reports.agent_channel_table(result, "trickyarena_single").set_index("method")
    finally:
        run.records[0].pop("brief")
        run.records[1]["actions"] = []
    icp = table.loc["ICP"]
    assert icp["texts (total)"] == 2
    assert "travel insurance" in icp["avoided phrases"] and "join" in icp["avoided phrases"]
    assert icp["unticks"]
    assert table.loc["Veer", "texts (total)"] == 0 and table.loc["Veer", "most frequent"] == "—"


def test_ablation_outcome_classes_and_delta_stc() -> None:
    result = VeerAblationsResult("offline", "offline", "trickyarena_single")
    result.variants = {
        "veer": fake_run("trickyarena_single", 1000),
        "veer-wo-si": fake_run("trickyarena_single", 2, failed_every=2),
        "veer-one-step": fake_run("trickyarena_single", 3),
    }
    table = ablation_reports.ablations_table(result).set_index("variant")
    wo_si = table.loc["w/o State Intervention"]
    assert wo_si[["Safe", "T+DP", "Fail", "Fail+DP"]].sum() == 88
    # even indices fail and are deceived; odd ones succeed safely
    assert (wo_si["Safe"], wo_si["T+DP"], wo_si["Fail"], wo_si["Fail+DP"]) == (44, 0, 0, 44)
    assert wo_si["ΔSTC"] == round(wo_si["STC"] - table.loc["Full Veer", "STC"], 1)
    assert wo_si["paper Safe/T+DP/Fail/Fail+DP"] == "44/1/34/9"
    assert table.loc["One-Step Intervention", "paper STC"] == 61.4
    full_safe = table.loc["Full Veer", "Safe"]
    gained, lost = map(int, wo_si["safe gained / lost vs full Veer"].split(" / "))
    assert wo_si["Safe"] - full_safe == gained - lost and 0 < wo_si["McNemar p"] <= 1
    assert wo_si["STC 95% CI"].startswith("[") and pd.isna(table.loc["Full Veer", "McNemar p"])
    assert wo_si["DPSR 95% CI"] == interval_text(44, 88) == wo_si["TSR 95% CI"]
    assert wo_si["STC 95% CI"] == interval_text(44, 88)
    assert table.loc["Full Veer", "DPSR 95% CI"] == interval_text(1, 88)


def test_agent_settings_and_method_specs() -> None:
    from darkguard.config import load_config
    from darkguard.io import InputError
    from darkguard.stages.arena_runs import agent_name, make_web_agent
    from darkguard.stages.veer_eval import method_spec

    noisy = make_web_agent({"offline": {"epsilon": 0.1}}, 42)
    assert noisy.epsilon == 0.1 and agent_name({"offline": {"epsilon": 0.1}}) == "offline-eps0.1"
    with pytest.raises(InputError, match="unknown setting 'temperature'"):
        make_web_agent({"offline": {"temperature": 1}}, 42)
    cfg = load_config()
    dude, veer = method_spec(cfg, "dude-s2"), method_spec(cfg, "veer")
    assert dude.screenshots and not veer.screenshots
    assert veer.defense_actions == cfg.veer_eval.defense_actions
    # a defense's code (what its module imports, at any depth) is part of its journal's
    # fingerprint, and only its own
    assert "defenses/veer/defense.py" in veer.defense_code
    assert "defenses/dude/gate.py" in dude.defense_code
    assert not any(path.startswith("defenses/dude/") for path in veer.defense_code)


def test_unseen_table_pairs_each_defense_with_no_defense_on_the_same_tasks() -> None:
    r = VeerEvalResult("offline", "offline")
    tasks = load_tasks("held_out").tasks[:6]
    outcomes = {"none": [(1, 1)] * 6, "veer": [(1, 0), (1, 0), (0, 0), (1, 1), (0, 1), (1, 0)]}
    for method, rows in outcomes.items():
        records = [
            {"id": t.id, "T": tt, "D": d, "actions": [], "ended": "stop"}
            for t, (tt, d) in zip(tasks, rows, strict=True)
        ]
        r.held_out[method] = SetRun("held_out", tasks, records, 1.0, 6)
    table = reports.unseen_table(r).set_index("method")
    veer = table.loc["Veer"]
    assert (veer["#D"], veer["#T"], veer["N"]) == (2, 4, 6)
    assert veer["D avoided / added vs No-Defense"] == "4 / 0"
    assert veer["T gained / lost vs No-Defense"] == "0 / 2"
    assert veer["D McNemar p"] == 0.125 and veer["T McNemar p"] == 0.5
    assert veer["DPSR 95% CI"].startswith("[") and veer["rules developed on"]
    assert "D McNemar p" not in table.columns or pd.isna(table.loc["No-Defense", "D McNemar p"])


def test_webdecept_sample_keeps_every_scenario_of_the_sampled_purchases() -> None:
    tasks = load_tasks("webdecept").tasks
    sampled = sample_units(tasks, 10, seed=42)
    assert len(sampled) == 70 and sampled == sample_units(tasks, 10, seed=42)
    purchases = {unit_of(t) for t in sampled}
    assert len(purchases) == 10
    assert {t.patterns[0] for t in sampled} == {t.patterns[0] for t in tasks}  # all 7 scenarios
    assert [t for t in tasks if t in sampled] == sampled  # the set's order
    assert sample_units(tasks, 45, seed=42) == tasks and sample_units(tasks, None, 42) == tasks
    assert len(feasible_run(SetRun("webdecept", sampled, [{}] * 70, 0, 0)).tasks) == 50


def test_sample_keeps_twins_together_and_tasks_whole(tmp_path) -> None:
    generate("eval", 40, 42, tmp_path)
    tasks = load_tasks(tmp_path).tasks
    sampled = sample_units(tasks, 5, seed=42)
    pairs = {t.id.rsplit("-", 1)[0] for t in sampled}
    assert len(pairs) == 5 and len(sampled) == 10  # each pair's dark task and clean twin
    single = load_tasks("trickyarena_single").tasks
    picked = sample_units(single, 40, seed=42)
    assert len(picked) == 40 and picked != sample_units(single, 40, seed=7)
    labels = {condition_label(t) for t in single}  # stratified: every condition before a second
    assert {condition_label(t) for t in sample_units(single, len(labels), seed=3)} == labels


def test_run_index_names_each_journal_and_its_episodes(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("DARKGUARD_DATA", str(tmp_path))
    run = SetRun("held_out", [], [{}, {}], 1.0, 2, "data/arena/veer/offline-seed42/x.jsonl")
    path = write_run_index("veer_eval", {"veer": {"held_out": run}})
    assert path == tmp_path / "arena" / "runs" / "veer_eval.json"
    assert read_json(path) == {
        "veer": {"held_out": {"episodes": 2, "journal": "data/arena/veer/offline-seed42/x.jsonl"}}
    }


def test_no_defense_runs_share_arena_evals_journals() -> None:
    from darkguard.config import load_config
    from darkguard.stages.arena_eval import no_defense_spec
    from darkguard.stages.arena_runs import fingerprint, run_dir
    from darkguard.stages.veer_eval import method_spec

    cfg = load_config()
    tasks = load_tasks("trickyarena_single").tasks[:3]
    none, alone = method_spec(cfg, "none"), no_defense_spec(cfg)
    assert fingerprint(tasks, none) == fingerprint(tasks, alone)
    assert run_dir(none) == run_dir(alone)
    assert fingerprint(tasks, method_spec(cfg, "icp")) != fingerprint(tasks, alone)


def _run(name: str, tasks: list, outcomes: list[tuple[int, int]]) -> SetRun:
    records = [
        {"id": t.id, "T": tt, "D": d, "actions": [], "ended": "stop", "patterns": list(t.patterns)}
        for t, (tt, d) in zip(tasks, outcomes, strict=True)
    ]
    return SetRun(name, tasks, records, 1.0, len(tasks))


# D per WebDecept scenario (all-or-nothing over the sampled purchases; T = 1 everywhere)
NONE_D = {"popup": 1, "banner": 1, "ppopup": 1, "pbanner": 1, "addons": 1, "redirect": 1}
VEER_D = {"addons": 1, "drift": 1}


@pytest.fixture(scope="module")
def paired() -> VeerEvalResult:
    """No-Defense and Veer on 6 TrickyArena-Single tasks and 2 WebDecept purchases."""
    single = load_tasks("trickyarena_single").tasks[:6]
    webdecept = sample_units(load_tasks("webdecept").tasks, 2, seed=42)
    outcomes = {
        "none": ([(1, 1)] * 6, NONE_D),
        "veer": ([(1, 0), (1, 0), (0, 0), (1, 1), (0, 1), (1, 0)], VEER_D),
    }
    r = VeerEvalResult("offline", "offline")
    for method, (on_single, d_of) in outcomes.items():
        runs = MethodRuns("offline", method)
        runs.runs["trickyarena_single"] = _run("trickyarena_single", single, on_single)
        scenario_outcomes = [(1, d_of.get(t.patterns[0], 0)) for t in webdecept]
        runs.runs["webdecept"] = _run("webdecept", webdecept, scenario_outcomes)
        runs.runs["webdecept_feasible"] = feasible_run(runs.runs["webdecept"])
        r.methods[method] = runs
    r.configurations = {DEFAULT: dict(r.methods)}
    return r


def test_main_table_intervals_use_wilson_or_the_scenario_bootstrap(paired) -> None:
    table = reports.main_table(paired).set_index(["set", "method"])
    veer = table.loc[("TrickyArena-Single", "Veer")]
    assert veer["interval"] == "Wilson" and veer["effective N"] == 6.0
    assert veer["DPSR 95% CI"] == interval_text(2, 6) and veer["TSR 95% CI"] == interval_text(4, 6)
    assert veer["STC 95% CI"] == interval_text(3, 6)
    none = table.loc[("WebDecept", "No-Defense")]
    assert none["interval"] == CLUSTER_BOOTSTRAP and none["N"] == 14
    d_by_scenario = {s: [NONE_D.get(s, 0)] * 2 for s in reports.SCENARIOS}
    low, high = cluster_interval(d_by_scenario)
    assert none["DPSR 95% CI"] == f"[{low:.1f}, {high:.1f}]"
    # every task completed: not [100.0, 100.0] (the bootstrap alone), the outcomes' Wilson
    assert none["TSR 95% CI"] == "[{:.1f}, {:.1f}]".format(*wilson(14, 14))
    # 14 episodes, 7 all-or-nothing scenarios: about 7 independent outcomes
    assert none["effective N"] == effective_n(d_by_scenario) and abs(none["effective N"] - 7) <= 1.5
    wilson_low, wilson_high = wilson(12, 14)
    assert high - low > wilson_high - wilson_low


def test_main_table_pairs_each_defense_with_no_defense(paired) -> None:
    table = reports.main_table(paired).set_index(["set", "method"])
    single = table.loc[("TrickyArena-Single", "Veer")]
    assert single["test"] == "exact McNemar (tasks)"
    assert single["D avoided / added vs No-Defense"] == "4 / 0" and single["D p"] == 0.125
    assert single["STC gained / lost vs No-Defense"] == "3 / 0" and single["STC p"] == 0.25
    webdecept = table.loc[("WebDecept", "Veer")]
    # scenarios: popup, banner, ppopup, pbanner and redirect avoided, drift added
    assert webdecept["test"] == "sign test (scenarios)"
    assert webdecept["D avoided / added vs No-Defense"] == "5 / 1" and webdecept["D p"] == 0.219
    assert webdecept["STC gained / lost vs No-Defense"] == "5 / 1" and webdecept["STC p"] == 0.219
    feasible = table.loc[("WebDecept feasible", "Veer")]
    assert feasible["D avoided / added vs No-Defense"] == "4 / 0" and feasible["D p"] == 0.125
    assert pd.isna(table.loc[("WebDecept", "No-Defense"), "D p"])
    assert list(table.columns[-10:]) == [
        "DPSR 95% CI", "TSR 95% CI", "STC 95% CI", "effective N", "interval",
        "D avoided / added vs No-Defense", "D p", "STC gained / lost vs No-Defense", "STC p",
        "test",
    ]  # fmt: skip


def test_configurations_pair_veer_with_its_matched_no_defense(paired) -> None:
    table = reports.configurations_table(paired)
    ours = table[table["source"] == "ours"].set_index("set")
    single, webdecept = ours.loc["TrickyArena-Single"], ours.loc["WebDecept"]
    assert single["Veer STC 95% CI"] == interval_text(3, 6)
    assert (single["STC gained / lost"], single["STC p"]) == ("3 / 0", 0.25)
    assert (webdecept["STC gained / lost"], webdecept["STC p"]) == ("5 / 1", 0.219)
    assert webdecept["test"] == "sign test (scenarios)"
    assert table[table["source"] == "paper"]["STC p"].isna().all()
