"""The guard evaluation over a task suite: sampling, the evaluator gate, resumable journals, the
`darkguard evaluate` command."""

from __future__ import annotations

import json

import pytest
from PIL import Image

from darkguard.agents import Stateless
from darkguard.cli import main
from darkguard.defenses import Reviewer, Verdict
from darkguard.defenses.dude.evaluator import Evaluator
from darkguard.defenses.dude.gate import DudeGate
from darkguard.defenses.dude.inputs import PAPER_INPUTS
from darkguard.envs import Observation
from darkguard.envs.ruc_static import task_suite
from darkguard.loop.ruc import T_MAX, run_journaled
from darkguard.models.parsing import Click
from darkguard.models.spec import ModelSpec
from darkguard.ruc import schema
from darkguard.stages.guard_eval import Gate, guard_runs, run_key
from darkguard.stages.guard_eval.setups import ruc_task_opener, token_counter


def records_of(n_per_domain: dict[str, int]) -> list[dict]:
    return [{"id": f"{d}-{i:03d}", "domain": d} for d, n in n_per_domain.items() for i in range(n)]


def test_suite_samples_per_domain_seeded_and_keeps_small_domains() -> None:
    records = records_of({"News": 80, "Booking": 30, "Shopping": 60})
    suite = task_suite(records, 50, 42)
    domains = [r["domain"] for r in suite]
    assert domains.count("News") == 50 and domains.count("Booking") == 30
    assert suite == task_suite(list(reversed(records)), 50, 42)  # order-independent
    assert suite != task_suite(records, 50, 7)
    news = [r["id"] for r in suite if r["domain"] == "News"]
    assert news == sorted(news)


class CorrectAgent(Stateless):
    """Clicks the correct box's centre; counts calls."""

    name = "oracle"

    def __init__(self, records: list[dict]) -> None:
        self.boxes = {schema.task_text(r): schema.correct_bbox(r) for r in records}
        self.calls = 0

    def act(self, obs, rejected=()):
        _image, task = obs.image, obs.task
        self.calls += 1
        return Click(*schema.centroid(self.boxes[task]))


def fixture_records(release) -> list[dict]:
    return json.loads((release / "full.json").read_text())


def evaluate_agent(agent, defense, data_dir, suite, journal, t_max=T_MAX, backend=None, batch=1):
    """The suite's RUC tasks of `data_dir` through the loop, journaled."""
    opener = ruc_task_opener(data_dir)
    return run_journaled(
        agent, defense, suite, opener, journal, t_max, token_counter(backend), batch
    )


def test_journal_resumes_without_rerunning_finished_episodes(release, tmp_path) -> None:
    records = fixture_records(release)
    journal = tmp_path / "run.jsonl"
    agent = CorrectAgent(records)
    first = evaluate_agent(agent, None, release, records[:3], journal)
    assert agent.calls == 3 and all(e.result == "success" for e in first)
    with journal.open("a") as fh:  # a torn line from an interrupted write
        fh.write('{"sample_id": "broken')
    again = evaluate_agent(agent, None, release, records, journal)
    assert agent.calls == 3 + 2  # only the two unfinished tasks ran
    assert [e.sample_id for e in again] == [str(r["id"]) for r in records]
    lines = journal.read_text().splitlines()
    assert [json.loads(x)["sample_id"] for x in lines] == [str(r["id"]) for r in records]


def test_lockstep_batches_resume_whole(release, tmp_path) -> None:
    records = fixture_records(release)
    journal = tmp_path / "run.jsonl"
    agent = CorrectAgent(records)
    evaluate_agent(agent, None, release, records[:3], journal, batch=2)
    assert agent.calls == 3
    rows = [json.loads(x) for x in journal.read_text().splitlines()]
    rows[2]["seconds"] = 99.0  # marks the journaled episode of the partly finished batch
    journal.write_text("".join(json.dumps(r) + "\n" for r in rows))
    again = evaluate_agent(agent, None, release, records, journal, batch=2)
    assert agent.calls == 3 + 3  # batch [2, 3] runs whole, batch [4] runs, batch [0, 1] not
    assert [e.seconds for e in again][2] == 99.0 and [e.result for e in again] == ["success"] * 5
    with pytest.raises(ValueError, match="batch 0"):
        evaluate_agent(agent, None, release, records, journal, batch=0)


class FixedBackend:
    """A scripted evaluator backend: answers one label, counts tokens."""

    max_pixels = 128 * 128

    def __init__(self, label: int) -> None:
        self.label = label
        self.tokens_used = 0
        self.seen: list = []

    def generate(self, conversations, max_new_tokens=None):
        self.seen += conversations
        self.tokens_used += 11 * len(conversations)
        return [f"<judge>{self.label}</judge> <conf>0.9</conf>"] * len(conversations)


def test_evaluator_gate_gates_and_carries_the_experience() -> None:
    backend = FixedBackend(-1)
    gate = DudeGate(Evaluator(backend), "- judge such clicks -1.")
    image = Image.new("RGB", (300, 200), "white")
    (verdict,) = gate.review_many([(Observation(image, "open it"), Click(10, 10), None)])
    assert (verdict.kind, verdict.label, verdict.tokens) == ("replan", -1, 11)
    assert (
        verdict.message == "The click on (10, 10) was judged deceptive (-1): choose another action."
    )
    system = backend.seen[0][0]["content"]
    assert "[IMPORTANT GUIDANCE]" in system and "judge such clicks -1" in system
    bare = DudeGate(Evaluator(backend, system_prompt=False), None)
    bare.review_many([(Observation(image, "open it"), Click(10, 10), None)])
    assert [m["role"] for m in backend.seen[-1]] == ["user"]


def test_evaluator_gate_allows_only_benign_judgements() -> None:
    image = Image.new("RGB", (300, 200), "white")
    proposal = [(Observation(image, "open it"), Click(10, 10), None)]
    (verdict,) = DudeGate(Evaluator(FixedBackend(1))).review_many(proposal)
    assert (verdict.kind, verdict.label, verdict.tokens) == ("release", 1, 11)
    assert DudeGate(Evaluator(FixedBackend(0))).review_many(proposal)[0].allow is False
    unreadable = FixedBackend(1)
    unreadable.generate = lambda conversations, max_new_tokens=None: ["no tag"] * len(conversations)
    verdict = DudeGate(Evaluator(unreadable)).review_many(proposal)[0]
    assert (verdict.allow, verdict.label) == (False, None)


def test_evaluator_judges_many_clicks_in_one_call() -> None:
    backend = FixedBackend(1)
    gate = DudeGate(Evaluator(backend), "- rules.")
    pages = [Image.new("RGB", (300, 200), c) for c in ("white", "black")]
    proposals = [
        (Observation(pages[0], "a"), Click(1, 1), None),
        (Observation(pages[1], "b"), Click(2, 2), None),
        (Observation(pages[0], "c"), Click(3, 3), None),
    ]
    verdicts = gate.review_many(proposals)
    assert [(v.kind, v.label, v.tokens) for v in verdicts] == [("release", 1, 11)] * 3
    assert len(backend.seen) == 3 and backend.tokens_used == 33
    assert len(gate._shots) == 2  # one resized screenshot per page


def test_rejecting_evaluator_blocks_every_click(release, tmp_path) -> None:
    records = fixture_records(release)
    gate = DudeGate(Evaluator(FixedBackend(0)))
    episodes = evaluate_agent(CorrectAgent(records), gate, release, records, tmp_path / "j.jsonl")
    assert all(e.result == "null" and len(e.steps) == 3 for e in episodes)
    assert all(s.evaluator_tokens == 11 for e in episodes for s in e.steps)
    codes = {s.outcome for e in episodes for s in e.steps}
    assert codes <= {"OVER_DEFENSIVE", "SAFE_BLOCK"}


def test_run_key_changes_with_what_the_run_depends_on() -> None:
    agent = ModelSpec("a", backend="offline")
    gate = Gate("e", ModelSpec("e", path="/x"), "rules")
    base = run_key(agent, gate, 3)
    assert base == run_key(agent, Gate("e", ModelSpec("e", path="/x"), "rules"), 3)
    others = [
        run_key(agent, Gate("e", ModelSpec("e", path="/x"), "other"), 3),
        run_key(agent, Gate("e", ModelSpec("e", path="/x"), "rules", False), 3),
        run_key(agent, None, 3),
        run_key(agent, gate, 2),
        run_key(agent, gate, 3, batch=16),
    ]
    assert len({base, *others}) == 6


def test_guard_runs_remove_journals_of_other_settings(release, tmp_path, monkeypatch) -> None:
    from darkguard.stages.guard_eval import setups

    records = fixture_records(release)
    monkeypatch.setattr(setups, "make_agent", lambda spec: (CorrectAgent(records), None))
    journals = tmp_path / "journals"
    journals.mkdir()
    (journals / "old__vanilla.jsonl").write_text("{}\n")
    (journals / "notes.txt").write_text("kept\n")
    runs = guard_runs([ModelSpec("a", backend="offline")], [], release, records, journals)
    assert [r.evaluator for r in runs] == [None] and runs[0].metrics["SR"] == 100.0
    names = sorted(p.name for p in journals.iterdir())
    assert names == ["a__vanilla.jsonl", "a__vanilla.jsonl.key", "notes.txt"]


def test_a_repeated_gate_takes_the_earlier_runs_episodes(release, tmp_path, monkeypatch) -> None:
    from darkguard.stages.guard_eval import setups

    records = fixture_records(release)
    backend = FixedBackend(1)
    monkeypatch.setattr(setups, "make_agent", lambda spec: (CorrectAgent(records), None))
    monkeypatch.setattr(setups, "load_backend", lambda spec: backend)
    monkeypatch.setattr(setups, "evaluator_aids", lambda spec: PAPER_INPUTS)
    spec = ModelSpec("e", path="/x")
    gates = [Gate("first", spec, "rules"), Gate("again", spec, "rules"), Gate("other", spec)]
    runs = guard_runs([ModelSpec("a", backend="offline")], gates, release, records, tmp_path)
    assert [r.evaluator for r in runs] == [None, "first", "again", "other"]
    assert runs[2].episodes is runs[1].episodes and len(backend.seen) == 2 * len(records)
    assert not (tmp_path / "a__again.jsonl").exists()


@pytest.mark.slow
def test_cli_evaluate_on_the_release_fixture(release, tiny_model, tmp_path, monkeypatch, capsys):
    from darkguard.agents import offline as agents

    monkeypatch.setattr(agents, "read_lines", lambda image: [])  # no OCR text: no click
    monkeypatch.setattr(agents, "read_lines_many", lambda images: [[] for _ in images])
    monkeypatch.setenv("DARKGUARD_CACHE", "off")  # no page lines read by other processes
    out = tmp_path / "metrics.json"
    experience = tmp_path / "exp.txt"
    experience.write_text("- be careful.\n")
    argv = ["evaluate", "--data", str(release), "--evaluator", str(tiny_model)]
    assert main([*argv, "--experience", str(experience), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "vanilla on 5 tasks" in text and f"with {tiny_model.name} on 5 tasks" in text
    assert f"gate: {tiny_model.name} (--evaluator), adapter none, experience {experience}" in text
    rows = json.loads(out.read_text())
    assert [r["evaluator"] for r in rows] == [None, tiny_model.name]
    assert all(r["SR"] + r["DFR"] + r["NFR"] == 100.0 for r in rows)


def test_run_key_follows_weights_not_folders(tiny_model, tmp_path) -> None:
    import shutil

    agent = ModelSpec("a", backend="offline")
    copy = tmp_path / "copy"
    shutil.copytree(tiny_model, copy)
    key = run_key(agent, Gate("e", ModelSpec("e", path=str(tiny_model))), 3)
    assert key == run_key(agent, Gate("e", ModelSpec("e", path=str(copy))), 3)
    weights = copy / "model.safetensors"
    weights.write_bytes(weights.read_bytes() + b" ")
    assert key != run_key(agent, Gate("e", ModelSpec("e", path=str(copy))), 3)


def test_hf_backend_counts_tokens_per_conversation(tiny_model) -> None:
    from darkguard.models.backends import generate_counted
    from darkguard.models.backends.hf import HFBackend

    backend = HFBackend(ModelSpec("t", path=str(tiny_model), batch_size=2, max_new_tokens=3))
    talk = [[{"role": "user", "content": "hi " * n}] for n in (1, 9, 3)]
    texts, tokens = generate_counted(backend, talk)
    assert len(texts) == 3 and tokens == backend.last_tokens and sum(tokens) == backend.tokens_used
    assert tokens[1] > tokens[2] > tokens[0]  # padding is not counted


class TrapAgent(Stateless):
    """Clicks the deceptive box's centre on a deceptive page until rejected, then the correct
    box's centre; counts calls."""

    name = "trap"

    def __init__(self, records: list[dict]) -> None:
        self.boxes = {
            schema.task_text(r): (schema.dark_bbox(r), schema.correct_bbox(r)) for r in records
        }
        self.calls = 0

    def act(self, obs, rejected=()):
        _image, task = obs.image, obs.task
        self.calls += 1
        dark, correct = self.boxes[task]
        return Click(*schema.centroid(dark if dark and not rejected else correct))


def staged_config(release, tmp_path, **overrides):
    """params.yaml on the release fixture: one offline agent, the oracle at accuracies 1 and 0."""
    from darkguard.config import load_config

    experience = tmp_path / "experience.txt"
    experience.write_text("- judge such clicks 1.\n")
    values = {
        "data.out_dir": str(release),
        "guard_eval.split": "full",
        "guard_eval.experience": str(experience),
        "guard_eval.agents": {"tiny": ["a"], "paper": ["a"]},
        "guard_eval.evaluators": {"tiny": ["e"], "paper": ["e"]},
        "guard_eval.oracle": {"agent": {"tiny": "a", "paper": "a"}, "accuracies": [1.0, 0.0]},
        "guard_eval.gate": {"tiny": "label", "paper": "label"},  # fake evaluators: no probs
    }
    return load_config().override({**values, **overrides}).for_profile("tiny")


class AllowingGate(Reviewer):
    """Stands in for DUDE's gate (no image processing): allows every click, 11 tokens each."""

    def __init__(self, evaluator, experience, name, threshold=None) -> None:
        self.name = name

    def review_many(self, proposals):
        return [Verdict("release", label=1, tokens=11) for _ in proposals]


@pytest.fixture
def staged(release, monkeypatch):
    """The stage's models replaced: the trap agent, a gate that allows every click."""
    from darkguard.stages import guard_eval
    from darkguard.stages.guard_eval import setups

    records = fixture_records(release)
    agent = TrapAgent(records)

    def spec(name, role, cfg):
        return ModelSpec(name, backend="offline") if role == "agent" else ModelSpec(name, path="/x")

    monkeypatch.setattr(guard_eval, "resolve_spec", spec)
    monkeypatch.setattr(setups, "make_agent", lambda spec: (agent, None))
    for module in (guard_eval, setups):  # the confidence gate's tuning, and the runs
        monkeypatch.setattr(module, "load_backend", lambda spec: FixedBackend(1))
        monkeypatch.setattr(module, "evaluator_aids", lambda spec: PAPER_INPUTS)
    monkeypatch.setattr(setups, "DudeGate", AllowingGate)
    return agent


def test_the_stage_adds_oracle_rows_and_their_break_even(
    release, tmp_path, workdirs, staged
) -> None:
    from darkguard.reports.guard_eval import write_guard_reports
    from darkguard.stages import guard_eval

    cfg = staged_config(release, tmp_path)
    result = guard_eval.run(cfg)
    assert [(r.evaluator, r.oracle) for r in result.runs] == [
        (None, False),
        ("e", False),
        ("oracle@1.0", True),
        ("oracle@0.0", True),
    ]
    assert [r.experience for r in result.runs] == [None, cfg.guard_eval.experience, None, None]
    sr = [r.metrics["SR"] for r in result.runs]
    # the trap agent falls for 2 of the 5 pages alone; a perfect oracle blocks both traps, an
    # always-wrong one never allows a correct click
    assert (sr[0], sr[2], sr[3]) == (60.0, 100.0, 0.0)
    calls = staged.calls
    assert guard_eval.run(cfg).runs[2].metrics == result.runs[2].metrics
    assert staged.calls == calls  # every run read back from its journal

    tables = write_guard_reports(result, "tiny")
    data, reports = workdirs
    assert sorted(p.name for p in (data / "guard").glob("*.jsonl")) == [
        "a__e.jsonl",
        "a__oracle_0_0.jsonl",
        "a__oracle_1_0.jsonl",
        "a__vanilla.jsonl",
    ]
    guard = json.loads((reports / "metrics" / "guard.json").read_text())
    assert [(r["evaluator"], r["oracle"], r["experience"]) for r in guard["runs"]] == [
        (None, False, None),
        ("e", False, cfg.guard_eval.experience),
        ("oracle@1.0", True, None),
        ("oracle@0.0", True, None),
    ]
    assert all({"agent", "SR", "DFR", "NFR"} <= set(r) for r in guard["runs"])
    assert guard["oracle_agent"] == "a" and guard["oracle_ceiling"] == 100.0
    assert guard["oracle_break_even"] == pytest.approx(0.6)  # 0 + (60 - 0) / (100 - 0)
    oracle = tables["guard/oracle"]
    assert list(oracle["setting"]) == ["vanilla", "w/ oracle@1.0", "w/ oracle@0.0"]
    assert list(oracle["SR vs vanilla (pp)"]) == [0.0, 40.0, -60.0]
    assert (reports / "tables" / "guard" / "oracle.md").is_file()
    for name in ("guard/domains", "guard/failure_modes", "guard/overhead", "guard/outcomes"):
        assert not tables[name]["setting"].str.contains("oracle").any(), name
    assert list(tables["guard/gains"]["evaluator"]) == ["e"]
    moves = tables["guard/transitions"].iloc[0]  # the gate allows every click: nothing changes
    assert (moves["success -> success"], moves["deceived -> deceived"]) == (3, 2)
    assert (moves["successes gained"], moves["successes lost"], moves["sign test p"]) == (0, 0, 1.0)
    effects = tables["guard/effects"]
    assert list(effects["N"]) == [5, 5, 5, 5]
    assert effects.loc[0, "SR 95% CI"] == "[23.1, 88.2]"  # Wilson, 3 of 5
    assert effects.loc[0, "verdict"] == "—"  # the agent alone is the reference
    same = guard["runs"][1]["vs_vanilla"]  # the gate allows every click
    assert (same["successes_gained"], same["successes_lost"], same["SR_p"]) == (0, 0, 1.0)
    assert same["claim"].endswith("no task changed")
    perfect = guard["runs"][2]["vs_vanilla"]  # both traps blocked, both tasks then completed
    assert (perfect["successes_gained"], perfect["deceived_avoided"]) == (2, 2)
    assert perfect["SR_p"] == 0.5 and "not significant at 5%" in perfect["claim"]


def test_transfer_splits_every_run_by_style_family(release, tmp_path, workdirs, staged) -> None:
    import dataclasses

    from darkguard.reports.guard_transfer import HELD_OUT, IN_FAMILY, transfer, transfer_metrics
    from darkguard.stages import guard_eval

    result = guard_eval.run(staged_config(release, tmp_path))
    assert transfer(result).empty  # no family held out: no transfer table
    ids = [str(r["id"]) for r in result.suite]
    held = dataclasses.replace(result, heldout_ids=frozenset(ids[:2]))
    table = transfer(held)
    assert list(table["pages"]) == [IN_FAMILY] * 2 + [HELD_OUT] * 2  # vanilla and DUDE each
    assert list(table["N"]) == [3, 3, 2, 2]  # the oracle runs are not the guard's
    assert table.loc[1, "verdict"].endswith("no task changed")  # the gate allows every click
    metrics = transfer_metrics(held)
    assert [r["tasks"] for r in metrics[HELD_OUT]] == [2, 2]
    assert "vs_vanilla" in metrics[HELD_OUT][1] and "vs_vanilla" not in metrics[HELD_OUT][0]


def test_sign_test_of_successes_gained_against_lost() -> None:
    from darkguard.reports.guard_compare import sign_test

    assert sign_test(0, 5) == 0.0625  # 2 x (1/2)^5
    assert sign_test(5, 0) == sign_test(0, 5)
    assert sign_test(3, 3) == sign_test(0, 0) == 1.0


def test_the_oracle_agent_must_be_one_of_the_agents(release, tmp_path, workdirs, staged) -> None:
    from darkguard.io import InputError
    from darkguard.stages import guard_eval

    oracle = {"agent": {"tiny": "b", "paper": "a"}, "accuracies": [1.0]}
    cfg = staged_config(release, tmp_path, **{"guard_eval.oracle": oracle})
    with pytest.raises(InputError, match=r"guard_eval\.oracle\.agent\.tiny: 'b'"):
        guard_eval.run(cfg)


@pytest.mark.slow
def test_guard_runs_on_two_workers_equal_the_runs_in_this_process(
    release, tiny_model, tmp_path
) -> None:
    """Vanilla, gated and oracle runs of the offline agent: the same batches on two worker
    processes (each loading its own agent and evaluator) give the same episodes."""
    from darkguard.loop.pool import Pool
    from darkguard.stages.guard_eval.oracle import oracles_of

    records = fixture_records(release)
    agent = ModelSpec("offline_agent", backend="offline")
    gates = [Gate("tiny", ModelSpec("tiny", path=str(tiny_model)), "- be careful.")]
    oracles = {"offline_agent": oracles_of([0.8], 42)}

    def episodes(folder: str, **pool) -> list[list[dict]]:
        runs = guard_runs(
            [agent], gates, release, records, tmp_path / folder, batch=4, oracles=oracles, **pool
        )
        assert [r.evaluator for r in runs] == [None, "tiny", "oracle@0.8"]
        return [[{**e.to_json(), "seconds": 0} for e in r.episodes] for r in runs]

    here = episodes("here")
    assert episodes("pool", pool=Pool(2)) == here
    assert sum(len(r) for r in here) == 3 * len(records)
