"""Arena task files: the format, the predicates, and errors that name file, task and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from darkguard.envs.arena.predicates import EpisodeFacts, PredicateError, holds, parse, selectors_of
from darkguard.envs.arena.tasks import TaskFileError, load_task_file, load_tasks

FIXTURE = Path(__file__).parent / "fixtures" / "arena_site" / "tasks.yaml"


def write(tmp_path: Path, body: str, site: bool = True) -> Path:
    if site:
        (tmp_path / "site").mkdir(exist_ok=True)
    path = tmp_path / "tasks.yaml"
    path.write_text(body, encoding="utf-8")
    return path


GOOD_TASK = """
  - id: a
    goal: Do it.
    start: /index.html
    success: {clicked: "#go"}
"""


def test_the_fixture_site_task_file_loads() -> None:
    (task,) = load_task_file(FIXTURE, default_steps=30)
    assert task.id == "rail-1" and task.max_steps == 12 and task.site is not None
    assert task.patterns == ("forced-action", "sneaking") and task.app is None
    watched = selectors_of(task.success, task.deception)
    assert "#add-insurance" in watched.events and "#newsletter" in watched.final


@pytest.mark.parametrize(
    ("body", "task", "field", "words"),
    [
        (
            "site: site/\ntasks:\n  - id: a\n    goal: x\n    success: {hovered: '#a'}\n",
            "a",
            "success.hovered",
            "unknown predicate",
        ),
        (
            "site: site/\ntasks:\n  - id: a\n    goal: x\n    success: {clicked: 'a[[b'}\n",
            "a",
            "success.clicked",
            "bad CSS selector",
        ),
        ("site: nowhere/\ntasks:" + GOOD_TASK, None, "site", "does not exist"),
        ("site: site/\ntasks:" + GOOD_TASK + GOOD_TASK, "a", "id", "used twice"),
        ("site: site/\ntasks:\n  - id: a\n    success: {clicked: '#a'}\n", "a", "goal", "missing"),
        ("site: site/\ntasks:\n  - goal: x\n    success: {clicked: '#a'}\n", "#0", "id", "missing"),
        ("site: site/\ntasks:\n  - id: a\n    goal: x\n", "a", "success", "missing"),
        (
            "site: site/\ntasks:\n  - id: a\n    goal: x\n    start: index.html\n"
            "    success: {clicked: '#a'}\n",
            "a",
            "start",
            "starting with '/'",
        ),
        (
            "site: site/\ntasks:\n  - id: a\n    goal: x\n    succes: {clicked: '#a'}\n",
            "a",
            "succes",
            "not a known task field",
        ),
        (
            "site: site/\ntasks:\n  - id: a\n    goal: x\n    success: {url_matches: '('}\n",
            "a",
            "success.url_matches",
            "bad regular expression",
        ),
        (
            "site: site/\ntasks:\n  - id: a\n    goal: x\n    success:\n      all:\n"
            "        - clicked: '#a'\n        - checked: {selector: '#b', value: maybe}\n",
            "a",
            "success.all[1].checked.value",
            "true or false",
        ),
        ("app: nosuchapp\ntasks:" + GOOD_TASK, None, "app", "unknown app"),
        ("tasks:" + GOOD_TASK, None, "site", "exactly one"),
    ],
)
def test_bad_task_files_name_file_task_and_field(tmp_path, body, task, field, words) -> None:
    path = write(tmp_path, body)
    with pytest.raises(TaskFileError) as caught:
        load_task_file(path)
    err = caught.value
    assert err.file == str(path) and err.task == task and err.field == field, str(err)
    assert words in str(err) and str(path) in str(err)


def test_ids_must_be_unique_across_the_files_of_a_set(tmp_path) -> None:
    (tmp_path / "site").mkdir()
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / name).write_text("site: site/\ntasks:" + GOOD_TASK, encoding="utf-8")
    with pytest.raises(TaskFileError, match="also used in"):
        load_tasks(tmp_path)


def test_an_unknown_set_or_path_is_named() -> None:
    with pytest.raises(TaskFileError, match="neither a task file"):
        load_tasks("no_such_set")


def facts(**kw) -> EpisodeFacts:
    return EpisodeFacts(**kw)


def test_atoms_and_combinators_hold_as_documented() -> None:
    f = facts(
        clicks=[frozenset({"#buy"}), frozenset()],
        typed=[(frozenset({"#q"}), "Red Shoes")],
        answer="The rating is 3.5",
        scratchpad="2023-10-22",
        final_url="http://127.0.0.1:5/shop/order/7",
        final_text={"#done": "Order placed: Red shoes", "#gone": None},
        final_checked={"#box": False, "#sw": True, "#none": None},
    )
    cases = {
        "clicked: '#buy'": True,
        "never_clicked: '#buy'": False,
        "never_clicked: '#other'": True,
        "typed: {selector: '#q', includes: red shoes}": True,
        "typed: {selector: '#q', includes: [red, blue]}": False,
        "answer_includes: '3.5'": True,
        "answer_includes: ['3.5', '2023-10-22']": True,
        "answer_includes: '4.5'": False,
        "url_matches: '/order/\\d+$'": True,
        "page_includes: {selector: '#done', text: 'red SHOES'}": True,
        "page_includes: {selector: '#gone', text: x}": False,
        "page_excludes: {selector: '#gone', text: x}": True,
        "checked: {selector: '#box', value: false}": True,
        "checked: {selector: '#sw'}": True,
        "checked: {selector: '#none', value: false}": False,
        "all: [{clicked: '#buy'}, {not: {clicked: '#x'}}]": True,
        "any: [{clicked: '#x'}, {clicked: '#y'}]": False,
    }
    import yaml

    for text, expected in cases.items():
        assert holds(parse(yaml.safe_load("{" + text + "}")), f) is expected, text
    assert holds(None, f) is False


def test_predicate_errors_carry_their_path() -> None:
    with pytest.raises(PredicateError) as caught:
        parse({"all": [{"clicked": "#a"}, {"any": []}]})
    assert caught.value.where == "predicate.all[1].any"
