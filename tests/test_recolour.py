"""The warm-up's colour and scale augmentations: page colours or the zoomed square change, the
click marker and the text do not."""

from __future__ import annotations

from PIL import Image

from darkguard.defenses.dude.inputs import Screenshot
from darkguard.training.dude.recolour import (
    Recoloured,
    change_of,
    drawn_change,
    invert_lightness,
)
from darkguard.training.dude.rescale import FACTORS, Rescaled, drawn_factor


def page() -> Image.Image:
    image = Image.new("RGB", (400, 300), (250, 250, 250))
    image.paste((30, 90, 200), (100, 100, 300, 140))  # a blue button
    return image


def test_inverting_lightness_turns_a_light_page_dark_and_keeps_hue() -> None:
    dark = invert_lightness(page())
    assert sum(dark.getpixel((10, 10))) < 60
    r, _, b = dark.getpixel((200, 120))
    assert b > r  # still bluish


def test_a_recoloured_view_keeps_the_red_marker_and_the_identity() -> None:
    shot = Screenshot(page(), max_pixels=None)
    seen = Recoloured(shot, change_of("hue", 128))
    assert seen.digest == shot.digest  # the OCR text is read as the original's
    assert seen.fitted.getpixel((200, 120)) != shot.fitted.getpixel((200, 120))
    marked = seen.marked(200, 120)
    zoom = seen.zoomed(200, 120, 128)
    for image, (x, y) in ((marked, (200, 120)), (zoom, (64, 64))):
        r, g, b = image.getpixel((x, y))
        assert r > 200 and g < 60 and b < 60, (r, g, b)  # the marker's dot stays red


def test_draws_are_seeded_per_click_at_the_rate() -> None:
    draws = [drawn_change(42, f"p{i}/benign", 0.5) is not None for i in range(400)]
    assert 160 < sum(draws) < 240
    again = [drawn_change(42, f"p{i}/benign", 0.5) is not None for i in range(400)]
    assert draws == again
    assert drawn_change(42, "p1/benign", 0.0) is None


def test_a_rescaled_view_zooms_over_another_square_and_keeps_the_rest() -> None:
    shot = Screenshot(page(), max_pixels=64 * 64)
    recoloured = Recoloured(shot, change_of("grey", 0))
    wide = Rescaled(recoloured, 1.5)
    assert wide.digest == shot.digest and wide.marked(200, 120) == recoloured.marked(200, 120)
    assert wide.zoomed(200, 120, 128) == recoloured.zoomed(200, 120, 192)  # grey, wider
    assert wide.zoomed(200, 120, 128) != recoloured.zoomed(200, 120, 128)
    draws = [drawn_factor(42, f"p{i}/benign", 0.5) for i in range(400)]
    assert 160 < sum(f is not None for f in draws) < 240 and set(draws) == {None, *FACTORS}
    assert draws == [drawn_factor(42, f"p{i}/benign", 0.5) for i in range(400)]
    assert drawn_factor(42, "p1/benign", 0.0) is None
