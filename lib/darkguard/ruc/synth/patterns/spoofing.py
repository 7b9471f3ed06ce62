"""Contextual Path Spoofing: overlays mimicking task continuations."""

from __future__ import annotations

from darkguard.ruc.synth.page import Page, button, esc, text_w
from darkguard.ruc.synth.patterns.common import base_task, say
from darkguard.ruc.synth.widgets import (
    CORRECT_KINDS,
    DARK_KINDS,
    free_spot,
    pick_kind,
    strip,
)


def spoofed_continue(page: Page, rng) -> None:
    page.task = base_task(page)
    w, h = int(rng.integers(220, 420)), page.style.button_h + int(rng.integers(14, 40))
    x, y = free_spot(page, w, h, rng)
    marker = esc(say(page, rng, "ad_marker"))
    page.overlays.append(
        f'<a href="#" class="btn btn-{pick_kind(rng, DARK_KINDS)}" style="position:fixed;'
        f'left:{x}px;top:{y}px;width:{w}px;height:{h}px" data-dg="dark">'
        f"{esc(say(page, rng, 'continue'))}"
        f'<span style="font-size:9px;opacity:.55;margin-left:8px">{marker}</span></a>'
    )
    page.correct = ("card_action", page.target)


def encompassing_overlay(page: Page, rng) -> None:
    """A near-transparent overlay that encompasses the correct element (paper D.2): either the
    whole target card, or a click-catcher just around its action button."""
    page.task = base_task(page)
    k = int(rng.integers(4, 16))
    alpha = float(rng.uniform(0.04, 0.18))
    overlay = (
        f'<a href="#" style="position:absolute;left:-{k}px;top:-{k}px;right:-{k}px;bottom:-{k}px;'
        f"background:rgba(0,0,0,{alpha:.2f});border-radius:8px;display:flex;align-items:flex-start;"
        f'justify-content:flex-end;padding:2px;font-size:11px" data-dg="dark">{{label}}</a>'
    )
    if rng.random() < 0.5:
        label = f'<span class="badge">{esc(say(page, rng, "overlay_badge"))}</span>'
        page.card_extra[page.target] = overlay.format(label=label)
        page.correct = ("card_action", page.target)
    else:
        s = page.style
        w2 = min(text_w(page.copy.secondary, s.font_size), int(page.inner_w * 0.45))
        w1 = page.inner_w - w2 - 8
        correct = button(
            page.copy.action, pick_kind(rng, CORRECT_KINDS[:4]), w1, s.button_h, "correct"
        )
        page.card_actions[page.target] = (
            f'<div style="position:relative;flex:none;width:{w1}px;height:{s.button_h}px">'
            f"{correct}{overlay.format(label='')}</div>"
            + button(page.copy.secondary, "link", w2, s.button_h)
        )
        page.correct = ("custom", 0)


def fake_next_step(page: Page, rng) -> None:
    page.task = base_task(page)
    h = int(rng.integers(60, 96))
    *names, label = say(page, rng, "next_step")
    steps = " \u203a ".join(names)
    w = min(int(rng.integers(160, 320)), page.content_w // 2)
    page.banner_h = h
    page.banner_html = strip(
        page, steps, button(label, pick_kind(rng, DARK_KINDS), w, h - 20, "dark"), h
    )
    page.correct = ("card_action", page.target)


def fake_system_dialog(page: Page, rng) -> None:
    page.task = base_task(page)
    w, h = int(rng.integers(300, 420)), 150 + page.style.button_h
    x, y = free_spot(page, w, h, rng)
    bw = int(rng.integers(70, w - 60))
    title, message, label = (esc(text) for text in say(page, rng, "system_dialog"))
    page.overlays.append(
        f'<div class="box col" style="position:fixed;left:{x}px;top:{y}px;width:{w}px;'
        f"height:{h}px;background:#ececec;color:#111;border:1px solid #999;"
        f"font-family:'DejaVu Sans';font-size:13px;box-shadow:0 6px 20px rgba(0,0,0,.4)\">"
        f'<div style="height:28px;background:#d6d6d6;padding:6px 10px">{title}</div>'
        f'<div style="height:60px;padding:10px">{message}</div>'
        f'<div class="row" style="justify-content:flex-end;padding:0 12px">'
        f'<button class="btn btn-primary" style="width:{bw}px;height:{page.style.button_h}px"'
        f' data-dg="dark">{label}</button></div></div>'
    )
    page.correct = ("card_action", page.target)
