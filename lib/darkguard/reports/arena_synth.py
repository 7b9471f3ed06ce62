"""Reports of the `arena_synth` stage: the base agent with no defense on arena-synth `eval` and the
hand-written `held_out` sites beside `arena_eval`'s TrickyArena / WebDecept rows, with the sets
the agent was developed on marked (`tables/arena_synth/no_defense`); clean vs dark twins per task
kind (`twins_by_kind`) and per pattern (`twins_by_pattern`), each with Wilson intervals and an
exact McNemar test on the twin pairs; the element scorer on careful users' clicks (`scorer`);
the splits' composition (`splits`); `metrics/arena_synth.json`. Generality claims read `eval` and
`held_out` only: the agent's planner was written on the arena's apps, and its scorer trained on
`dev`."""

from __future__ import annotations

import pandas as pd

from darkguard import paths
from darkguard.io import read_json, write_json
from darkguard.metrics.arena import score
from darkguard.metrics.intervals import interval_text, mcnemar
from darkguard.reports.tables import save_table
from darkguard.stages.arena_synth import ArenaSynthResult

SET_TITLES = {
    "arena_synth_eval": "arena-synth eval",
    "arena_synth_dev": "arena-synth dev",
    "held_out": "held_out (hand-written sites)",
    "trickyarena_single": "TrickyArena-Single",
    "trickyarena_multi": "TrickyArena-Multi",
    "webdecept": "WebDecept",
    "webdecept_feasible": "WebDecept feasible",
}
DEVELOPED_ON = {
    "arena_synth_eval": "no (reported only)",
    "arena_synth_dev": "yes (scorer trained on its clean twins)",
    "held_out": "no (reported only)",
    "trickyarena_single": "yes (planner written on these apps)",
    "trickyarena_multi": "yes (planner written on these apps)",
    "webdecept": "yes (planner written on these apps)",
    "webdecept_feasible": "yes (planner written on these apps)",
}


def acted(record: dict) -> bool:
    """Whether the episode's agent did anything before stopping."""
    return any(a.get("action") not in ("stop", "timeout") for a in record["actions"])


def _rate_columns(k_t: int, k_d: int, k_stc: int, n: int) -> dict:
    pct = (lambda k: round(100.0 * k / n, 1)) if n else (lambda k: 0.0)
    return {
        "N": n,
        "TSR": pct(k_t),
        "TSR 95% CI": interval_text(k_t, n),
        "DPSR": pct(k_d),
        "DPSR 95% CI": interval_text(k_d, n),
        "STC": pct(k_stc),
    }


def no_defense_table(result: ArenaSynthResult) -> pd.DataFrame:
    rows = []
    for name, run in result.runs.items():
        s = score(run.records)
        rows.append(
            {
                "set": SET_TITLES.get(name, name),
                "developed on": DEVELOPED_ON.get(name, "no"),
                **_rate_columns(s.n_T, s.n_D, s.n_STC, s.N),
                "no action": sum(not acted(r) for r in run.records),
                "run": "this stage",
            }
        )
    arena = paths.reports_dir() / "metrics" / "arena.json"
    if arena.is_file():
        metrics = read_json(arena)
        for name in ("trickyarena_single", "trickyarena_multi", "webdecept", "webdecept_feasible"):
            if name in metrics:
                m = metrics[name]
                rows.append(
                    {
                        "set": SET_TITLES[name],
                        "developed on": DEVELOPED_ON[name],
                        **_rate_columns(m["n_T"], m["n_D"], m["n_STC"], m["N"]),
                        "no action": "",
                        "run": "arena_eval",
                    }
                )
    return pd.DataFrame(rows)


def _pairs(result: ArenaSynthResult, name: str) -> list[tuple[dict, dict, dict]]:
    """(truth of the dark task, dark record, clean record) of every twin pair of a synth run."""
    split = name.removeprefix("arena_synth_")
    truth = result.truth[split]
    by_id = {r["id"]: r for r in result.runs[name].records}
    out = []
    for tid, t in sorted(truth.items()):
        if t["dark"] and tid in by_id and t["twin"] in by_id:
            out.append((t, by_id[tid], by_id[t["twin"]]))
    return out


def _twin_row(pairs: list[tuple[dict, dict, dict]]) -> dict:
    n = len(pairs)
    dark_t = sum(d["T"] for _, d, _ in pairs)
    clean_t = sum(c["T"] for _, _, c in pairs)
    dark_d = sum(d["D"] for _, d, _ in pairs)
    clean_d = sum(c["D"] for _, _, c in pairs)
    only_dark = sum(d["D"] and not c["D"] for _, d, c in pairs)
    only_clean = sum(c["D"] and not d["D"] for _, d, c in pairs)
    pct = (lambda k: round(100.0 * k / n, 1)) if n else (lambda k: 0.0)
    return {
        "pairs": n,
        "TSR clean": pct(clean_t),
        "TSR clean 95% CI": interval_text(clean_t, n),
        "TSR dark": pct(dark_t),
        "D clean": pct(clean_d),
        "D dark": pct(dark_d),
        "D dark 95% CI": interval_text(dark_d, n),
        "D dark-only pairs": only_dark,
        "D clean-only pairs": only_clean,
        "McNemar p (D)": mcnemar(only_dark, only_clean),
    }


def twins_table(result: ArenaSynthResult, name: str, by: str) -> pd.DataFrame:
    """Clean vs dark twins of a synth run, grouped by task `kind` or by `pattern`."""
    pairs = _pairs(result, name)
    groups: dict[str, list] = {}
    for p in pairs:
        keys = [p[0]["kind"]] if by == "kind" else list(p[0]["patterns"])
        for key in keys:
            groups.setdefault(key, []).append(p)
    rows = [{by: key, **_twin_row(groups[key])} for key in sorted(groups)]
    rows.append({by: "all", **_twin_row(pairs)})
    return pd.DataFrame(rows)


def scorer_table(result: ArenaSynthResult) -> pd.DataFrame:
    meta = result.scorer_meta
    return pd.DataFrame(
        [
            {
                "split": c.split,
                "trained on it": "yes" if c.split == "dev" else "no",
                "demonstrated clicks": c.pages,
                "ranked first %": round(100 * c.top1, 1),
                "pages read": c.done_pages,
                "completion read right %": round(100 * c.done_accuracy, 1),
                "l2": meta.get("l2", ""),
            }
            for c in result.scorer
        ]
    )


def splits_table(result: ArenaSynthResult) -> pd.DataFrame:
    rows = []
    for split, truth in result.truth.items():
        kinds: dict[str, int] = {}
        for t in truth.values():
            kinds[t["kind"]] = kinds.get(t["kind"], 0) + 1
        rows.append({"split": split, "tasks": len(truth), **dict(sorted(kinds.items()))})
    return pd.DataFrame(rows).fillna(0)


def write_arena_synth_reports(result: ArenaSynthResult, profile: str) -> dict[str, pd.DataFrame]:
    """Write the stage's tables and metrics; the tables by name."""
    who = f"{profile} profile, `{result.agent}` base agent, no defense"
    tables = {"arena_synth/no_defense": no_defense_table(result)}
    save_table(
        tables["arena_synth/no_defense"],
        "arena_synth/no_defense",
        f"The base agent with no defense off and on the sets it was developed on ({who}). "
        "Wilson 95% intervals; 'no action': episodes that ended before any action. The "
        "TrickyArena / WebDecept rows are arena_eval's (its own stage).",
    )
    for name in result.runs:
        if not name.startswith("arena_synth_"):
            continue
        for by in ("kind", "pattern"):
            key = f"arena_synth/{name.removeprefix('arena_synth_')}_twins_by_{by}"
            tables[key] = twins_table(result, name, by)
            save_table(
                tables[key],
                key,
                f"{SET_TITLES[name]}: dark tasks against their clean twins by {by} ({who}); "
                "D = the harmful outcome of the pair's deception predicate; McNemar's exact "
                "test on the pairs (p >= 0.05: no difference shown).",
            )
    if result.scorer:
        tables["arena_synth/scorer"] = scorer_table(result)
        save_table(
            tables["arena_synth/scorer"],
            "arena_synth/scorer",
            "The offline agent's element scorer on careful users' clicks of clean twins (ranked "
            "first among the page's clickable controls), and its completion model on their pages; "
            f"trained on {result.scorer_meta.get('trained_on', '?')}.",
        )
    tables["arena_synth/splits"] = splits_table(result)
    save_table(tables["arena_synth/splits"], "arena_synth/splits", "arena-synth tasks by kind.")
    write_json(
        paths.reports_dir() / "metrics" / "arena_synth.json",
        {
            "profile": profile,
            "agent": result.agent,
            **{name: score(run.records).as_dict() for name, run in result.runs.items()},
            "no_action": {
                name: sum(not acted(r) for r in run.records) for name, run in result.runs.items()
            },
            "scorer": {c.split: c.__dict__ for c in result.scorer},
        },
    )
    return tables
