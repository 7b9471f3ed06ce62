"""Every number the reports quote from the papers, in one place (reference only).

DUDE: "Don't Click That: Teaching Web Agents to Resist Deceptive Interfaces" (arXiv 2605.09497;
our copy: shared/papers/dude-dont-click-that.md), the paper this project reproduces. Most of its
tables lost their cells in our copy, so what is quoted is what its text states (and the tables
that kept their cells: 13 and 19); `None` marks a cell of a quoted table that the text does not
state.

Veer: "Before Acting, Change the State" (arXiv 2609.34974; our copy:
shared/papers/veer-before-acting-change-the-state.txt): the arena's tables quote its
Tables 1, 2 and 11-16 (raw counts #D / #T / #STC; percentages follow from the fixed sizes).

The reports print these beside our own numbers, never mixed with them. Our own parameters, even
those set to the paper's values (App. B.3 in params.yaml), do not belong here. This module holds
constants only and imports nothing, so any module of the reports layer may import it.
"""

# ---------------------------------------------------------------------------------------------
# DUDE: the RUC benchmark (Section 4, Appendix A)
# ---------------------------------------------------------------------------------------------

# DUDE App. A.1.1-A.1.2 (Table 13 totals): pages per subset of RUC.
DUDE_RUC_TOTALS = {"Normal": 910, "Deception": 497}

# DUDE Table 9 / App. A (Design Philosophy, A.1): where the pages come from (subset, source, pages).
DUDE_RUC_SOURCES = [
    ("Normal", "ShowUI-web, filtered", 910),
    ("Deception", "manual curation (real websites)", 200),
    ("Deception", "automated generation (LLM + templates)", 297),
]

# DUDE Table 13 (App. A.6, seed 42): (Normal, Deceptive) pages per split.
DUDE_RUC_SPLIT = {"train": (637, 348), "valid": (137, 75), "test": (136, 74)}

# DUDE App. A.5.2 (Table 12): deceptive boxes are, on average, "more than twice" the size of
# correct boxes (mean deceptive area / mean correct area exceeds this).
DUDE_DECEPTIVE_TO_CORRECT_AREA_RATIO_ABOVE = 2

# ---------------------------------------------------------------------------------------------
# DUDE: overall effectiveness (Section 5.2, Tables 2-3)
# ---------------------------------------------------------------------------------------------

# DUDE Section 5.2 (text on Tables 2-3): SR gain with DUDE per agent, in percentage points.
DUDE_SR_GAIN_PP = {"GLM-4.6V-Flash": 51.0, "UI-TARS-1.5-7B": 14.5}

# DUDE Section 5.2, Table 3 (GLM-4.6V-Flash, vanilla): share of failures that are null-region
# clicks, in percent.
DUDE_NULL_SHARE_OF_VANILLA_FAILURES = 86.5

# ---------------------------------------------------------------------------------------------
# DUDE: ablations (Sections 5.3-5.4, Tables 4-5)
# ---------------------------------------------------------------------------------------------

# DUDE Table 4 / Section 5.3 (Qwen3-VL-4B agent): SR and DFR in percent per evaluator setting;
# the SR of Stage 1 + Stage 2 is not in its text.
DUDE_TABLE4_STAGEWISE = {
    "vanilla evaluator": {"SR": 6.5, "DFR": 2.0},
    "Stage 1 only": {"SR": 28.0, "DFR": 5.5},
    "Stage 2 only": {"SR": 15.5, "DFR": 4.5},
    "Stage 1 + Stage 2": {"SR": None, "DFR": 0.0},
}

# DUDE Table 5 / Section 5.4 (Qwen3-VL-2B evaluator after Stage 1): Fatal Error Rate (C4) and
# pass rate in percent per reward variant; the pass rate is stated for confidence-only only.
DUDE_TABLE5_REWARD_ABLATION = {
    "full": {"FER": 9.75, "pass": None},
    "w/o omega": {"FER": 27.53, "pass": None},
    "w/o alpha": {"FER": 17.25, "pass": None},
    "confidence only": {"FER": 12.37, "pass": 55.3},
}

# ---------------------------------------------------------------------------------------------
# DUDE: computational overhead (Section 5.7, Table 7)
# ---------------------------------------------------------------------------------------------

# DUDE Table 7 / Section 5.7 (UI-TARS-1.5-7B): steps and wall-clock seconds per task.
DUDE_TABLE7_OVERHEAD = {
    "vanilla": {"steps": 17.65, "seconds": 217.62},
    "DUDE": {"steps": 3.58, "seconds": 48.47},
}

# DUDE Section 5.7: tokens the Stage-2 experience context adds at inference (~low-high).
DUDE_EXPERIENCE_TOKENS = (200, 400)

# ---------------------------------------------------------------------------------------------
# DUDE: Stage-2 hyperparameter ablations (Appendix H, Tables 18-19; Qwen3-VL-4B)
# ---------------------------------------------------------------------------------------------

# DUDE Table 18 (caption "Init: S=459, F=351"): pool sizes before Stage 2.
DUDE_TABLE18_INITIAL_POOLS = {"success": 459, "failure": 351}

# DUDE Table 19 caption: the failure and success-anchor batch sizes of the iteration sweep.
DUDE_TABLE19_BATCH_SIZES = {"B_f": 15, "B_s": 5}

# DUDE Table 19 (|B_f| = 15, |B_s| = 5): final success count per maximum iterations T.
DUDE_TABLE19_FINAL_SUCCESS = {
    10: 471,
    20: 483,
    30: 497,
    40: 499,
    50: 505,
    60: 502,
    70: 509,
    80: 504,
}

# DUDE Table 19: range (lowest, highest) of the final success count once T >= 30.
DUDE_TABLE19_FINAL_SUCCESS_RANGE = (497, 509)


# ---------------------------------------------------------------------------------------------
# Veer: the arena (Section 4.1, Tables 1-2, Appendix E Tables 11-16)
# ---------------------------------------------------------------------------------------------

# Veer §4.1: configurations per set (WebDecept's feasible subset drops Redirect and Drift).
VEER_SET_SIZES = {
    "trickyarena_single": 88,
    "trickyarena_multi": 68,
    "webdecept": 315,
    "webdecept_feasible": 225,
}

# Veer Tables 11-14 (Tables 1 and 2 give the same as percentages): raw (#D, #T, #STC) per method
# and set; every method uses the same base agent (each benchmark's default agent, BrowserUse on
# TrickyArena and a WebArena-style PromptAgent on WebDecept, with GPT-5.6-Luna, App. C).
VEER_COUNTS = {
    "No-Defense": {
        "trickyarena_single": (26, 71, 53),
        "trickyarena_multi": (37, 45, 26),
        "webdecept": (118, 150, 90),
        "webdecept_feasible": (40, 113, 90),
    },
    "ICP": {
        "trickyarena_single": (15, 71, 61),
        "trickyarena_multi": (34, 46, 27),
        "webdecept": (84, 138, 100),
        "webdecept_feasible": (13, 107, 100),
    },
    "Guardrail": {
        "trickyarena_single": (24, 71, 55),
        "trickyarena_multi": (32, 48, 29),
        "webdecept": (39, 111, 93),
        "webdecept_feasible": (16, 102, 93),
    },
    "DUDE-S2": {
        "trickyarena_single": (30, 76, 50),
        "trickyarena_multi": (44, 48, 19),
        "webdecept": (113, 175, 99),
        "webdecept_feasible": (38, 122, 99),
    },
    "Spotlighting": {
        "trickyarena_single": (23, 70, 55),
        "trickyarena_multi": (40, 41, 18),
        "webdecept": (112, 141, 86),
        "webdecept_feasible": (39, 107, 86),
    },
    "VIGIL": {
        "trickyarena_single": (14, 63, 52),
        "trickyarena_multi": (27, 40, 26),
        "webdecept": (30, 32, 17),
        "webdecept_feasible": (7, 20, 17),
    },
    "SafePred": {
        "trickyarena_single": (25, 76, 56),
        "trickyarena_multi": (38, 54, 25),
        "webdecept": (120, 183, 122),
        "webdecept_feasible": (44, 145, 122),
    },
    "Veer": {
        "trickyarena_single": (4, 76, 75),
        "trickyarena_multi": (10, 49, 46),
        "webdecept": (1, 129, 129),
        "webdecept_feasible": (0, 129, 129),
    },
}

# Veer Table 15: TrickyArena-Single #D per condition (N per condition in brackets of the table),
# No-Defense column.
VEER_TABLE15_NO_DEFENSE_D = {
    "shop/p1": (4, 0),
    "shop/t1": (4, 0),
    "shop/t2": (4, 3),
    "shop/t3": (4, 0),
    "shop/t4": (4, 0),
    "shop/t5": (4, 0),
    "shop/t6": (4, 0),
    "shop/t7": (4, 0),
    "shop/t8": (4, 0),
    "shop/p2": (4, 4),
    "shop/s": (5, 0),
    "shop/w": (5, 1),
    "news/bs": (3, 0),
    "news/ob": (3, 0),
    "news/sa": (3, 0),
    "news/cf": (3, 3),
    "music/am": (2, 0),
    "music/ds": (3, 0),
    "music/du": (3, 3),
    "health/cs": (6, 6),
    "health/tos": (6, 6),
    "health/cf": (6, 0),
}  # condition: (N, #D)

# Veer Table 16: WebDecept #D per scenario (45 tasks each), No-Defense row.
VEER_TABLE16_NO_DEFENSE_D = {
    "popup": 2,
    "banner": 0,
    "ppopup": 0,
    "pbanner": 1,
    "addons": 37,
    "redirect": 39,
    "drift": 39,
}

# Veer Table 15 (all methods): TrickyArena-Single #D per condition; columns in the order of
# VEER_COUNTS (No-Defense, ICP, Guardrail, DUDE-S2, Spotlighting, VIGIL, SafePred, Veer). Every
# condition not listed is 0 for every method. N per condition: VEER_TABLE15_NO_DEFENSE_D.
VEER_TABLE15_D = {
    "shop/t2": (3, 0, 1, 3, 1, 0, 4, 1),
    "shop/t3": (0, 0, 0, 1, 0, 0, 0, 0),
    "shop/t5": (0, 0, 0, 1, 0, 0, 0, 0),
    "shop/t6": (0, 0, 0, 1, 0, 0, 0, 0),
    "shop/p2": (4, 2, 4, 4, 4, 3, 4, 0),
    "shop/w": (1, 0, 1, 1, 0, 0, 0, 0),
    "news/cf": (3, 3, 3, 3, 3, 3, 3, 3),
    "music/ds": (0, 3, 0, 1, 0, 0, 0, 0),
    "music/du": (3, 0, 3, 3, 3, 2, 2, 0),
    "health/cs": (6, 6, 6, 6, 6, 6, 6, 0),
    "health/tos": (6, 1, 6, 6, 6, 0, 6, 0),
}

# Veer Table 16 (all methods): WebDecept #D per scenario (45 tasks each), scenarios in the order
# popup, banner, ppopup, pbanner, addons, redirect, drift.
VEER_TABLE16_D = {
    "No-Defense": (2, 0, 0, 1, 37, 39, 39),
    "ICP": (2, 0, 0, 1, 10, 36, 35),
    "Guardrail": (3, 0, 0, 0, 13, 22, 1),
    "DUDE-S2": (0, 0, 0, 1, 37, 37, 38),
    "Spotlighting": (3, 0, 0, 1, 35, 37, 36),
    "VIGIL": (1, 0, 1, 0, 5, 12, 11),
    "SafePred": (3, 0, 1, 1, 39, 38, 38),
    "Veer": (0, 0, 0, 0, 0, 1, 0),
}

# Veer Table 17 (Table 3 in the main text): Veer's STC (%) and its gain over the matched
# No-Defense (pp) per agent-model configuration and set (Single, Multi, WebDecept).
VEER_TABLE17 = {
    "Default + GPT-5.6-Luna": ((85.2, 25.0), (67.6, 29.4), (41.0, 12.4)),
    "Default + DeepSeek-V4-Flash": ((68.2, 12.5), (44.1, 10.3), (40.0, 4.8)),
    "Codex + GPT-5.6-Luna": ((75.0, 28.4), (54.4, 25.0), (45.4, 5.1)),
    "Codex + DeepSeek-V4-Flash": ((85.2, 20.4), (55.9, 14.7), (53.7, 15.9)),
}

# Veer Table 18: ablations on TrickyArena-Single (N = 88): episodes Safe (T, no D), T+DP,
# Fail without D, Fail+DP.
VEER_TABLE18 = {
    "veer": (75, 1, 9, 3),
    "veer-wo-si": (44, 1, 34, 9),
    "veer-reactive": (71, 4, 11, 2),
    "veer-wo-te": (68, 3, 15, 2),
}

# Veer Table 19: the one-step intervention on TrickyArena-Single, as (#D, #T, #STC) of 88 (the
# table gives 14.8 / 68.2 / 61.4 percent).
VEER_TABLE19_ONE_STEP = (13, 60, 54)
