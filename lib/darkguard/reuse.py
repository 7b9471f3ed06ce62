"""Reuse trained artefacts instead of training again (`DARKGUARD_REUSE_TRAINED=1`).

Stages that train (`build_models`, `stage1_grpo`) retrain by default. With the variable set, a
stage whose trained artefact exists and records the same settings skips the training and redoes
only the evaluation and the reports: used to re-render reports and by the notebook tests, which
re-execute the executed notebooks on copies of the trained artefacts.
"""

from __future__ import annotations

import os

ENV = "DARKGUARD_REUSE_TRAINED"


def reuse_trained() -> bool:
    return os.environ.get(ENV) == "1"
