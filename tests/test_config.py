"""params.yaml's typed tree: errors name the file and the key, the profile is resolved at load,
and each stage reads only the dotted keys it declares, which dvc.yaml lists as its params."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import yaml

from darkguard import paths
from darkguard.cli import main
from darkguard.config import Config, ModelEntry, load_config, load_params, view
from darkguard.io import InputError

DVC = yaml.safe_load((paths.ROOT / "dvc.yaml").read_text())
STAGES = DVC["stages"]


def params_file(tmp_path: Path, edit) -> Path:
    """params.yaml with `edit(sections)` applied, in `tmp_path`."""
    raw = load_params()
    edit(raw)
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return path


def test_unknown_key_is_refused_with_its_path(tmp_path) -> None:
    path = params_file(tmp_path, lambda p: p["stage1"]["grpo"]["tiny"].update(lr=1))
    with pytest.raises(InputError, match=r"params\.yaml: stage1\.grpo\.tiny\.lr: unknown key"):
        load_config(path)


def test_wrong_type_is_refused_with_its_path(tmp_path) -> None:
    path = params_file(tmp_path, lambda p: p["stage1"]["grpo"]["tiny"].update(learning_rate="fast"))
    with pytest.raises(
        InputError,
        match=r"params\.yaml: stage1\.grpo\.tiny\.learning_rate: Input should be a valid number",
    ):
        load_config(path)


def test_bad_profile_is_refused_with_its_path(tmp_path) -> None:
    path = params_file(tmp_path, lambda p: p["base"].update(profile="big"))
    with pytest.raises(InputError, match=r"params\.yaml: base\.profile: 'big' not in"):
        load_config(path)
    with pytest.raises(InputError, match=r"base\.profile: 'big' not in \('tiny', 'paper'\)"):
        load_config().for_profile("big")


def test_shared_prompts_under_gradient_checkpointing_is_refused(tmp_path) -> None:
    # checkpointed layers keep no cache in train mode: the shared prompt would be lost
    path = params_file(tmp_path, lambda p: p["stage1"]["grpo"]["paper"].update(shared_prompts=True))
    assert load_params()["stage1"]["grpo"]["paper"]["gradient_checkpointing"] is True
    with pytest.raises(
        InputError,
        match=r"params\.yaml: stage1\.grpo\.paper\.shared_prompts: .*gradient_checkpointing",
    ):
        load_config(path)
    on = params_file(
        tmp_path,
        lambda p: p["stage1"]["grpo"]["paper"].update(
            shared_prompts=True, gradient_checkpointing=False
        ),
    )
    assert load_config(on).for_profile("paper")  # either alone is fine


def test_missing_key_is_refused_with_its_path(tmp_path) -> None:
    path = params_file(tmp_path, lambda p: p["stage2"].pop("validation_clicks"))
    with pytest.raises(InputError, match=r"stage2\.validation_clicks: missing key"):
        load_config(path)
    path = params_file(tmp_path, lambda p: p["guard_eval"]["agents"].pop("paper"))
    with pytest.raises(InputError, match=r"guard_eval\.agents\.paper: missing key"):
        load_config(path)


def test_every_problem_is_named(tmp_path) -> None:
    def edit(p: dict) -> None:
        p["data"]["split"]["test"] = 0.5
        p["data"]["viewports"].append([800, 600])
        p["ablations"]["reward_variants"]["tiny"]["bad"] = {"use_beta": False}
        p["ablations"]["observation_aids"]["tiny"] = [{"zoom": True}, {"blur": True}]
        p["stage2"]["summarizer"]["paper"]["batch_size"] = "x"
        p["extra"] = {}

    path = params_file(tmp_path, edit)
    with pytest.raises(InputError) as raised:
        load_config(path)
    assert str(raised.value).splitlines() == [
        f"{path}: {problem}"
        for problem in [
            "extra: unknown section",
            "data.viewports: [800, 600] is not [w>=1024, h>=768]",
            "data.split: fractions must sum to 1",
            "stage2.summarizer.paper: Input should be a valid string",
            "stage2.summarizer.paper.batch_size: "
            "Input should be a valid integer, unable to parse string as an integer",
            "ablations.reward_variants.tiny.bad.use_beta: unknown key",
            "ablations.observation_aids.tiny[1].blur: unknown key",
        ]
    ]


def test_the_profile_is_resolved_once() -> None:
    cfg, written = load_config(), load_params()
    assert cfg.base.profile == "tiny"
    assert cfg.stage1.grpo.model_dump() == written["stage1"]["grpo"]["tiny"]
    assert cfg.models.default_evaluator == written["models"]["tiny"]["default_evaluator"]
    assert cfg.guard_eval.agents == written["guard_eval"]["agents"]["tiny"]
    assert cfg.stage2.summarizer == "offline"
    assert cfg.ablations.agent == written["ablations"]["agent"]["tiny"]
    assert [a.changes() for a in cfg.ablations.observation_aids] == [{"zoom": False, "ocr": False}]
    paper = cfg.for_profile("paper")
    assert paper.stage1.grpo.model_dump() == written["stage1"]["grpo"]["paper"]
    assert isinstance(paper.stage2.summarizer, ModelEntry)
    assert paper.stage2.summarizer.spec_values() == written["stage2"]["summarizer"]["paper"]
    assert cfg.written("guard_eval").agents.paper == written["guard_eval"]["agents"]["paper"]


def test_seeds_come_from_base_and_serialize_as_before() -> None:
    cfg = load_config().override({"base.seed": 7})
    warm = cfg.build_models.warmup
    assert warm.seed == cfg.build_models.agent_warmup.seed == cfg.stage2.loop.seed == 7
    written = load_params()["build_models"]["warmup"]
    assert warm.model_dump() == {**written, "seed": 7}  # a model card's "warmup", seed last
    assert list(warm.model_dump())[-1] == "seed"
    assert (
        cfg.stage1.grpo.epochs == 1.0 and load_config().for_profile("paper").stage1.grpo.epochs == 1
    )
    assert isinstance(load_config().for_profile("paper").stage1.grpo.epochs, int)


def test_from_sections_takes_a_notebooks_sections() -> None:
    raw = load_params()
    cfg = Config.from_sections(base=raw["base"], data=raw["data"])
    assert cfg.data.out_dir == raw["data"]["out_dir"] and cfg.sections == ("base", "data")
    with pytest.raises(InputError, match="section 'stage1' was not given"):
        _ = cfg.stage1
    with pytest.raises(InputError, match=r"params\.yaml: base: missing section"):
        Config.from_sections(data=raw["data"])
    with pytest.raises(InputError, match=r"params\.yaml: data\.n_null: must be >= 0"):
        Config.from_sections(base=raw["base"], data={**raw["data"], "n_null": -1})


def test_override_sets_dotted_keys_and_validates_them() -> None:
    cfg = load_config()
    varied = cfg.override({"stage1.reward.use_omega": False, "data.n_null": 2})
    assert varied.stage1.reward.use_omega is False and varied.data.n_null == 2
    assert cfg.stage1.reward.use_omega is True  # the original is unchanged
    assert cfg.override({"ablations.safety_prompt": " x \n"}).ablations.safety_prompt == "x"
    with pytest.raises(InputError, match=r"stage1\.reward\.use_beta: no such key"):
        cfg.override({"stage1.reward.use_beta": False})
    with pytest.raises(InputError, match=r"data\.n_null: Input should be a valid integer"):
        cfg.override({"data.n_null": "two"})


def test_a_view_reads_only_the_declared_keys() -> None:
    cfg = view(load_config(), ["base.seed", "data.composition", "stage1"])
    assert cfg.base.seed == 42 and cfg.data.normal_count == 910  # a property reads through it
    with pytest.raises(InputError, match=r"'data\.out_dir' is read but not declared"):
        _ = cfg.data.out_dir
    with pytest.raises(InputError, match=r"'stage1\.grpo\.tiny' depends on 'base\.profile'"):
        _ = cfg.stage1.grpo
    with pytest.raises(InputError, match=r"'model_dump' of 'data' needs every key"):
        cfg.data.model_dump()
    with pytest.raises(AttributeError, match="read-only"):
        cfg.base = None
    warm = view(load_config(), ["build_models.warmup"]).build_models.warmup
    assert warm.steps == load_params()["build_models"]["warmup"]["steps"]
    with pytest.raises(InputError, match=r"'base\.seed' is read but not declared"):
        _ = warm.seed  # the warm-up's seed is base.seed


def test_a_view_of_a_view_reads_what_both_declare() -> None:
    outer = view(load_config(), ["base", "stage1.reward", "stage1.grpo"])
    inner = view(outer, ["base.seed", "stage1"])
    assert inner.stage1.reward.eps > 0 and inner.base.seed == 42
    with pytest.raises(InputError, match=r"'stage1\.pool_split' is read but not declared"):
        _ = inner.stage1.pool_split
    with pytest.raises(InputError, match=r"'stage1\.grpo\.tiny' depends on 'base\.profile'"):
        _ = inner.stage1.grpo
    varied = outer.override({"stage1.reward.use_alpha": False})
    assert varied.stage1.reward.use_alpha is False
    with pytest.raises(InputError, match=r"'models\.tiny' is read but not declared"):
        _ = varied.models


def test_a_per_profile_value_is_checked_per_profile(tmp_path) -> None:
    path = params_file(tmp_path, lambda p: p["ablations"]["workers"].update(paper=0))
    with pytest.raises(
        InputError, match=r"ablations\.workers\.paper: Input should be greater than or equal to 1"
    ):
        load_config(path)


def test_a_config_and_a_view_pickle_for_jobs_in_other_processes() -> None:
    import pickle

    cfg = load_config().override({"stage1.reward.use_alpha": False})
    copy = pickle.loads(pickle.dumps(cfg))
    assert copy.stage1.reward.use_alpha is False and copy.base.seed == cfg.base.seed
    narrow = pickle.loads(pickle.dumps(view(cfg, ["base", "stage1.reward"])))
    assert narrow.stage1.reward.use_alpha is False
    with pytest.raises(InputError, match=r"'stage1\.pool_split' is read but not declared"):
        _ = narrow.stage1.pool_split


@pytest.mark.parametrize("name", sorted(STAGES))
def test_dvc_params_are_the_stage_modules_params(name: str) -> None:
    """dvc.yaml reruns a stage on an edit of exactly the keys its code may read."""
    module = importlib.import_module(f"darkguard.stages.{name}")
    assert STAGES[name]["params"] == list(module.PARAMS)
    raw = load_params()
    for key in module.PARAMS:
        node = raw
        for part in key.split("."):
            assert isinstance(node, dict) and part in node, f"{name}: {key} not in params.yaml"
            node = node[part]


def test_the_first_stage_fails_at_once_on_a_bad_params_file(tmp_path, monkeypatch, capsys):
    """`dvc repro`'s first command validates the whole file before papermill starts."""
    import papermill

    def started(*args, **kwargs) -> None:
        pytest.fail("papermill started on a bad params.yaml")

    monkeypatch.setattr(papermill, "execute_notebook", started)
    first = next(iter(STAGES.values()))["cmd"].split()
    assert first[:3] == ["darkguard", "notebook", "run"]
    path = params_file(tmp_path, lambda p: p["stage2"]["loop"].update(patience="3 times"))
    out = tmp_path / "executed.ipynb"
    assert main([*first[1:], "--params", str(path), "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert "params.yaml: stage2.loop.patience: Input should be a valid integer" in error
    assert not out.exists()
