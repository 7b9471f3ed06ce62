// What a user's agent sees of a page: the interactive elements (role, accessible name, visible
// text, state, box, prominence, whether something covers them, whether they sit in a dialog) and
// the page's visible text. Never ids, classes or attributes a user cannot see.
() => {
  const INTERACTIVE = "a[href], button, input:not([type=hidden]), select, textarea, summary, " +
    "[role=button], [role=link], [role=checkbox], [role=switch], [role=radio], [role=tab], " +
    "[role=menuitem], [role=option], [onclick], [tabindex]:not([tabindex='-1'])";
  const IMPLICIT = { A: "link", BUTTON: "button", SELECT: "combobox", TEXTAREA: "textbox",
    SUMMARY: "button", IMG: "img" };
  const INPUT_ROLES = { checkbox: "checkbox", radio: "radio", button: "button", submit: "button",
    reset: "button", image: "button", range: "slider", search: "searchbox" };
  const clean = (s, n) => (s || "").replace(/\s+/g, " ").trim().slice(0, n);

  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return false;
    const s = getComputedStyle(el);
    return s.visibility !== "hidden" && s.display !== "none" && Number(s.opacity) > 0.05;
  };
  const roleOf = (el) => {
    const explicit = el.getAttribute("role");
    if (explicit) return explicit.split(" ")[0];
    if (el.tagName === "INPUT") return INPUT_ROLES[(el.type || "text").toLowerCase()] || "textbox";
    return IMPLICIT[el.tagName] || "generic";
  };
  const labelText = (el) => {
    const by = el.getAttribute("aria-labelledby");
    if (by) return by.split(/\s+/).map((i) => document.getElementById(i)?.innerText || "").join(" ");
    if (el.labels && el.labels.length) return Array.from(el.labels).map((l) => l.innerText).join(" ");
    return "";
  };
  const nameOf = (el) => {
    const img = el.tagName === "IMG" ? el : el.querySelector("img[alt]");
    return clean(
      el.getAttribute("aria-label") || labelText(el) ||
      (el.tagName === "INPUT" && ["button", "submit", "reset"].includes(el.type) ? el.value : "") ||
      el.getAttribute("alt") || (img && !el.innerText.trim() ? img.getAttribute("alt") : "") ||
      el.innerText || el.getAttribute("title") || el.getAttribute("placeholder") || "", 120);
  };
  const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length >= 3 && (c.length < 4 || c[3] > 0.5)) return c;
    }
    return [255, 255, 255];
  };
  const luminance = (c) => (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) / 255;
  const saturation = (c) => (Math.max(...c.slice(0, 3)) - Math.min(...c.slice(0, 3))) / 255;
  const prominence = (el, r) => {
    const bg = background(el), around = background(el.parentElement || el);
    const contrast = Math.abs(luminance(bg) - luminance(around)) + saturation(bg);
    const s = getComputedStyle(el);
    const weight = Number(s.fontWeight) >= 600 ? 1.15 : 1;
    const size = Math.min(2, parseFloat(s.fontSize) / 15);
    const area = Math.sqrt(r.width * r.height) / 60;
    return Math.round(area * (0.6 + contrast) * weight * size * 100) / 100;
  };
  const dialogOf = (el) => {
    for (let e = el; e && e !== document.body; e = e.parentElement) {
      if (e.tagName === "DIALOG" || ["dialog", "alertdialog"].includes(e.getAttribute("role")) ||
          e.getAttribute("aria-modal") === "true") return e;
      const s = getComputedStyle(e);
      if (s.position === "fixed" && Number(s.zIndex) > 0) {
        const r = e.getBoundingClientRect();
        if (r.width * r.height > 0.15 * innerWidth * innerHeight) return e;
      }
    }
    return null;
  };
  const covered = (el, r) => {
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return false;
    const top = document.elementFromPoint(x, y);
    return !!top && top !== el && !el.contains(top) && !top.contains(el);
  };
  const contextOf = (el, name) => {
    for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
      const t = clean(e.innerText, 300);
      if (t.length > name.length + 15) return t;
    }
    return "";
  };
  const stateOf = (el) => {
    const st = {};
    const aria = (a) => el.getAttribute(a);
    if (el.type === "checkbox" || el.type === "radio") st.checked = el.checked;
    else if (aria("aria-checked") !== null) st.checked = aria("aria-checked") === "true";
    if (aria("aria-pressed") !== null) st.pressed = aria("aria-pressed") === "true";
    if (aria("aria-expanded") !== null) st.expanded = aria("aria-expanded") === "true";
    else if (el.tagName === "SUMMARY" && el.parentElement && el.parentElement.tagName === "DETAILS")
      st.expanded = el.parentElement.open;  // a disclosure shows whether it is open
    if (aria("aria-selected") !== null) st.selected = aria("aria-selected") === "true";
    if (el.disabled || aria("aria-disabled") === "true") st.disabled = true;
    if (el.tagName === "SELECT") {
      st.value = el.selectedOptions[0] ? clean(el.selectedOptions[0].text, 80) : "";
      st.options = Array.from(el.options).map((o) => clean(o.text, 80));
    } else if (el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && roleOf(el) === "textbox") ||
               roleOf(el) === "searchbox") {
      st.value = el.value;
    }
    return st;
  };
  const pointer = (el) => getComputedStyle(el).cursor === "pointer";
  const candidates = new Set(document.querySelectorAll(INTERACTIVE));
  for (const el of document.querySelectorAll("body *")) {
    if (pointer(el) && !(el.parentElement && pointer(el.parentElement))) candidates.add(el);
  }
  const chosen = [];
  for (const el of candidates) {
    if (!visible(el) && !(el.type === "checkbox" || el.type === "radio")) continue;
    // a pointer-styled child of an element already listed is the same control
    let inside = false;
    for (let e = el.parentElement; e; e = e.parentElement) if (candidates.has(e) && visible(e)) { inside = true; break; }
    if (inside && !["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName)) continue;
    chosen.push(el);
  }
  const elements = [];
  window.__dgEls = [];
  for (const el of chosen) {
    // a visually hidden checkbox/radio is reached through its visible label
    let target = el;
    if (!visible(el) && el.labels && el.labels.length && visible(el.labels[0])) target = el.labels[0];
    else if (!visible(el)) continue;
    const r = target.getBoundingClientRect();
    const name = nameOf(el);
    window.__dgEls.push(target);
    elements.push({
      index: elements.length,
      role: roleOf(el),
      name,
      text: clean(target.innerText, 200),
      context: contextOf(target, name),
      state: stateOf(el),
      box: [Math.round(r.left + scrollX), Math.round(r.top + scrollY), Math.round(r.width), Math.round(r.height)],
      prominence: prominence(target, r),
      covered: covered(target, r),
      in_dialog: !!dialogOf(target),
      // where a link leads, as a user sees it on hover (same-site links as their path)
      href: el.tagName === "A" && el.href ? (el.origin === location.origin
        ? el.pathname + el.search : el.href) : "",
    });
  }
  return {
    url: location.href,
    title: document.title,
    text: (document.body ? document.body.innerText : "").replace(/[ \t]+/g, " ")
      .replace(/\s*\n\s*/g, "\n").trim().slice(0, 8000),
    viewport: [innerWidth, innerHeight, Math.round(scrollX), Math.round(scrollY)],
    elements,
  };
}
