"""dvc.yaml's code deps and params, written from the sources (`stage_deps`): `darkguard dvc-deps
--write` rewrites them, `--check` (and a test) fails when they differ, so that a module that moves
or a key a stage starts reading cannot be missed by `dvc repro`."""

from __future__ import annotations

import re
from pathlib import Path

from darkguard import paths
from darkguard.io import InputError, atomic_write_text
from darkguard.stage_deps import PACKAGE, notebook_stage, stage_code, stage_files, stage_params

DVC_FILE = paths.ROOT / "dvc.yaml"


_STAGE = re.compile(r"^  ([\w-]+):\s*$")
_KEY = re.compile(r"^    (\w+):")
_ITEM = re.compile(r"^      - (.+?)\s*$")
_CODE_PREFIX = paths.display(PACKAGE)  # lib/darkguard


def _notebook_of(cmd: str, stage: str) -> Path:
    match = re.fullmatch(r"darkguard notebook run (\S+\.ipynb)", cmd.strip())
    if not match:
        raise InputError(f"dvc.yaml: stage '{stage}': cmd is not `darkguard notebook run NB`")
    return paths.ROOT / match.group(1)


def render(text: str) -> str:
    """dvc.yaml's text with each stage's code deps and params as the sources give them; the
    other lines (comments, data deps, outs) unchanged."""
    lines = text.splitlines()
    out: list[str] = []
    stage = key = None
    cmd, in_stages = "", False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line and not line.startswith(" "):
            stage = key = None
            in_stages = line.startswith("stages:")
        elif _STAGE.match(line) and in_stages:
            stage, key = _STAGE.match(line).group(1), None
        elif stage and _KEY.match(line):
            key = _KEY.match(line).group(1)
            if key == "cmd":
                cmd = line.split(":", 1)[1]
            if key in ("deps", "params"):
                out.append(line)
                items, i = _block(lines, i + 1)
                if key == "params":
                    items = list(stage_params(stage))
                else:
                    notebook = _notebook_of(cmd, stage)
                    if notebook_stage(notebook) != stage:
                        raise InputError(
                            f"dvc.yaml: stage '{stage}' runs {paths.display(notebook)}, which "
                            f"imports stage '{notebook_stage(notebook)}'"
                        )
                    kept = [x for x in items if not _is_code(x)]
                    items = kept + stage_code(stage, notebook)
                out += [f"      - {x}" for x in items]
                continue
        out.append(line)
        i += 1
    return "\n".join(out) + "\n"


def _is_code(item: str) -> bool:
    return item == _CODE_PREFIX or item.startswith(_CODE_PREFIX + "/")


def _block(lines: list[str], i: int) -> tuple[list[str], int]:
    """The items of a list block starting at line `i`, and the index after it."""
    items = []
    while i < len(lines) and _ITEM.match(lines[i]):
        items.append(_ITEM.match(lines[i]).group(1))
        i += 1
    return items, i


def differences(dvc_file: Path | None = None) -> list[str]:
    """Stages whose dvc.yaml code deps or params differ from the sources', one line each."""
    path = Path(dvc_file or DVC_FILE)
    old = path.read_text(encoding="utf-8")
    new = render(old)
    if old == new:
        return []
    return [f"{paths.display(path)}: {line}" for line in _changed(old, new)]


def _changed(old: str, new: str) -> list[str]:
    import difflib

    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0)
    return [d for d in diff if d[:1] in "+-" and not d.startswith(("+++", "---"))]


def write(dvc_file: Path | None = None) -> bool:
    """Rewrite dvc.yaml's code deps and params from the sources; True when it changed."""
    path = Path(dvc_file or DVC_FILE)
    old = path.read_text(encoding="utf-8")
    new = render(old)
    if new != old:
        atomic_write_text(path, new)
    return new != old


def stages(dvc_file: Path | None = None) -> dict[str, Path]:
    """The notebook of each stage of dvc.yaml, by stage."""
    text = Path(dvc_file or DVC_FILE).read_text(encoding="utf-8")
    found = re.findall(r"^  ([\w-]+):\s*\n(?:    .*\n|\s*\n)*?    cmd: (.+)$", text, re.M)
    return {stage: _notebook_of(cmd, stage) for stage, cmd in found}


def summary(dvc_file: Path | None = None) -> dict[str, int]:
    """How many files under lib/darkguard each stage of dvc.yaml runs or reads, by stage."""
    return {stage: len(stage_files(stage, nb)) for stage, nb in stages(dvc_file).items()}
