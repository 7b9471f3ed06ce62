"""Stage 2 (Algorithm 1): pool dynamics with a scripted evaluator and summarizer."""

from __future__ import annotations

import random

import pytest

from darkguard.config import LoopParams, load_config
from darkguard.training.dude.stage2 import (
    PoolJudge,
    Validation,
    accepts,
    cap_words,
    sample_failures,
    summarize_experience,
)


def loop(**changes) -> LoopParams:
    """Algorithm 1's settings: those Stage 2 ran with before it read params.yaml, changed."""
    values = {
        "failure_batch": 15,
        "anchor_batch": 5,
        "max_iterations": 50,
        "patience": 3,
        "max_experience_words": 300,
        "acceptance": "last",
        "seed": 42,
    }
    return LoopParams(**{**values, **changes})


def rates(*values: float):
    """validate() answering the pass rates `values` in turn (benign acceptance 1)."""
    it = iter(values)
    return lambda x: Validation(next(it), 1.0)


def sample(cid: str, label: int) -> dict:
    return {"click_id": cid, "label": label, "task": f"task {cid}"}


class ScriptedSummarizer:
    def __init__(self) -> None:
        self.calls: list[tuple[list[str], list[int], str]] = []

    def summarize(self, failures, kappa, experience):
        self.calls.append(([f["click_id"] for f in failures], list(kappa), experience))
        return f"rule {len(self.calls)}"


def scripted_judge(script: dict[str, set[str]]):
    """Under experience `rule t`, the click ids in script['rule t'] are judged right."""
    seen = []

    def judge(samples, experience):
        seen.append((experience, sorted(s["click_id"] for s in samples)))
        right = script.get(experience, set())
        return [s["label"] if s["click_id"] in right else 9 for s in samples]

    judge.seen = seen
    return judge


def test_pool_dynamics_exactly() -> None:
    failures = [sample("f1", 1), sample("f2", -1), sample("f3", 0)]
    successes = [sample("s1", 1), sample("s2", 0)]
    script = {
        "rule 1": {"f1", "s1", "s2"},  # fixes f1
        "rule 2": {"f2", "s1", "f1"},  # fixes f2, breaks anchor s2 (f1 is an anchor now)
        "rule 3": {"f3", "s2", "s1", "f1", "f2"},  # fixes f3 and s2 again
    }
    summarizer, judge = ScriptedSummarizer(), scripted_judge(script)
    params = loop(failure_batch=10, anchor_batch=10, max_iterations=10)
    state = summarize_experience(
        failures, successes, summarizer, judge, rates(0.5, 0.6, 0.7, 0.8), params
    )

    # iteration 1: B_f = all failures with kappa 1; f2 and f3 stay with kappa 2
    assert sorted(summarizer.calls[0][0]) == ["f1", "f2", "f3"]
    assert summarizer.calls[0][1] == [1, 1, 1] and summarizer.calls[0][2] == ""
    # iteration 2 sees the counters and the previous experience
    ids, kappa, previous = summarizer.calls[1]
    assert dict(zip(ids, kappa, strict=True)) == {"f2": 2, "f3": 2} and previous == "rule 1"
    # iteration 3: s2 came back to F with kappa 1 + 1 (line 13, from 1: it never had one)
    ids, kappa, _ = summarizer.calls[2]
    assert dict(zip(ids, kappa, strict=True)) == {"f3": 3, "s2": 2}
    assert len(summarizer.calls) == 3  # F empty after iteration 3
    assert state.failure == {} and sorted(state.success) == ["f1", "f2", "f3", "s1", "s2"]
    assert state.experience == "rule 3"
    assert [(r["failure"], r["success"], r["fixed"], r["broken_anchors"]) for r in state.log] == [
        (3, 2, 0, 0),
        (2, 3, 1, 0),
        (2, 3, 1, 1),
        (0, 5, 2, 0),
    ]
    assert [r["valid_pass_rate"] for r in state.log] == [0.5, 0.6, 0.7, 0.8]
    # every validation pass judged B_f and B_s with the new experience
    assert judge.seen[1] == ("rule 2", ["f1", "f2", "f3", "s1", "s2"])  # f1 is an anchor now
    assert judge.seen[2] == ("rule 3", ["f1", "f2", "f3", "s1", "s2"])


def test_validation_batches_are_the_failure_and_anchor_batches() -> None:
    failures = [sample("f1", 1), sample("f2", -1)]
    successes = [sample("s1", 1)]
    judge = scripted_judge({"rule 1": {"f1", "s1"}})
    state = summarize_experience(
        failures,
        successes,
        ScriptedSummarizer(),
        judge,
        rates(0.5, 0.5),
        loop(failure_batch=5, anchor_batch=5, max_iterations=1),
    )
    assert judge.seen == [("rule 1", ["f1", "f2", "s1"])]
    assert state.kappa == {"f1": 1, "f2": 2}


def test_stops_after_patience_without_improvement() -> None:
    failures = [sample("f1", 1)]
    state = summarize_experience(
        failures,
        [],
        ScriptedSummarizer(),
        scripted_judge({}),
        rates(0.5, 0.6, 0.6, 0.55, 0.6, 0.9),
        loop(failure_batch=1, anchor_batch=1, max_iterations=50, patience=3),
    )
    assert [r["iteration"] for r in state.log] == [0, 1, 2, 3, 4]  # 0.6 best, then 3 stale
    assert state.kappa == {"f1": 5} and state.experience == "rule 4"


def test_stops_at_max_iterations() -> None:
    state = summarize_experience(
        [sample("f1", 1)],
        [],
        ScriptedSummarizer(),
        scripted_judge({}),
        lambda x: Validation(len(x) / 100, 1.0),  # improves every time
        loop(max_iterations=2),
    )
    assert [r["iteration"] for r in state.log] == [0, 1, 2]


def test_failed_anchor_returns_with_its_counter_incremented() -> None:
    """Algorithm 1 line 13 for an anchor judged wrong: kappa(x) <- kappa(x) + 1, from its count
    as a failure if it was one, from 1 if it never had a counter; never reset."""
    failures = [sample("f1", 1), sample("f2", 0)]
    script = {
        "rule 1": {"s1"},  # f1 and f2 resist: kappa 2
        "rule 2": {"f1", "s1"},  # fixes f1 (kappa 2 kept), f2 resists: kappa 3
        "rule 3": {"f2"},  # breaks anchors f1 (2 -> 3) and s1 (never had one: 1 -> 2)
    }
    summarizer = ScriptedSummarizer()
    state = summarize_experience(
        failures,
        [sample("s1", 1)],
        summarizer,
        scripted_judge(script),
        rates(0.1, 0.2, 0.3, 0.4),
        loop(failure_batch=10, anchor_batch=10, max_iterations=3),
    )
    assert state.kappa == {"f1": 3, "f2": 3, "s1": 2}
    assert sorted(state.failure) == ["f1", "s1"] and sorted(state.success) == ["f2"]
    assert state.log[-1]["broken_anchors"] == 2


def test_predicted_is_the_latest_judgement() -> None:
    """The summarizer is shown each failure with the label it was last judged, never its own
    truth; the caller's pool entries are not changed."""
    failures = [{**sample("f1", -1), "predicted": 1}]
    successes = [{**sample("s1", 1), "predicted": 1}, {**sample("s2", 0), "predicted": 0}]
    answers = {  # experience -> click id -> label judged
        "rule 1": {"f1": 0, "s1": -1, "s2": 0},  # f1 wrong another way, breaks s1
        "rule 2": {"f1": 1, "s1": 0, "s2": 1},  # breaks s2
        "rule 3": {"f1": -1, "s1": 1, "s2": 0},  # all right
    }
    shown: list[list[tuple[str, int, int | None]]] = []

    class Summarizer:
        def summarize(self, cases, kappa, experience):
            shown.append([(c["click_id"], c["label"], c["predicted"]) for c in cases])
            return f"rule {len(shown)}"

    def judge(samples, experience):
        return [answers[experience][s["click_id"]] for s in samples]

    state = summarize_experience(
        failures,
        successes,
        Summarizer(),
        judge,
        rates(0.1, 0.2, 0.3, 0.4),
        loop(failure_batch=10, anchor_batch=10, max_iterations=3),
    )
    assert shown[0] == [("f1", -1, 1)]
    assert sorted(shown[1]) == [("f1", -1, 0), ("s1", 1, -1)]
    assert sorted(shown[2]) == [("f1", -1, 1), ("s1", 1, 0), ("s2", 0, 1)]
    assert all(label != predicted for call in shown for _, label, predicted in call)
    assert state.failure == {} and state.success["f1"]["predicted"] == -1
    assert failures == [{**sample("f1", -1), "predicted": 1}]  # the inputs are not changed


def test_without_patience_runs_exactly_t_iterations() -> None:
    def run(patience: int | None) -> list[int]:
        state = summarize_experience(
            [sample("f1", 1)],
            [],
            ScriptedSummarizer(),
            scripted_judge({}),
            lambda x: Validation(0.5, 1.0),  # never improves
            loop(max_iterations=7, patience=patience),
        )
        return [r["iteration"] for r in state.log]

    assert run(None) == list(range(8))
    assert run(3) == [0, 1, 2, 3]


def test_without_patience_still_stops_when_f_is_empty() -> None:
    state = summarize_experience(
        [sample("f1", 1)],
        [],
        ScriptedSummarizer(),
        scripted_judge({"rule 1": {"f1"}}),
        lambda x: Validation(0.5, 1.0),
        loop(max_iterations=7, patience=None),
    )
    assert [r["iteration"] for r in state.log] == [0, 1] and state.failure == {}


def test_the_iteration_sweep_runs_without_patience() -> None:
    from darkguard.stages.stage2_summarize import sweep
    from darkguard.training.dude.stage2 import Stage2State

    seen = []

    class Miner:
        def loop(self, failure, success, params):
            seen.append(params)
            row = {"iteration": params.max_iterations, "valid_pass_rate": 0.5}
            row |= {"benign_acceptance": 1.0, "accepted": True}
            return Stage2State({}, {}, {}, "", [row])

    settings = load_config().stage2
    rows = sweep(Miner(), [], [], settings)
    batch, iters = seen[: len(settings.sweeps.batches)], seen[len(settings.sweeps.batches) :]
    assert [p.max_iterations for p in iters] == settings.sweeps.iterations
    assert all(p.patience is None for p in iters)
    assert batch and all(p.patience == settings.loop.patience == 3 for p in batch)
    assert [r["sweep"] for r in rows].count("iterations") == len(settings.sweeps.iterations)


class FakePoolJudge(PoolJudge):
    """PoolJudge with scripted answers: experience -> click id -> label (memo and rates real)."""

    def __init__(self, answers: dict[str, dict[str, int]]) -> None:
        super().__init__(None, None, {})  # type: ignore[arg-type]
        self.answers = answers

    def _generate(self, samples, experience):
        self.calls += len(samples)
        return [self.answers[experience][s["click_id"]] for s in samples]


VALID = [sample("v1", 1), sample("v2", 1), sample("v3", -1), sample("v4", 0)]
BREAKS_BENIGN = {  # "rule 1" makes the evaluator refuse every click, "rule 2" helps
    "": {"v1": 1, "v2": 1, "v3": 1, "v4": 1, "f1": 1},  # pass 0.5, benign 1
    "rule 1": {"v1": -1, "v2": -1, "v3": -1, "v4": -1, "f1": -1},  # pass 0.25, benign 0
    "rule 2": {"v1": 1, "v2": 1, "v3": -1, "v4": 1, "f1": -1},  # pass 0.75, benign 1
}


def test_pool_judge_benign_acceptance_uses_the_memo() -> None:
    judge = FakePoolJudge(BREAKS_BENIGN)
    assert judge.validation(VALID, "") == Validation(0.5, 1.0)
    assert judge.validation(VALID, "rule 1") == Validation(0.25, 0.0)
    assert judge.calls == 8  # pass rate and benign acceptance: one judgement per click
    assert judge.benign_acceptance([sample("v3", -1)], "") == 1.0  # no benign click


def run_acceptance(rule: str):
    judge = FakePoolJudge(BREAKS_BENIGN)
    summarizer = ScriptedSummarizer()
    state = summarize_experience(
        [sample("f1", -1)],
        [],
        summarizer,
        judge.labels,
        lambda x: judge.validation(VALID, x),
        loop(failure_batch=5, anchor_batch=5, max_iterations=5, acceptance=rule),
    )
    return state, summarizer


def test_guarded_acceptance_rejects_an_experience_that_breaks_benign_clicks() -> None:
    state, summarizer = run_acceptance("guarded")
    first, second = state.log[1], state.log[2]
    assert first["accepted"] is False and first["proposal_benign_acceptance"] == 0.0
    assert first["valid_pass_rate"] == 0.5 and first["benign_acceptance"] == 1.0
    assert first["failure"] == 1  # f1 judged again with the kept (empty) experience: wrong
    assert summarizer.calls[1][2] == ""  # the next proposal starts from the kept experience
    assert second["accepted"] is True and second["valid_pass_rate"] == 0.75
    assert state.experience == "rule 2" and state.kappa == {"f1": 2} and state.failure == {}
    assert all(r["benign_acceptance"] >= state.log[0]["benign_acceptance"] for r in state.log)


def test_last_acceptance_is_algorithm_1() -> None:
    state, _ = run_acceptance("last")
    assert state.log[1]["accepted"] is True and state.experience == "rule 1"
    assert state.log[-1]["benign_acceptance"] == 0.0 and state.failure == {}


@pytest.mark.parametrize(
    ("proposed", "current", "expected"),
    [
        (Validation(0.6, 0.9), Validation(0.5, 0.5), True),
        (Validation(0.6, 0.7), Validation(0.5, 0.5), False),  # benign below no experience's
        (Validation(0.4, 0.9), Validation(0.5, 0.5), False),  # pass rate below current's
        (Validation(0.5, 0.8), Validation(0.5, 0.5), True),  # equal is not lower
    ],
)
def test_guarded_rule(proposed: Validation, current: Validation, expected: bool) -> None:
    baseline = Validation(0.3, 0.8)
    assert accepts("guarded", proposed, baseline, current) is expected
    assert accepts("last", proposed, baseline, current) is True


def test_failure_sampling_prefers_persistent_failures_and_is_seeded() -> None:
    failure = {f"f{i}": {} for i in range(10)}
    kappa = {cid: 1 for cid in failure} | {"f7": 50}
    first = [sample_failures(failure, kappa, 3, random.Random(s))[0] for s in range(200)]
    assert first.count("f7") > 150
    a = sample_failures(failure, kappa, 4, random.Random(42))
    assert a == sample_failures(failure, kappa, 4, random.Random(42)) and len(set(a)) == 4


def test_cap_words_keeps_whole_lines() -> None:
    text = "one two three\nfour five\nsix seven eight nine"
    assert cap_words(text, 100) == text
    assert cap_words(text, 6) == "one two three\nfour five"
    assert cap_words("a b c d e", 3) == "a b c"


def test_permute_labels_rotates_only_the_advice() -> None:
    from darkguard.training.dude.guidance import permute_labels, unrelated_text

    text = "- A (1) were x: judge such clicks 1. [persistence 2]\n- B: judge such clicks -1."
    assert permute_labels(text) == (
        "- A (1) were x: judge such clicks -1. [persistence 2]\n- B: judge such clicks 0."
    )
    assert len(unrelated_text(37).split()) == 37


def test_guidance_check_measures_changes_against_no_experience() -> None:
    from darkguard.training.dude.guidance import guidance_check

    class FollowsAdvice:
        def labels(self, samples, experience):
            if "judge such clicks 1" in experience:
                return [1] * len(samples)
            if "judge such clicks -1" in experience:
                return [-1] * len(samples)
            return [0] * len(samples)

    clicks = [sample("a", 1), sample("b", 1), sample("c", 0), sample("d", -1)]
    rows = guidance_check(FollowsAdvice(), clicks, "- R: judge such clicks 1.")
    by_name = {r["guidance"]: r for r in rows}
    assert by_name["no experience"] == {
        "guidance": "no experience",
        "pass_rate": 0.25,
        "decisions_changed": 0.0,
    }
    assert by_name["final experience"]["pass_rate"] == 0.5
    assert by_name["final experience"]["decisions_changed"] == 1.0
    assert by_name["advised labels rotated"]["pass_rate"] == 0.25  # all -1
    assert by_name["unrelated text, same length"]["decisions_changed"] == 0.0


def test_pool_judge_parses_answers_with_the_experience_in_the_prompt(release) -> None:
    import json

    from darkguard.defenses.dude.evaluator import Evaluator
    from darkguard.defenses.dude.inputs import PAPER_INPUTS
    from darkguard.ruc.clicks import generate_clicks
    from darkguard.training.dude.stage2 import PoolJudge

    records = {str(r["id"]): r for r in json.loads((release / "full.json").read_text())}
    clicks, _ = generate_clicks(list(records.values()), 1, 42)

    class Backend:
        max_pixels = 128 * 128

        def __init__(self) -> None:
            self.seen: list = []

        def generate(self, conversations, max_new_tokens=None):
            self.seen += conversations
            return ["<judge>1</judge> <conf>0.9</conf>", "nonsense"] * (len(conversations) // 2) + [
                "<judge>0</judge> <conf>0.5</conf>"
            ] * (len(conversations) % 2)

    backend = Backend()
    judge = PoolJudge(Evaluator(backend, PAPER_INPUTS), release, records)
    labels = judge.labels(clicks[:3], "Rule X.")
    assert labels == [1, None, 0]
    assert "[IMPORTANT GUIDANCE]\nRule X." in backend.seen[0][0]["content"]
    judge.labels(clicks[:1], "")
    assert "[IMPORTANT GUIDANCE]" not in backend.seen[-1][0]["content"]
    assert judge.calls == 4
    seen = len(backend.seen)
    assert judge.labels(clicks[:3], "Rule X.") == [1, None, 0]  # a repeated call: the memo
    assert len(backend.seen) == seen and judge.calls == 4
    judge.labels(clicks[:3], "Rule Y.")  # another experience is judged again
    assert len(backend.seen) == seen + 3 and judge.calls == 7


def test_guidance_report_states_the_target_and_whether_it_is_met() -> None:
    from darkguard.reports.stage2_summarize import guidance_met, guidance_table

    def rows(unrelated: float) -> list[dict]:
        return [
            {"guidance": "no experience", "pass_rate": 0.5, "decisions_changed": 0.0},
            {"guidance": "final experience", "pass_rate": 0.7, "decisions_changed": 0.3},
            {
                "guidance": "unrelated text, same length",
                "pass_rate": 0.5,
                "decisions_changed": unrelated,
            },
        ]

    table = guidance_table(rows(0.05)).set_index("guidance")
    assert table.loc["unrelated text, same length", "meets target"] == "yes"
    assert table.loc["unrelated text, same length", "target"] == "< 10% of decisions changed"
    assert table.loc["final experience", "meets target"] == "-"
    assert guidance_table(rows(0.6625)).iloc[2]["meets target"] == "no"
    assert guidance_met(rows(0.10)) is False and guidance_met([]) is None


def test_stage2_reports_show_rejections_and_the_guidance_target(monkeypatch, tmp_path) -> None:
    import json

    from darkguard.reports.stage2_summarize import write_stage2_reports
    from darkguard.stages.stage2_summarize import Stage2Result

    monkeypatch.setenv("DARKGUARD_REPORTS", str(tmp_path))
    state, _ = run_acceptance("guarded")
    check = [
        {"guidance": "no experience", "pass_rate": 0.5, "decisions_changed": 0.0},
        {"guidance": "unrelated text, same length", "pass_rate": 0.5, "decisions_changed": 0.25},
    ]
    settings = load_config().stage2
    result = Stage2Result(settings, 1, 0, state, 0.5, 0.75, [], 2, check)
    tables = write_stage2_reports(result, "tiny", 2)
    assert tables["stage2/iterations"]["accepted"].tolist() == [None, False, True]
    assert tables["stage2/summary"].loc[0, "Rejected proposals"] == 1
    md = (tmp_path / "tables/stage2/guidance_check.md").read_text()
    assert "meets target" in md and "< 10% of decisions changed" in md
    metrics = json.loads((tmp_path / "metrics/stage2.json").read_text())
    assert metrics["guidance_meets_target"] is False and metrics["rejected_proposals"] == 1
    assert metrics["acceptance"] == "guarded"
