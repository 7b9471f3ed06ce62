"""The defenses' one list (`darkguard.registry`): every name builds, stacks parse, params.yaml's
validation, the CLI and the reports read it, and every defense it names lives where the import
contracts keep the answer key out."""

from __future__ import annotations

import pickle

import pytest

from darkguard import registry
from darkguard.config.sections import VeerEvalParams
from darkguard.defenses import Stack
from darkguard.defenses.build import DefenseOptions, defense_code, defense_factory
from darkguard.reports.veer_ablations import VARIANT_TITLES
from darkguard.reports.veer_eval import TITLES
from tests.test_isolation import RUNTIME


def test_every_defense_lives_under_the_contracted_package() -> None:
    for entry in registry.ENTRIES:
        module = entry.factory.split(":")[0]
        assert module.startswith("darkguard.defenses"), entry.name
        relative = module.removeprefix("darkguard.").replace(".", "/")
        assert f"{relative}.py" in RUNTIME or f"{relative}/__init__.py" in RUNTIME


@pytest.mark.parametrize("name", [e.name for e in registry.ENTRIES if e.name != "dude-s2"])
def test_every_name_builds_in_another_process_too(name: str) -> None:
    factory = pickle.loads(pickle.dumps(defense_factory(name)))
    defense = factory()
    assert defense.name.split("-")[0] in name
    assert defense_code(name)  # a journal fingerprint follows its code


def test_a_stack_is_names_joined_by_plus() -> None:
    stack = defense_factory("spotlighting+veer-wo-si")()
    assert isinstance(stack, Stack) and stack.name == "spotlighting+veer-wo-si"
    assert [d.variant for d in stack.defenses[1:]] == ["wo_si"]
    assert registry.title("dude-s2+veer") == "DUDE-S2 + Veer"
    assert registry.screenshots("dude-s2+veer") and not registry.screenshots("icp+veer")
    assert set(defense_code("icp+veer")) >= set(defense_code("veer"))
    options = DefenseOptions("offline", {"experience": None})
    assert options.describe("dude-s2+veer") == "[[('experience', None)], []]"


@pytest.mark.parametrize(
    ("name", "error"),
    [("shield", "unknown defense 'shield'"), ("veer+shield", "'shield'"), ("none+veer", "none")],
)
def test_unknown_names_are_named(name: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        registry.parts(name)
    with pytest.raises(ValueError, match=error):
        defense_factory(name)


def test_params_validation_reads_the_registry() -> None:
    fields = {
        "sets": ["trickyarena_single"],
        "reasoner": "offline",
        "defense_actions": 8,
        "dude_experience": None,
        "configurations": {},
        "configuration_sets": [],
    }
    assert VeerEvalParams(**fields, methods=["none", "dude-s2+veer"]).methods[1] == "dude-s2+veer"
    with pytest.raises(ValueError, match="shield"):
        VeerEvalParams(**fields, methods=["shield"])


def test_reports_take_their_labels_from_the_registry() -> None:
    assert {n: registry.DEFENSES[n].title for n in registry.METHODS} == TITLES
    assert VARIANT_TITLES["veer"] == "Full Veer"
    assert VARIANT_TITLES["veer-one-step"] == "One-Step Intervention"
