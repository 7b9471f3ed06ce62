"""The ablations driver: reward variants trained from stage1.reward overrides, settings errors."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from darkguard.config import RewardOverride, load_config
from darkguard.stages import ablations
from darkguard.stages.ablations import reward_ablation


class FakePools:
    def __init__(self, fer: float) -> None:
        self.failure = [{"label": -1}] * 3
        self.success = [{"label": -1}] * 7 + [{"label": 1}] * 10
        self.metrics = {
            "pass_rate": 0.5,
            "c4_fatal_error_rate": fer,
            "c1_rate": 0.1,
            "c2_rate": 0.2,
            "c3_rate": 0.3,
            "parse_failure_rate": 0.0,
        }


def test_reward_variants_train_with_their_overrides(monkeypatch, tmp_path) -> None:
    calls = []

    class Result:
        def __init__(self, fer: float) -> None:
            self.after = FakePools(fer)

    def fake_stage1(cfg, out_dir, pools=True, reuse=None, before=True):
        assert not before  # every variant starts from the same evaluator: not judged again
        calls.append((cfg.stage1.reward.model_dump(), Path(out_dir), pools, reuse))
        return Result(0.1 * len(calls))

    monkeypatch.setattr(ablations.stage1_grpo, "run", fake_stage1)
    monkeypatch.setattr(ablations, "ablations_dir", lambda: tmp_path / "abl")
    monkeypatch.setattr(ablations, "stage_dir", lambda: tmp_path / "stage1")
    cfg = load_config()
    variants = {"full": RewardOverride(), "w/o omega": RewardOverride(use_omega=False)}
    rows = reward_ablation(cfg, variants)
    assert [r["variant"] for r in rows] == ["full", "w/o omega"]
    assert calls[0] == (cfg.stage1.reward.model_dump(), tmp_path / "stage1", False, True)
    assert calls[1][0]["use_omega"] is False and calls[1][1] == tmp_path / "abl/reward/w_o_omega"
    assert calls[1][3] is None  # a variant retrains unless DARKGUARD_REUSE_TRAINED=1
    assert rows[1]["fatal_error_rate"] == pytest.approx(0.2)
    assert (rows[1]["clicks"], rows[1]["deceptive_clicks"]) == (20, 10)  # for the FER's interval


def test_the_variants_that_train_are_jobs_and_their_rows_are_used(monkeypatch, tmp_path):
    from darkguard.jobs import Job

    monkeypatch.setattr(ablations, "stage_dir", lambda: tmp_path / "stage1")
    cfg = load_config()
    variants = {"full": RewardOverride(), "w/o alpha": RewardOverride(use_alpha=False)}
    jobs = ablations.reward_jobs(cfg, variants)
    assert [job.label for job in jobs] == ["reward variant 'w/o alpha'"]
    assert isinstance(jobs[0], Job) and jobs[0].run.args[1:] == ("w/o alpha", variants["w/o alpha"])
    here = []

    def fake_variant(cfg_, name, variant):
        here.append(name)
        return {"variant": name, "pass_rate": 0.9}

    monkeypatch.setattr(ablations, "reward_variant", fake_variant)
    trained = {"w/o alpha": {"variant": "w/o alpha", "pass_rate": 0.4}}
    rows = ablations.reward_ablation(cfg, variants, trained)
    assert rows == [{"variant": "full", "pass_rate": 0.9}, trained["w/o alpha"]]
    assert here == ["full"]  # the stage's own adapter is read here; the job's row is kept


class ScriptedJudge:
    """A pool judge (`PoolJudge`'s interface) answering from a table: experience -> label per
    click id; unknown experiences judge every click 0."""

    def __init__(self, answers: dict[str, dict[str, int]]) -> None:
        self.answers = answers
        self.evaluator = SimpleNamespace(backend="vanilla backend", aids="vanilla aids")

    def labels(self, samples, experience):
        table = self.answers.get(experience, {})
        return [table.get(s["click_id"], 0) for s in samples]

    def validation(self, clicks, experience):
        from darkguard.training.dude.stage2 import Validation

        labels = self.labels(clicks, experience)
        right = sum(p == c["label"] for p, c in zip(labels, clicks, strict=True))
        benign = [p for p, c in zip(labels, clicks, strict=True) if c["label"] == 1]
        return Validation(right / len(clicks), sum(p == 1 for p in benign) / len(benign))


class RuleSummarizer:
    def summarize(self, failures, kappa, experience):
        return "- judge such clicks -1."


def test_stage2_only_experience_is_mined_with_the_vanilla_evaluator(monkeypatch, tmp_path):
    from darkguard.config import view
    from darkguard.models.spec import ModelSpec
    from darkguard.stages.stage2_summarize import Miner
    from darkguard.training.dude.stage1 import Pools

    cfg = view(load_config(), ablations.PARAMS)  # the stage declares what the mining reads
    base = ModelSpec("evaluator_small", path="data/models/evaluator-small")
    clicks = [{"click_id": "c1", "label": -1}, {"click_id": "c2", "label": 1}]
    valid = [{"click_id": "v1", "label": 1}, {"click_id": "v2", "label": -1}]
    judge = ScriptedJudge(
        {"": {"v1": 1, "c2": 1}, "- judge such clicks -1.": {"v1": 1, "v2": -1, "c1": -1, "c2": 1}}
    )
    calls = {}

    def fake_clicks(data_dir, split):
        calls["split"] = split
        return clicks, {}

    def fake_miner(cfg_, spec, data_dir, records):
        calls["spec"] = spec
        return Miner(judge, valid, RuleSummarizer())

    def fake_pools(backend, data_dir, clicks_, records, reward, aids):
        calls["pools"] = (backend, aids, [c["click_id"] for c in clicks_], reward)
        return Pools([{**clicks[0], "predicted": 0}], [{**clicks[1], "predicted": 1}], {})

    monkeypatch.setattr(ablations, "_clicks", fake_clicks)
    monkeypatch.setattr(ablations, "make_miner", fake_miner)
    monkeypatch.setattr(ablations, "collect_pools", fake_pools)
    monkeypatch.setattr(ablations, "ablations_dir", lambda: tmp_path / "abl")
    experience, summary = ablations.vanilla_stage2(cfg, base, tmp_path / "ruc")

    assert calls["spec"] is base and calls["split"] == cfg.stage1.pool_split
    assert calls["pools"] == ("vanilla backend", "vanilla aids", ["c1", "c2"], cfg.stage1.reward)
    assert experience == "- judge such clicks -1."
    text = (tmp_path / "abl/stage2_vanilla/experience.txt").read_text()
    assert text == experience + "\n"
    assert summary["initial_failure"] == 1 and summary["final_failure"] == 0
    assert summary["valid_pass_rate_before"] == 0.5 and summary["valid_pass_rate_after"] == 1.0


def test_stagewise_gates_say_which_experience_each_row_uses() -> None:
    from darkguard.models.spec import ModelSpec

    base = ModelSpec("evaluator_small", path="data/models/evaluator-small")
    tuned = ModelSpec("evaluator_small+stage1", path="data/models/evaluator-small", adapter="a")
    gates = ablations.stagewise_gates(base, tuned, "mined", "stage 2", "data/stage2/experience.txt")
    by_label = {g.label: (g, source) for g, source in gates.items()}
    gate, source = by_label["Stage 2 only"]
    assert gate.spec == base and gate.experience == "mined"
    assert source.startswith(ablations.VANILLA_EXPERIENCE) and "vanilla evaluator" in source
    gate, source = by_label["Stage 1 + Stage 2"]
    assert gate.spec == tuned and gate.experience == "stage 2"
    assert source.startswith("data/stage2/experience.txt") and "Stage-1 evaluator" in source
    assert by_label["vanilla evaluator"][1] == by_label["Stage 1 only"][1] == "none"
    empty = {
        g.label: (g, s) for g, s in ablations.stagewise_gates(base, tuned, "", None, "x").items()
    }
    assert empty["Stage 2 only"][0].experience is None
    assert empty["Stage 2 only"][1].startswith("none")


def test_the_ablation_agent_is_the_offline_agent_on_tiny() -> None:
    cfg = load_config()
    assert cfg.ablations.agent == "offline_agent"
    assert cfg.for_profile("paper").ablations.agent == "qwen3_vl_4b"


def test_stagewise_table_names_each_rows_experience() -> None:
    from darkguard.reports.ablations import stagewise_table
    from darkguard.stages.guard_eval import GuardRun

    class Run(GuardRun):
        @property
        def metrics(self) -> dict[str, float]:
            return {"SR": 50.0, "DFR": 10.0, "NFR": 5.0, "steps": 2.0}

    result = SimpleNamespace(
        stagewise=[Run("offline_agent", None, []), Run("offline_agent", "Stage 2 only", [])],
        experiences={"Stage 2 only": "data/ablations/stage2_vanilla/experience.txt (...)"},
    )
    table = stagewise_table(result)
    assert table["experience"].tolist() == ["-", result.experiences["Stage 2 only"]]
