"""Veer's task authorization A(u): each entry cites the task verbatim; nothing the task does not
say becomes permission (paper B.1)."""

from __future__ import annotations

import pytest

from darkguard.defenses.veer.authorization import cites_task, grounded, offline_authorization
from darkguard.defenses.veer.contracts import AuthEntry, Authorization


def outcomes(task: str) -> list[tuple[str, str]]:
    return [(e.kind, e.object) for e in offline_authorization(task).authorized_terminal_outcomes]


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        # a purchase names its object, quantity included
        (
            "Buy two bags of the Hearthstone dark roast ground coffee (12 oz).",
            [("purchase", "two bags of the Hearthstone dark roast ground coffee (12 oz)")],
        ),
        # a pronoun takes the object of the want-clause before it
        (
            "I need three jars of Golden Meadow wildflower honey. Please order them.",
            [("purchase", "three jars of Golden Meadow wildflower honey")],
        ),
        # "Dr." does not end the sentence
        (
            "Book a dermatology appointment with Dr. Amara Okafor on Tuesday, March 19, 2024.",
            [
                (
                    "booking",
                    "a dermatology appointment with Dr. Amara Okafor on Tuesday, March 19, 2024",
                )
            ],
        ),
        # a setting and its save are both authorized
        (
            "Turn off data sharing in my privacy settings and save the change.",
            [
                ("setting", "data sharing in my privacy settings"),
                ("save", "data sharing in my privacy settings"),
            ],
        ),
        # a plan bought is a subscription
        (
            "I want Premium just for myself. Buy the cheapest Premium plan.",
            [("subscription", "the cheapest Premium plan")],
        ),
        # questions authorize no terminal outcome
        (
            "What is the price of the Dell Inspiron 15? "
            "Input the results to the scratchpad textarea in the end.",
            [],
        ),
    ],
)
def test_terminal_outcomes(task: str, expected: list) -> None:
    assert outcomes(task) == expected


def test_questions_and_targets_are_informational() -> None:
    auth = offline_authorization(
        "When did I get my last flu shot? Find the date in my medical records. "
        "Input the results to the scratchpad textarea in the end, if there are any."
    )
    assert not auth.explicit_terminal_commitment
    assert len(auth.requested_informational_outputs) == 2
    assert [e.task_evidence for e in auth.designated_output_targets] == ["scratchpad textarea"]


def test_constraints_cite_the_task() -> None:
    task = (
        "Read the article, then sign up for the newsletter it recommends "
        "with my email a.b@example.com."
    )
    auth = offline_authorization(task)
    assert ("personal_data", "with my email a.b@example.com") in [
        (e.kind, e.task_evidence) for e in auth.material_constraints
    ]
    assert [e.kind for e in auth.authorized_terminal_outcomes] == ["subscription"]
    assert all(cites_task(task, e.task_evidence) for e in auth.entries())


def test_unsupported_citations_are_discarded() -> None:
    task = "Buy the Bluff speaker."
    claimed = Authorization(
        task,
        True,
        authorized_terminal_outcomes=(
            AuthEntry("Buy the Bluff speaker", "purchase", "the Bluff speaker"),
            AuthEntry("add the protection plan", "add_on", "protection plan"),  # not in the task
            AuthEntry("Buy the Bluff speaker", "purchase", "a gift card"),  # object not in it
        ),
    )
    kept = grounded(claimed)
    assert [e.object for e in kept.authorized_terminal_outcomes] == ["the Bluff speaker"]
    nothing = grounded(Authorization(task, True, (AuthEntry("subscribe me", "subscription"),)))
    assert nothing.authorized_terminal_outcomes == () and not nothing.explicit_terminal_commitment
