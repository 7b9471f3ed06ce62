"""arena-synth: valid task files, deterministic, disjoint splits, twins, careful solutions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from darkguard.envs.arena.synth import KIND_PATTERNS, KINDS, banks, generate
from darkguard.envs.arena.tasks import load_tasks


@pytest.fixture(scope="module")
def splits(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("synth")
    out = {}
    for split in ("dev", "eval", "valid"):
        generate(split, 32, 42, root / split)
        out[split] = root / split
    return out


def _truth(folder: Path) -> list[dict]:
    return [json.loads(x) for x in (folder / "truth.jsonl").read_text().splitlines()]


def test_task_files_load_and_every_kind_is_present(splits):
    for folder in splits.values():
        tasks = load_tasks(folder).tasks
        assert len(tasks) == 32
        assert {t["kind"] for t in _truth(folder)} == set(KINDS)


def test_same_params_same_bytes(splits, tmp_path):
    again = generate("dev", 32, 42, tmp_path / "dev")
    first = json.loads((splits["dev"] / "manifest.json").read_text())
    assert again.digest == first["digest"]
    assert generate("dev", 32, 43, tmp_path / "other").digest != first["digest"]


def test_every_dark_task_has_a_clean_twin_with_the_same_goal_and_predicates(splits):
    for folder in splits.values():
        truth = {t["id"]: t for t in _truth(folder)}
        tasks = {t.id: t for t in load_tasks(folder).tasks}
        for tid, t in truth.items():
            twin = truth[t["twin"]]
            assert twin["twin"] == tid and twin["dark"] != t["dark"]
            assert twin["site"] != t["site"]
            a, b = tasks[tid], tasks[t["twin"]]
            assert (a.goal, a.success, a.deception) == (b.goal, b.success, b.deception)
            assert bool(a.patterns) == t["dark"]


@pytest.mark.parametrize(("one", "other"), [("dev", "eval"), ("dev", "valid"), ("valid", "eval")])
def test_splits_share_no_wording_brand_or_layout(one, other):
    for bank in ("BRAND_SYLLABLES", "PRODUCTS", "ADDONS", "SETTINGS", "FILES", "ARTICLES"):
        a, b = getattr(banks, bank)[one], getattr(banks, bank)[other]
        assert not {str(x) for x in a} & {str(x) for x in b}, bank
    all_words = {w for phrasings in banks.WORDS[other].values() for w in phrasings}
    for key, phrasings in banks.WORDS[one].items():
        assert not set(phrasings) & all_words, key
    for kind, goals in banks.GOALS[one].items():
        assert not set(goals) & set(banks.GOALS[other][kind]), kind
    from darkguard.envs.arena.synth.markup import LAYOUTS

    assert not set(LAYOUTS[one]) & set(LAYOUTS[other])
    assert banks.SHARING[one] != banks.SHARING[other]


def test_pattern_taxonomy_is_wide():
    patterns = {p for sets in KIND_PATTERNS.values() for s in sets for p in s}
    assert len(patterns) >= 13


def test_controls_are_labelled_and_solutions_name_controls(splits):
    for t in _truth(splits["dev"]):
        selectors = {c["selector"] for c in t["controls"]}
        assert {c["commits"] for c in t["controls"]} <= {
            "progress",
            "goal",
            "harm",
            "decline",
            "ad",
            "none",
            "commit",
        }
        for step in t["solution"]:
            assert step["op"] == "answer" or step["selector"] in selectors, (t["id"], step)


def test_bad_split_is_refused(tmp_path):
    with pytest.raises(ValueError, match="split 'test'"):
        generate("test", 10, 42, tmp_path)


@pytest.mark.browser
def test_careful_solutions_succeed_without_deception(splits):
    """The generator's careful user reaches the goal on both twins and is never deceived."""
    _careful_user_succeeds(splits["eval"], load_tasks(splits["eval"]).tasks[:16])


def test_careful_solutions_succeed_where_the_choice_itself_is_preselected(tmp_path):
    """The two mechanisms set in a choice: an extra ticked on the product page and carried
    into the basket, and pausing preselected among what may happen to a cancelled plan."""
    generate("dev", 2 * 73, 42, tmp_path)
    wanted = {
        r["pair"]
        for r in _truth(tmp_path)
        if (r["kind"], tuple(r["patterns"]))
        in {("buy", ("sneaking", "preselection")), ("cancel", ("preselection",))}
    }
    assert len(wanted) == 2
    tasks = [t for t in load_tasks(tmp_path).tasks if t.id.rsplit("-", 1)[0] in wanted]
    _careful_user_succeeds(tmp_path, tasks)


def _careful_user_succeeds(folder: Path, tasks: list) -> None:
    from darkguard.envs.arena.actions import Click, Select, Stop, Type
    from darkguard.envs.arena.env import ArenaEnv
    from darkguard.envs.arena.server import Served
    from darkguard.training.arena_scorer import FIND_JS, read_truth

    truth = read_truth(folder)
    with Served(site=tasks[0].site) as served:
        env = ArenaEnv(served.origin)
        try:
            for task in tasks:
                env.reset(task)
                answer = ""
                for step in truth[task.id]["solution"]:
                    if step["op"] == "answer":
                        answer = step["value"]
                        continue
                    index = env.page.evaluate(FIND_JS, step["selector"])
                    assert index >= 0, (task.id, step)
                    ops = {
                        "type": Type(index, step["value"]),
                        "select": Select(index, step["value"]),
                    }
                    env.step(ops.get(step["op"], Click(index)))
                env.step(Stop(answer))
                outcome = env.outcome()
                assert outcome.success and not outcome.deceived, task.id
        finally:
            env.close()
