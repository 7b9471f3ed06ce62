"""`darkguard.json` beside a built model: what it was trained with (aids, image cap, prompts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from darkguard.io import write_json

CARD = "darkguard.json"


def write_card(model_dir: Path, info: dict[str, Any]) -> None:
    write_json(Path(model_dir) / CARD, info)


def read_card(model_path: str | Path | None) -> dict[str, Any]:
    """The card of a local model folder; empty for hub ids and folders without one."""
    if not model_path:
        return {}
    path = Path(model_path) / CARD
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
