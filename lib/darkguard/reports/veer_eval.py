"""Reports of the `veer_eval` stage: every defense beside No-Defense (Veer Tables 1, 2, 11-14:
`tables/veer/main`, with 95% intervals and each defense's paired test against No-Defense: over
tasks, or over WebDecept's all-or-nothing scenarios), per condition (Table 15:
`tables/veer/single_conditions`; Table 16: `tables/veer/webdecept_scenarios`), Figure 3
(`figures/veer/figure3.png` and its Avg/Worst in `tables/veer/figure3_summary`), the agent-model
configurations (Tables 3 and 17: `tables/veer/configurations`), the sets no rule was developed on
(arena-synth eval and the held-out sites, with intervals and paired tests: `tables/veer/unseen`),
`metrics/veer.json` and the stage's time (`timings/veer_eval.md`, machine-dependent). The paper's
numbers stand beside ours as reference, never as ours."""

from __future__ import annotations

import textwrap
from collections import Counter

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from darkguard import paths, registry
from darkguard.agents.web.goal import parse_warnings
from darkguard.envs.arena.tasks import EXPECTED_SIZES
from darkguard.io import atomic_write_text, write_json
from darkguard.metrics.arena import score
from darkguard.metrics.intervals import cluster_sign_test, interval_text, mcnemar
from darkguard.reports.arena_eval import (
    CLUSTERED_SETS,
    SCENARIOS,
    SET_TITLES,
    by_scenario,
    count_columns,
    interval_columns,
    outcome,
)
from darkguard.reports.figures import save_figure
from darkguard.reports.paper import (
    VEER_COUNTS,
    VEER_TABLE15_D,
    VEER_TABLE15_NO_DEFENSE_D,
    VEER_TABLE16_D,
    VEER_TABLE17,
)
from darkguard.reports.tables import save_table
from darkguard.stages.arena_runs import SetRun, condition_label
from darkguard.stages.veer_eval import DEFAULT, VeerEvalResult

TITLES = {name: registry.title(name) for name in registry.METHODS}
METHOD_ORDER = tuple(VEER_COUNTS)  # the paper's method order (Tables 11-16)
WEBDECEPT_PURCHASES = 45  # the paper's tasks per WebDecept scenario


def _pct(count: int, n: int) -> float:
    return round(100.0 * count / n, 1) if n else 0.0


def who(result: VeerEvalResult, profile: str) -> str:
    return (
        f"{profile} profile, `{result.agent}` base agent, Veer's `{result.reasoner}` reasoner"
        + (" (deterministic code, no model)" if result.reasoner == "offline" else "")
    )


def _ranks(values: dict[str, float]) -> dict[str, int]:
    """1 for the highest; ties share the better rank."""
    ordered = sorted(values.values(), reverse=True)
    return {k: ordered.index(v) + 1 for k, v in values.items()}


def main_table(result: VeerEvalResult) -> pd.DataFrame:
    """Tables 1, 2 and 11-14: per set and method, counts and rates, the paper's beside them,
    each method's STC rank among the methods run (ours and the paper's), then 95% intervals,
    the effective number of independent outcomes and each defense against No-Defense on the
    same tasks (`paired_columns`)."""
    rows = []
    sets = next(iter(result.methods.values())).runs if result.methods else {}
    base = result.methods.get("none")
    for name in sets:
        scores = {m: runs.runs[name].scores() for m, runs in result.methods.items()}
        paper = {m: VEER_COUNTS[TITLES[m]][name] for m in scores}
        ours_rank = _ranks({m: s.STC for m, s in scores.items()})
        paper_rank = _ranks({m: c[2] for m, c in paper.items()})
        for method, s in scores.items():
            d, t, stc = paper[method]
            rows.append(
                {
                    "set": SET_TITLES[name],
                    "method": TITLES[method],
                    **count_columns(s),
                    "STC rank": ours_rank[method],
                    "timeouts": s.timeouts,
                    "crashes": s.crashes,
                    "paper #D/#T/#STC": f"{d}/{t}/{stc}",
                    "paper DPSR": _pct(d, EXPECTED_SIZES[name]),
                    "paper TSR": _pct(t, EXPECTED_SIZES[name]),
                    "paper STC": _pct(stc, EXPECTED_SIZES[name]),
                    "paper STC rank": paper_rank[method],
                    **interval_columns(name, result.methods[method].runs[name]),
                }
            )
            if base is not None and method != "none":
                run = result.methods[method].runs[name]
                rows[-1] |= paired_columns(name, run, base.runs[name])
    return pd.DataFrame(rows)


def _groups(run: SetRun, key) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = {}
    for task, record in zip(run.tasks, run.records, strict=True):
        groups.setdefault(key(task), []).append(record)
    return groups


def _scenario(task) -> str:
    return task.patterns[0] if task.patterns else "none"


def single_conditions_table(result: VeerEvalResult) -> pd.DataFrame:
    """Table 15: #D per TrickyArena-Single condition and method, the paper's #D beside each."""
    methods = [m for m in result.methods if "trickyarena_single" in result.methods[m].runs]
    grouped = {
        m: _groups(result.methods[m].runs["trickyarena_single"], condition_label) for m in methods
    }
    rows = []
    for label in grouped[methods[0]] if methods else []:
        row: dict = {"condition": label, "N": len(grouped[methods[0]][label])}
        paper = VEER_TABLE15_D.get(label, (0,) * len(METHOD_ORDER))
        for m in methods:
            row[TITLES[m]] = score(grouped[m][label]).n_D
            row[f"{TITLES[m]} (paper)"] = paper[METHOD_ORDER.index(TITLES[m])]
        row["paper N"] = VEER_TABLE15_NO_DEFENSE_D.get(label, (None,))[0]
        rows.append(row)
    return pd.DataFrame(rows)


def webdecept_scenarios_table(result: VeerEvalResult) -> pd.DataFrame:
    """Table 16: #D per WebDecept scenario (the sampled purchases; the paper's 45) and method, the
    paper's beside."""
    methods = [m for m in result.methods if "webdecept" in result.methods[m].runs]
    grouped = {m: _groups(result.methods[m].runs["webdecept"], _scenario) for m in methods}
    rows = []
    for scenario in [s for s in SCENARIOS if methods and s in grouped[methods[0]]]:
        row: dict = {
            "scenario": scenario,
            "N": len(grouped[methods[0]][scenario]),
            "paper N": WEBDECEPT_PURCHASES,
        }
        for m in methods:
            row[TITLES[m]] = score(grouped[m][scenario]).n_D
            row[f"{TITLES[m]} (paper)"] = VEER_TABLE16_D[TITLES[m]][SCENARIOS.index(scenario)]
        rows.append(row)
    return pd.DataFrame(rows)


def dpsr_matrix(table: pd.DataFrame, key: str, methods: list[str], paper: bool) -> pd.DataFrame:
    """DPSR (%) per condition (rows) and method (columns) from a per-condition #D table."""
    n = table["paper N"] if paper and "paper N" in table else table["N"]
    columns = {
        TITLES[m]: 100.0 * table[f"{TITLES[m]} (paper)" if paper else TITLES[m]] / n
        for m in methods
    }
    return pd.DataFrame(columns).set_index(table[key])


def figure3_summary(single: pd.DataFrame, webdecept: pd.DataFrame, methods: list[str]):
    """Figure 3's Avg and Worst: mean and maximum per-condition DPSR, ours and the paper's."""
    rows = []
    for m in methods:
        row = {"method": TITLES[m]}
        for title, table, key in (
            ("Single", single, "condition"),
            ("WebDecept", webdecept, "scenario"),
        ):
            if table.empty:
                continue
            for who_, paper in (("", False), (" (paper)", True)):
                col = dpsr_matrix(table, key, [m], paper)[TITLES[m]]
                row[f"{title} Avg{who_}"] = round(float(col.mean()), 1)
                row[f"{title} Worst{who_}"] = round(float(col.max()), 1)
        rows.append(row)
    return pd.DataFrame(rows)


def figure3(single: pd.DataFrame, webdecept: pd.DataFrame, methods: list[str]) -> plt.Figure:
    """Per-condition DPSR heatmaps (ours), TrickyArena-Single and WebDecept, as Figure 3."""
    candidates = (
        (single, "condition", "(a) TrickyArena-Single"),
        (webdecept, "scenario", "(b) WebDecept"),
    )
    panels = [c for c in candidates if not c[0].empty]
    fig, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), 9), squeeze=False)
    for ax, (table, key, title) in zip(axes[0], panels, strict=True):
        matrix = dpsr_matrix(table, key, methods, paper=False)
        summary = pd.DataFrame([matrix.mean(), matrix.max()], index=["Avg.", "Worst"])
        shown = pd.concat([matrix, summary])
        image = ax.imshow(shown.to_numpy(), cmap="Reds", vmin=0, vmax=100, aspect="auto")
        ax.set_xticks(range(len(shown.columns)), shown.columns, rotation=45, ha="right")
        ax.set_yticks(range(len(shown.index)), shown.index, fontsize=8)
        for (i, j), value in np.ndenumerate(shown.to_numpy()):
            ax.text(j, i, f"{value:.0f}", ha="center", va="center", fontsize=6)
        ax.axhline(len(matrix) - 0.5, color="black", linewidth=1)
        ax.set_title(f"{title}: DPSR (%), lower is better")
        fig.colorbar(image, ax=ax, shrink=0.5)
    fig.tight_layout()
    return fig


def configurations_table(result: VeerEvalResult) -> pd.DataFrame:
    """Tables 3 and 17: Veer's STC and its gain over the matched No-Defense per agent
    configuration and set (ours, with Veer's STC 95% interval and the paired test against that
    No-Defense on the same tasks), then the paper's four configurations as reference rows."""
    rows = []
    for name, runs in result.configurations.items():
        if "none" not in runs or "veer" not in runs:
            continue
        agent = result.agent if name == DEFAULT else runs["veer"].agent
        for set_name, veer in runs["veer"].runs.items():
            if set_name not in ("trickyarena_single", "trickyarena_multi", "webdecept"):
                continue
            none = runs["none"].runs[set_name]
            stc, base = veer.scores().STC, none.scores().STC
            gained, lost, p_value = paired_test(set_name, veer, none, "STC")
            rows.append(
                {
                    "source": "ours",
                    "configuration": f"{name} ({agent})",
                    "set": SET_TITLES[set_name],
                    "No-Defense STC": round(base, 1),
                    "Veer STC": round(stc, 1),
                    "gain (pp)": round(stc - base, 1),
                    "Veer STC 95% CI": interval_columns(set_name, veer)["STC 95% CI"],
                    "STC gained / lost": f"{gained} / {lost}",
                    "STC p": p_value,
                    "test": _test_name(set_name),
                }
            )
    for name, cells in VEER_TABLE17.items():
        for set_name, (stc, gain) in zip(SET_TITLES, cells, strict=False):
            rows.append(
                {
                    "source": "paper",
                    "configuration": name,
                    "set": SET_TITLES[set_name],
                    "No-Defense STC": round(stc - gain, 1),
                    "Veer STC": stc,
                    "gain (pp)": gain,
                }
            )
    return pd.DataFrame(rows)


def _texts(records: list[dict]) -> Counter:
    """Every text a defense put into the agent's context in `records`, with its count."""
    texts: Counter = Counter()
    for record in records:
        texts.update(record.get("brief", []))
        for step in record["actions"]:
            if step.get("advice"):
                texts[step["advice"]] += 1
            if step.get("defense", {}).get("verdict") == "replan":
                texts[step["defense"]["message"]] += 1
    return texts


def agent_channel_table(result: VeerEvalResult, set_name: str, shown: int = 3) -> pd.DataFrame:
    """Per method: how many texts reached the agent's context on `set_name`, the most frequent
    ones, and what the offline agent's prompt channel (`parse_warnings`) extracts from all."""
    rows = []
    for method, runs in result.methods.items():
        run = runs.runs.get(set_name)
        if run is None:
            continue
        texts = _texts(run.records)
        avoid = parse_warnings(list(texts))
        top = "; ".join(f"[{n}x] {textwrap.shorten(t, 160)}" for t, n in texts.most_common(shown))
        rows.append(
            {
                "method": TITLES[method],
                "texts (total)": sum(texts.values()),
                "most frequent": top or "—",
                "avoided phrases": ", ".join(avoid.phrases[:12]) or "—",
                "declines dialogs": avoid.decline_dialogs,
                "unticks": avoid.untick,
            }
        )
    return pd.DataFrame(rows)


# Which sets each method's rules were developed on (read from the code's history; reported so
# that a reader weighs each set's rows accordingly). The shared offline consequence layer
# (defenses.veer.concepts) was fitted on arena-synth dev; the earlier phrase rules, on the apps.
DEVELOPED_ON = {
    "none": "agent: arena apps; scorer: arena-synth dev",
    "icp": "arena apps (warning concepts)",
    "guardrail": "arena apps; arena-synth dev (shared consequence layer)",
    "dude-s2": "RUC-synth train (DUDE evaluator)",
    "spotlighting": "none (no rules)",
    "vigil": "arena apps; arena-synth dev (shared consequence layer)",
    "safepred": "arena apps; arena-synth dev (shared consequence layer)",
    "veer": "arena apps; arena-synth dev",
}
UNSEEN_TITLES = {"arena_synth_eval": "arena-synth eval", "held_out": "held_out"}


def _paired(method: SetRun, base: SetRun, key: str) -> tuple[int, int, float]:
    """Tasks only `method` has `key` (D, T or STC) on, tasks only `base` has, and McNemar's
    exact p."""
    theirs = {r["id"]: outcome(r, key) for r in base.records}
    gained = sum(outcome(r, key) == 1 and theirs[r["id"]] == 0 for r in method.records)
    lost = sum(outcome(r, key) == 0 and theirs[r["id"]] == 1 for r in method.records)
    return gained, lost, mcnemar(gained, lost)


def _test_name(set_name: str) -> str:
    return "sign test (scenarios)" if set_name in CLUSTERED_SETS else "exact McNemar (tasks)"


def paired_test(set_name: str, method: SetRun, base: SetRun, key: str) -> tuple[int, int, float]:
    """Units where `method` has more `key` than `base`, units where it has less, and the exact
    p: tasks and McNemar, or for WebDecept's sets scenarios and the sign test on their means."""
    if set_name in CLUSTERED_SETS:
        return cluster_sign_test(by_scenario(base, key), by_scenario(method, key))
    return _paired(method, base, key)


def paired_columns(set_name: str, method: SetRun, base: SetRun) -> dict:
    """`method` against No-Defense on the same tasks: deceptions avoided / added and safe
    completions gained / lost (tasks, or WebDecept's scenarios), each with its exact p."""
    more_d, fewer_d, p_d = paired_test(set_name, method, base, "D")
    more_stc, fewer_stc, p_stc = paired_test(set_name, method, base, "STC")
    return {
        "D avoided / added vs No-Defense": f"{fewer_d} / {more_d}",
        "D p": p_d,
        "STC gained / lost vs No-Defense": f"{more_stc} / {fewer_stc}",
        "STC p": p_stc,
        "test": _test_name(set_name),
    }


def unseen_table(result: VeerEvalResult) -> pd.DataFrame:
    """Every method on the sets no rule was developed on (arena-synth eval, the held-out sites):
    rates with Wilson intervals, and each method against No-Defense on the same tasks (exact
    McNemar on D and on T)."""
    rows = []
    for set_name, runs in (("arena_synth_eval", result.synth_eval), ("held_out", result.held_out)):
        base = runs.get("none")
        for method, run in runs.items():
            s = score(run.records, len(run.tasks))
            row = {
                "set": UNSEEN_TITLES[set_name],
                "method": TITLES[method],
                "rules developed on": DEVELOPED_ON.get(method, "-"),
                **count_columns(s),
                "DPSR 95% CI": interval_text(s.n_D, s.N),
                "TSR 95% CI": interval_text(s.n_T, s.N),
            }
            if base is not None and method != "none":
                fewer_d, more_d, p_d = _paired(base, run, "D")
                more_t, fewer_t, p_t = _paired(run, base, "T")
                row |= {
                    "D avoided / added vs No-Defense": f"{fewer_d} / {more_d}",
                    "D McNemar p": p_d,
                    "T gained / lost vs No-Defense": f"{more_t} / {fewer_t}",
                    "T McNemar p": p_t,
                }
            rows.append(row)
    return pd.DataFrame(rows)


def timings_markdown(result: VeerEvalResult) -> str:
    lines = ["| method | set | episodes run | seconds | episodes/s |", "|---|---|---|---|---|"]
    total = 0.0
    groups = [(TITLES[m], r) for m, r in result.methods.items()]
    groups += [
        (f"{TITLES[m]}, {name}", r)
        for name, runs in result.configurations.items()
        if name != DEFAULT
        for m, r in runs.items()
    ]
    for title, runs in groups:
        for set_name, run in runs.runs.items():
            if not run.ran:
                continue
            total += run.seconds
            rate = run.ran / run.seconds if run.seconds else 0.0
            lines.append(
                f"| {title} | {SET_TITLES[set_name]} | {run.ran} | {run.seconds:.0f} | {rate:.2f} |"
            )
    for method, run in result.held_out.items():
        total += run.seconds
        lines.append(f"| {TITLES[method]} | held-out sites | {run.ran} | {run.seconds:.0f} | |")
    for method, run in result.synth_eval.items():
        total += run.seconds
        rate = run.ran / run.seconds if run.seconds else 0.0
        lines.append(
            f"| {TITLES[method]} | arena-synth eval | {run.ran} | {run.seconds:.0f} | {rate:.2f} |"
        )
    lines.append(f"| all | | | {total:.0f} ({total / 60:.1f} min) | |")
    return "\n".join(lines)


def write_veer_reports(result: VeerEvalResult, profile: str) -> dict[str, pd.DataFrame]:
    """Write the stage's tables, metrics, figure and timings; the tables by name."""
    by = who(result, profile)
    methods = list(result.methods)
    tables = {
        "veer/main": main_table(result),
        "veer/single_conditions": single_conditions_table(result),
        "veer/webdecept_scenarios": webdecept_scenarios_table(result),
        "veer/configurations": configurations_table(result),
        "veer/unseen": unseen_table(result),
    }
    tables["veer/figure3_summary"] = figure3_summary(
        tables["veer/single_conditions"], tables["veer/webdecept_scenarios"], methods
    )
    captions = {
        "veer/main": "Veer Tables 1, 2 and 11-14: every defense on the arena's sets ({by}); the "
        "paper's (each benchmark's default agent with GPT-5.6-Luna, LLM reasoners) beside ours "
        "as reference. STC rank: 1 = highest STC among the methods, ours and the paper's. "
        "95% intervals: Wilson on the episodes, except WebDecept's sets, whose scenarios are "
        "all-or-nothing over the same purchases: a bootstrap resampling whole scenarios (2000 "
        "draws, seed 42), widened where needed to the Wilson interval at the rate's effective "
        "number of outcomes; effective N: the number of independent outcomes D is worth (N unless "
        "clustered). Each defense against No-Defense on the same tasks: deceptions avoided / "
        "added and safe completions (T and not D) gained / lost, counted in tasks with exact "
        "McNemar p, or for WebDecept's sets in scenarios (higher or lower mean) with the exact "
        "sign-test p.",
        "veer/single_conditions": "Veer Table 15: #D per TrickyArena-Single condition ({by}); "
        "the paper's #D beside each method.",
        "veer/webdecept_scenarios": "Veer Table 16: #D per WebDecept scenario, N tasks each "
        "({by}; the purchases `arena_eval.sample` names); the paper's #D of 45 beside each method.",
        "veer/figure3_summary": "Veer Figure 3's Avg. and Worst: mean and maximum "
        "per-condition DPSR (%) ({by}); the paper's computed from its Tables 15-16.",
        "veer/configurations": "Veer Tables 3 and 17: Veer's STC and gain over the matched "
        "No-Defense per agent configuration ({by}). The tiny profile substitutes behaviour "
        "settings of its one offline agent for the paper's two agents x two models; the paper's "
        "four configurations are reference rows. Veer's STC 95% interval (Wilson, or a bootstrap "
        "over WebDecept's scenarios); safe completions gained / lost against the matched "
        "No-Defense on the same tasks (exact McNemar) or scenarios (sign test), with p.",
        "veer/unseen": "Every method on sites no rule was developed on: arena-synth eval (other "
        "seeds, wording banks, brands and layouts than dev) and the hand-written held-out sites "
        "({by}); 95% Wilson intervals; each defense against No-Defense on the same tasks "
        "(deceptions avoided / added, completions gained / lost, exact McNemar p). No paper "
        "counterpart.",
    }
    for name, table in tables.items():
        save_table(table, name, captions[name].format(by=by))
    fig = figure3(tables["veer/single_conditions"], tables["veer/webdecept_scenarios"], methods)
    save_figure(fig, "veer/figure3")
    plt.close(fig)
    write_json(
        paths.metrics_dir() / "veer.json",
        {
            "profile": profile,
            "agent": result.agent,
            "reasoner": result.reasoner,
            "methods": {
                m: {s: r.scores().as_dict() for s, r in runs.runs.items()}
                for m, runs in result.methods.items()
            },
            "held_out": {m: score(r.records).as_dict() for m, r in result.held_out.items()},
            "arena_synth_eval": {
                m: score(r.records).as_dict() for m, r in result.synth_eval.items()
            },
        },
    )
    atomic_write_text(
        paths.reports_dir() / "timings" / "veer_eval.md",
        f"**veer_eval episodes per second ({by}; 2 browsers; machine-dependent, not compared "
        "by CI).**\n\n" + timings_markdown(result) + "\n",
    )
    return tables
