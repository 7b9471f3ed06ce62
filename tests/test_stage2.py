"""Stage 2 (Algorithm 1): pool dynamics with a scripted evaluator and summarizer."""

from __future__ import annotations

import random

from darkguard.config import LoopParams
from darkguard.defenses.dude.stage2 import cap_words, sample_failures, summarize_experience


def loop(**changes) -> LoopParams:
    """Algorithm 1's settings: those Stage 2 ran with before it read params.yaml, changed."""
    values = {
        "failure_batch": 15,
        "anchor_batch": 5,
        "max_iterations": 50,
        "patience": 3,
        "max_experience_words": 300,
        "seed": 42,
    }
    return LoopParams(**{**values, **changes})


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
    rates = iter([0.5, 0.6, 0.7, 0.8])
    params = loop(failure_batch=10, anchor_batch=10, max_iterations=10)
    state = summarize_experience(
        failures, successes, summarizer, judge, lambda x: next(rates), params
    )

    # iteration 1: B_f = all failures with kappa 1; f2 and f3 stay with kappa 2
    assert sorted(summarizer.calls[0][0]) == ["f1", "f2", "f3"]
    assert summarizer.calls[0][1] == [1, 1, 1] and summarizer.calls[0][2] == ""
    # iteration 2 sees the counters and the previous experience
    ids, kappa, previous = summarizer.calls[1]
    assert dict(zip(ids, kappa, strict=True)) == {"f2": 2, "f3": 2} and previous == "rule 1"
    # iteration 3: s2 came back to F with kappa 1 after breaking; f3 has kappa 3
    ids, kappa, _ = summarizer.calls[2]
    assert dict(zip(ids, kappa, strict=True)) == {"f3": 3, "s2": 1}
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
        lambda x: 0.5,
        loop(failure_batch=5, anchor_batch=5, max_iterations=1),
    )
    assert judge.seen == [("rule 1", ["f1", "f2", "s1"])]
    assert state.kappa == {"f1": 1, "f2": 2}


def test_stops_after_patience_without_improvement() -> None:
    failures = [sample("f1", 1)]
    rates = iter([0.5, 0.6, 0.6, 0.55, 0.6, 0.9])
    state = summarize_experience(
        failures,
        [],
        ScriptedSummarizer(),
        scripted_judge({}),
        lambda x: next(rates),
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
        lambda x: len(x) / 100,  # improves every time
        loop(max_iterations=2),
    )
    assert [r["iteration"] for r in state.log] == [0, 1, 2]


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
    from darkguard.defenses.dude.guidance import permute_labels, unrelated_text

    text = "- A (1) were x: judge such clicks 1. [persistence 2]\n- B: judge such clicks -1."
    assert permute_labels(text) == (
        "- A (1) were x: judge such clicks -1. [persistence 2]\n- B: judge such clicks 0."
    )
    assert len(unrelated_text(37).split()) == 37


def test_guidance_check_measures_changes_against_no_experience() -> None:
    from darkguard.defenses.dude.guidance import guidance_check

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
    from darkguard.defenses.dude.stage2 import PoolJudge
    from darkguard.ruc.clicks import generate_clicks

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
