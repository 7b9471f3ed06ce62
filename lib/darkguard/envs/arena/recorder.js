// The episode's click and input log (capture phase, before any page handler can stop it): for each
// event, which of the task's watched selectors the target matches or sits inside. Installed by the
// environment as an init script; WATCHED is replaced with the selectors. It reports through the
// binding `__dgRecord` and keeps nothing a page script could read.
(() => {
  const watched = WATCHED;
  const hits = (target) => {
    const el = target instanceof Element ? target : target && target.parentElement;
    if (!el) return [];
    return watched.filter((sel) => { try { return !!el.closest(sel); } catch (e) { return false; } });
  };
  const report = (kind, event) => {
    // clicks count when a user (or the browser driven like one) makes them; a value change counts
    // however it came (selecting an option dispatches its events from script)
    if ((kind === "click" && !event.isTrusted) || typeof window.__dgRecord !== "function") return;
    const t = event.target;
    const value = kind === "click" ? "" : (t && "value" in t ? String(t.value) : "");
    window.__dgRecord({ kind, hits: hits(t), value });
  };
  // a navigation this page starts (link, form, script) marks it, so the environment waits for
  // the next document instead of reading this one again
  const leaving = () => { window.__dgLeaving = true; };
  addEventListener("beforeunload", leaving, true);
  addEventListener("pagehide", leaving, true);
  addEventListener("click", (e) => report("click", e), true);
  addEventListener("input", (e) => report("input", e), true);
  addEventListener("change", (e) => report("input", e), true);
})();
