"""Silence progress bars and library deprecation chatter in executed notebooks.

Progress bars print rates (it/s) that change from run to run, and warnings print file paths, so
either would make executed notebooks differ between reruns; the stages' own output is printed.
"""

from __future__ import annotations

import os
import warnings


def quiet_libraries() -> None:
    """No progress bars and no FutureWarning/UserWarning chatter from the ML libraries."""
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    os.environ["TQDM_DISABLE"] = "1"
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", message="IProgress not found")
    for module in ("transformers", "trl", "peft", "torch", "accelerate", "datasets"):
        warnings.filterwarnings("ignore", category=UserWarning, module=module)
    from transformers.utils import logging

    logging.set_verbosity_error()
    logging.disable_progress_bar()
