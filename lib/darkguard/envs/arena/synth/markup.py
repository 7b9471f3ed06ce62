"""arena-synth's markup: layouts, widgets and pages, with every control labelled.

A site is static HTML whose state travels in the query string: each page's form is a GET form,
and a small script copies the current query into hidden fields (and into links marked
`data-carry`). A widget returns its HTML and registers a `Control` (what the control commits:
`progress`, `goal`, `harm`, `decline`, `ad` or `none`); the generator writes them to `truth.jsonl`.
Toggles are checkboxes, switches (`role=switch` or a bare clickable span), yes/no radios or image
buttons; a toggle's state is the LAST value of its field (a hidden default precedes the control).
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field

# Layouts per split (disjoint): CSS, whether controls carry ARIA, dialog markup, button shape.
LAYOUTS = {
    "dev": {
        "plain": {"aria": True, "font": "Arial,sans-serif", "accent": "#1a5fb4", "bg": "#fff"},
        "cards": {
            "aria": False,
            "font": "Verdana,sans-serif",
            "accent": "#26a269",
            "bg": "#f4f6f4",
        },
        "sidebar": {"aria": True, "font": "Georgia,serif", "accent": "#a51d2d", "bg": "#faf7f2"},
    },
    "eval": {
        "topbar": {
            "aria": False,
            "font": "Tahoma,sans-serif",
            "accent": "#c64600",
            "bg": "#fff8f0",
        },
        "boxed": {
            "aria": True,
            "font": "Trebuchet MS,sans-serif",
            "accent": "#613583",
            "bg": "#eee",
        },
        "minimal": {
            "aria": False,
            "font": "Courier New,monospace",
            "accent": "#0b6e6e",
            "bg": "#fff",
        },
    },
    "valid": {
        "stacked": {
            "aria": False,
            "font": "Helvetica,sans-serif",
            "accent": "#8f5902",
            "bg": "#fdfdf6",
        },
        "banded": {"aria": True, "font": "Palatino,serif", "accent": "#1c71d8", "bg": "#f0f4fa"},
    },
}
TOGGLE_WIDGETS = ("checkbox", "switch", "radio", "image")

CARRY_JS = """
const q = new URLSearchParams(location.search);
document.querySelectorAll("form").forEach((f) => {
  const own = new Set(Array.from(f.elements).map((e) => e.name).filter(Boolean));
  for (const k of new Set(q.keys())) if (!own.has(k)) for (const v of q.getAll(k)) {
    const i = document.createElement("input"); i.type = "hidden"; i.name = k; i.value = v;
    f.prepend(i);
  }
});
document.querySelectorAll("a[data-carry]").forEach((a) => {
  const u = new URL(a.getAttribute("href"), location.href);
  for (const [k, v] of q) if (!u.searchParams.has(k)) u.searchParams.append(k, v);
  a.href = u.pathname + u.search;
});
function last(k) { const v = q.getAll(k).filter(Boolean); return v.length ? v[v.length - 1] : ""; }
function flip(el) {
  const f = document.getElementById(el.dataset.field);
  const on = f.value !== "on"; f.value = on ? "on" : "off";
  if (el.hasAttribute("aria-checked")) el.setAttribute("aria-checked", String(on));
  if (el.hasAttribute("aria-pressed")) el.setAttribute("aria-pressed", String(on));
  el.classList.toggle("on", on);
  const t = el.querySelector(".state"); if (t) t.textContent = on ? "On" : "Off";
}
function takeOut(el) {
  document.getElementById(el.dataset.field).value = "off";
  const line = el.parentNode.querySelector("span");
  line.textContent = "Removed: " + line.textContent;
  line.style.textDecoration = "line-through";
  el.remove();
}
function closeDialog(id, field, value) {
  if (field) document.getElementById(field).value = value;
  document.getElementById(id).style.display = "none";
}
"""

# Summary templates: "{f}" the field's last value; "{f=v:TEXT}" TEXT when the field is v.
SUMMARY_JS = """
function fill(t) {
  return t.replace(/\\{(\\w+)(?:=([^:}]*):([^}]*))?\\}/g,
    (m, k, v, text) => v === undefined ? last(k) : (last(k) === v ? text : ""));
}
for (const [id, t] of SUMMARY) {
  const el = document.getElementById(id);
  if (el) el.textContent = fill(t).replace(/\\s+/g, " ").replace(/(, )+$/, "").trim();
}
"""


def esc(text: str) -> str:
    return html.escape(text, quote=True)


@dataclass
class Control:
    page: str
    selector: str
    name: str
    markup: str
    commits: str


@dataclass
class Page:
    """One page being written: its blocks and the controls they register."""

    site: Site
    file: str
    title: str
    action: str = ""  # the form's target ("" = no form)
    blocks: list[str] = field(default_factory=list)
    buttons: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    summary: list[tuple[str, str]] = field(default_factory=list)
    scripts: list[str] = field(default_factory=list)  # run after the page's helpers
    footer: str = ""

    # ---- ids and controls -------------------------------------------------------------------
    def _id(self) -> str:
        self.site.counter += 1
        return f"k{self.site.counter}"

    def _control(self, cid: str, name: str, markup: str, commits: str) -> str:
        self.site.controls.append(Control(self.file, f"#{cid}", name, markup, commits))
        return f"#{cid}"

    # ---- blocks -----------------------------------------------------------------------------
    def text(self, content: str, cls: str = "") -> None:
        self.blocks.append(
            f'<p class="{cls}">{esc(content)}</p>' if cls else f"<p>{esc(content)}</p>"
        )

    def heading(self, content: str) -> None:
        self.blocks.append(f"<h2>{esc(content)}</h2>")

    def raw(self, markup: str) -> None:
        self.blocks.append(markup)

    def hidden(self, name: str, value: str) -> str:
        cid = self._id()
        self.blocks.append(f'<input type="hidden" id="{cid}" name="{name}" value="{esc(value)}">')
        return f"#{cid}"

    def choice(
        self,
        name: str,
        label: str,
        options: list[str],
        default: str | None,
        widget: str,
        commits: dict[str, str] | None = None,
    ) -> dict[str, str]:
        """A radio group or a drop-down; returns each option's selector (a select: its own)."""
        commits = commits or {}
        if widget == "select":
            cid = self._id()
            opts = "".join(
                f"<option{' selected' if o == default else ''}>{esc(o)}</option>" for o in options
            )
            self.blocks.append(
                f'<p><label for="{cid}">{esc(label)}</label> '
                f'<select id="{cid}" name="{name}">{opts}</select></p>'
            )
            sel = self._control(cid, label, "select", "goal")
            return {o: sel for o in options}
        out = {}
        items = []
        for o in options:
            cid = self._id()
            checked = " checked" if o == default else ""
            items.append(
                f'<label class="opt"><input type="radio" id="{cid}" name="{name}" '
                f'value="{esc(o)}"{checked}> {esc(o)}</label>'
            )
            out[o] = self._control(cid, o, "radio", commits.get(o, "goal"))
        legend = f"<legend>{esc(label)}</legend>"
        self.blocks.append(f"<fieldset>{legend}{''.join(items)}</fieldset>")
        return out

    def field_input(self, name: str, label: str, kind: str = "text") -> str:
        cid = self._id()
        self.blocks.append(
            f'<p><label for="{cid}">{esc(label)}</label> '
            f'<input type="{kind}" id="{cid}" name="{name}" value=""></p>'
        )
        return self._control(cid, label, "textbox", "goal")

    def toggle(
        self,
        name: str,
        label: str,
        on: bool,
        widget: str,
        commits: str,
        note: str = "",
        inverted: bool = False,
    ) -> dict[str, str]:
        """A two-state control for field `name` (value `on`/`off`); `inverted` words it as a
        negation (ticked = off). Returns selectors: `on` and `off` (the control that sets it),
        or `flip` (one control that flips it)."""
        aria = self.site.layout["aria"]
        note_html = f' <small class="note">{esc(note)}</small>' if note else ""
        if widget == "checkbox":
            cid = self._id()
            checked = " checked" if on != inverted else ""
            hidden_value, box_value = ("on", "off") if inverted else ("off", "on")
            self.blocks.append(
                f'<p class="tog"><input type="hidden" name="{name}" value="{hidden_value}">'
                f'<label><input type="checkbox" id="{cid}" name="{name}" value="{box_value}"'
                f"{checked}> {esc(label)}</label>{note_html}</p>"
            )
            return {"flip": self._control(cid, label, "checkbox", commits)}
        if widget == "radio":
            yes, no = self._id(), self._id()
            state = "on" if on else "off"
            yes_value, no_value = ("off", "on") if inverted else ("on", "off")
            self.blocks.append(
                f'<fieldset class="tog"><legend>{esc(label)}</legend>{note_html}'
                f'<label><input type="radio" id="{yes}" name="{name}" value="{yes_value}"'
                f"{' checked' if state == yes_value else ''}> Yes</label> "
                f'<label><input type="radio" id="{no}" name="{name}" value="{no_value}"'
                f"{' checked' if state == no_value else ''}> No</label></fieldset>"
            )
            on_id, off_id = (no, yes) if inverted else (yes, no)
            return {
                "on": self._control(
                    on_id, f"{label}: {'No' if inverted else 'Yes'}", "radio", commits
                ),
                "off": self._control(
                    off_id, f"{label}: {'Yes' if inverted else 'No'}", "radio", "none"
                ),
            }
        hid, cid = self._id(), self._id()
        state = "on" if on else "off"
        cls = "sw on" if on else "sw"
        if widget == "switch" and aria:
            ctl = (
                f'<button type="button" role="switch" aria-checked="{str(on).lower()}" id="{cid}" '
                f'class="{cls}" data-field="{hid}" onclick="flip(this)" aria-label="{esc(label)}">'
                f'<span class="state">{"On" if on else "Off"}</span></button>'
            )
        elif widget == "switch":
            ctl = (
                f'<span tabindex="0" id="{cid}" class="{cls}" data-field="{hid}" '
                f'onclick="flip(this)"><span class="state">{"On" if on else "Off"}</span></span>'
            )
        else:  # image button
            alt = f' aria-pressed="{str(on).lower()}"' if aria else ""
            ctl = (
                f'<button type="button" id="{cid}" class="img {cls}" data-field="{hid}"{alt} '
                f'onclick="flip(this)"><img alt="{esc(label)}" width="28" height="16" src="data:'
                "image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 width=%2228%22 "
                "height=%2216%22%3E%3Crect width=%2228%22 height=%2216%22 rx=%228%22 fill=%22%23888"
                '%22/%3E%3C/svg%3E"><span class="state">'
                + ("On" if on else "Off")
                + "</span></button>"
            )
        self.blocks.append(
            f'<p class="tog"><input type="hidden" id="{hid}" name="{name}" value="{state}">'
            f"<span>{esc(label)}</span> {ctl}{note_html}</p>"
        )
        return {"flip": self._control(cid, label, widget, commits)}

    def button(
        self,
        label: str,
        commits: str,
        style: str = "primary",
        name: str = "",
        value: str = "",
        target: str = "",
    ) -> str:
        """A submit button of the page's form (`target` overrides the form's action)."""
        cid = self._id()
        attrs = f' name="{name}" value="{esc(value)}"' if name else ""
        attrs += f' formaction="{target}"' if target else ""
        self.buttons.append(
            f'<button type="submit" id="{cid}" class="{style}"{attrs}>{esc(label)}</button>'
        )
        return self._control(cid, label, "button", commits)

    def link(
        self,
        label: str,
        href: str,
        commits: str,
        style: str = "",
        carry: bool = True,
        fixed: str = "",
        before: str = "",
    ) -> str:
        """A link (`fixed`: its id, where a predicate watches it; `before`: text before it)."""
        cid = fixed or self._id()
        data = " data-carry" if carry else ""
        cls = f' class="{style}"' if style else ""
        lead = f"{esc(before)} " if before else ""
        self.blocks.append(f'<p>{lead}<a id="{cid}" href="{href}"{cls}{data}>{esc(label)}</a></p>')
        return self._control(cid, label, "link", commits)

    def dialog(
        self,
        heading: str,
        body: str,
        yes: tuple[str, str, str],
        no: tuple[str, str],
        field_name: str,
        yes_value: str = "on",
        no_value: str = "",
        fixed: str = "",
    ) -> tuple[str, str]:
        """A dialog over the page on load: `yes` = (label, commits, style), `no` = (label, style).
        Sets hidden field `field_name` and closes (an empty value is ignored by the summaries).
        `fixed`: the yes button's id, where a predicate watches it. Returns (yes, no) selectors."""
        did, hid, yid, nid = self._id(), self._id(), fixed or self._id(), self._id()
        aria = ' role="dialog" aria-modal="true"' if self.site.layout["aria"] else ""
        self.blocks.append(f'<input type="hidden" id="{hid}" name="{field_name}" value="">')
        self.dialogs.append(
            f'<div id="{did}" class="overlay"><div class="dialog"{aria}>'
            f"<h2>{esc(heading)}</h2><p>{esc(body)}</p>"
            f'<button type="button" id="{yid}" class="{yes[2]}" '
            f"onclick=\"closeDialog('{did}','{hid}','{yes_value}')\">{esc(yes[0])}</button> "
            f'<button type="button" id="{nid}" class="{no[1]}" '
            f"onclick=\"closeDialog('{did}','{hid}','{no_value}')\">{esc(no[0])}</button>"
            "</div></div>"
        )
        return (
            self._control(yid, yes[0], "dialog-button", yes[1]),
            self._control(nid, no[0], "dialog-button", "decline"),
        )

    def removable(self, name: str, line: str, remove: str) -> str:
        """A line the site put in the basket (field `name` on) with a small button removing it:
        the line then says it was removed, struck through, and its button is gone (as a shop's
        basket shows a removed line)."""
        hid, cid = self._id(), self._id()
        self.blocks.append(
            f'<p class="line"><input type="hidden" id="{hid}" name="{name}" value="on">'
            f'<span>{esc(line)}</span> <button type="button" id="{cid}" class="faint" '
            f'data-field="{hid}" onclick="takeOut(this)">{esc(remove)}</button></p>'
        )
        return self._control(cid, remove, "button", "decline")

    # ---- the document -----------------------------------------------------------------------
    def render(self) -> str:
        site, lay = self.site, self.site.layout
        body = "\n".join(self.blocks)
        buttons = " ".join(self.buttons)
        if self.action:
            body = (
                f'<form action="{self.action}" method="get">\n{body}\n'
                f'<div class="actions">{buttons}</div>\n</form>'
            )
        summary = ""
        if self.summary:
            summary = f"<script>const SUMMARY = {json.dumps(self.summary)};{SUMMARY_JS}</script>"
        nav = site.nav_html()
        return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{esc(site.brand)} - {esc(self.title)}</title>
<style>
body{{font-family:{lay["font"]};margin:0;background:{lay["bg"]};color:#222}}
header{{background:{lay["accent"]};color:#fff;padding:12px 22px}}
header a{{color:#fff;margin-left:14px}}
main{{max-width:760px;margin:20px auto;background:#fff;padding:20px 24px;border-radius:4px}}
fieldset{{border:1px solid #ddd;margin:12px 0;padding:10px}} label.opt{{display:block;margin:5px 0}}
.actions{{margin-top:16px;padding-top:10px;border-top:1px solid #eee}}
button.primary,a.primary{{background:{lay["accent"]};color:#fff;border:0;padding:11px 26px;
 font-size:17px;font-weight:700;border-radius:4px;text-decoration:none;display:inline-block}}
button.secondary{{background:#eee;color:#222;border:1px solid #bbb;padding:9px 20px;font-size:15px}}
button.faint,a.faint{{background:none;border:0;color:#999;font-size:11px;text-decoration:underline}}
button.huge,a.huge{{background:#2ec27e;color:#fff;border:0;padding:16px 40px;font-size:22px;
 font-weight:800;border-radius:6px;text-decoration:none;display:inline-block}}
.sw{{display:inline-block;min-width:44px;padding:2px 6px;border:1px solid #888;border-radius:12px;
 background:#ddd;cursor:pointer}} .sw.on{{background:{lay["accent"]};color:#fff}}
.note{{color:#888;font-size:11px}} .urgent{{color:#c01c28;font-weight:700}}
.ad{{border:1px dashed #ccc;padding:8px;margin:10px 0}}
.overlay{{position:fixed;inset:0;background:rgba(0,0,0,.45);z-index:10;display:flex;
 align-items:center;justify-content:center}}
.dialog{{background:#fff;padding:22px;max-width:420px;border-radius:6px}}
.dialog a{{display:inline-block;margin:4px 6px}}
footer{{max-width:760px;margin:0 auto 30px;color:#666;font-size:13px}}
</style></head>
<body>
<header><strong>{esc(site.brand)}</strong>{nav}</header>
<main>
<h1>{esc(self.title)}</h1>
{body}
</main>
<footer>{self.footer}</footer>
{"".join(self.dialogs)}
<script>{CARRY_JS}</script>
{"".join(f"<script>{js}</script>" for js in self.scripts)}
{summary}
</body></html>
"""


@dataclass
class Site:
    """A site being written: its brand, layout and pages, and every control's label."""

    slug: str
    brand: str
    layout: dict
    split: str
    nav: list[tuple[str, str]] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)
    controls: list[Control] = field(default_factory=list)
    counter: int = 0

    def page(self, file: str, title: str, action: str = "") -> Page:
        p = Page(self, file, title, action)
        self.pages.append(p)
        return p

    def nav_html(self) -> str:
        return "".join(f'<a href="{h}">{esc(t)}</a>' for t, h in self.nav)
