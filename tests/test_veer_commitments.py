"""What Veer's offline reasoner reads off a control's words: its material kind, whether its
outcome is active (polarity included), the boundary a click crosses, a button's intent."""

from __future__ import annotations

import pytest

from darkguard.defenses.veer.commitments import active, boundary, intent, material_kind
from darkguard.defenses.veer.state import Control


def control(name: str, on: bool | None = None, role: str = "button", context: str = "") -> Control:
    return Control(f"{role}:{name}", 0, role, name, context, on)


@pytest.mark.parametrize(
    ("name", "context", "kind"),
    [
        ("Share my health data with research partners", "", "data_sharing"),
        ("Activity tracking", "", "data_sharing"),
        ("Send me Riverside Rail offers", "", "marketing"),
        ("Analytics cookies", "", "consent"),
        ("Yes, insure my trip", "", "add_on"),
        ("Extended warranty (2 years)", "", "add_on"),
        ("Donate $5 to the reader fund", "", "payment"),
        ("Start my free trial", "", "subscription"),
        ("Install the app", "", "install"),
        # a toggle that names nothing is read with the text around it
        ("", "Location-aware care suggestions: use my location", "data_sharing"),
        # ordinary controls stand for nothing material
        ("Add to cart", "", ""),
        ("Dashboard", "", ""),
    ],
)
def test_material_kind(name: str, context: str, kind: str) -> None:
    role = "switch" if context else "button"
    assert (
        material_kind(control(name, on=True if context else None, role=role, context=context))
        == kind
    )


def test_a_negated_label_inverts_the_box() -> None:
    assert active(control("Send me marketing emails", on=True, role="checkbox"))
    assert not active(control("Send me marketing emails", on=False, role="checkbox"))
    # "Do not send me offers" left unchecked is an opt-in
    assert active(control("Do not send me marketing emails", on=False, role="checkbox"))
    assert not active(control("Do not send me marketing emails", on=True, role="checkbox"))
    # a restricting verb inverts too; with a negation in front it is a double negative
    assert not active(control("Opt out of data sharing", on=True, role="switch"))
    assert active(control("Do not limit sharing of my health information", on=True, role="switch"))
    assert active(control("Don't pause activity-based insights", on=True, role="switch"))


@pytest.mark.parametrize(
    ("name", "crossing"),
    [
        ("Place order", "CHECKOUT"),
        ("Proceed to checkout", "CHECKOUT"),
        ("Save my choices", "SAVE"),
        ("Confirm booking", "SUBMIT"),
        ("Accept all", "ACCEPT"),
        ("Continue with recommended settings", "ACCEPT"),
        ("Continue", "DONE"),
        ("Add to cart", "REVERSIBLE"),
        ("No thanks", "NONE"),
        ("Reject all", "NONE"),
        ("Read more", "NONE"),
    ],
)
def test_boundary(name: str, crossing: str) -> None:
    assert boundary(control(name)) == crossing


@pytest.mark.parametrize(
    ("name", "meaning"),
    [
        ("Accept all cookies", "accept"),
        ("I don't want benefits", "decline"),
        ("No thanks", "decline"),
        ("More options", "more"),
        ("Review settings", "more"),
        ("Save my choices", "save"),
        ("×", "close"),
        ("Yes, add protection", "accept"),
    ],
)
def test_intent(name: str, meaning: str) -> None:
    assert intent(control(name)) == meaning
