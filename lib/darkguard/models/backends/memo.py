"""Answers of a local model kept on disk between processes (`paths.cache_dir()/answers.sqlite`).

An answer (a greedy completion, or the candidates' probabilities) is keyed by everything that
decides it: the model (weights and adapter hashed, dtype, device, image cap), the call (its
kind and arguments), every text and every image of the conversation (pixels hashed), the torch
and transformers versions and the backend's code. A rerun on the same inputs (a re-executed
notebook, a sweep whose rows share their first iterations, a stage judging clicks an earlier one
judged) reads the answer instead of running the model again, with the tokens it used, so token
counts stay those of a run without the cache.

Batches are left-padded, and padding can move a logit by float rounding: an answer read back is
the one its first computation gave, whatever batch it comes in now. Only models in local folders
are kept (a hub id names no fixed weights). `DARKGUARD_CACHE=off` turns it off with the other
caches."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

from darkguard import paths
from darkguard.models.identity import spec_identity
from darkguard.models.spec import ModelSpec

MEMO_VERSION = 1  # bump when what is stored or how keys are made changes
FILE_NAME = "answers.sqlite"
# the spec fields that decide an answer (weights, adapter, numerics, the image cap); the name, the
# batch size and the default completion length do not (a completion's length is the call's)
DECIDING_FIELDS = ("path", "adapter", "dtype", "device", "max_pixels")

# compute(conversations) -> (answers, tokens used per conversation)
Compute = Callable[[list], tuple[list[Any], list[int]]]


class AnswerMemo:
    """The answers of one model, in a SQLite file (one row per key: the answer as JSON and the
    tokens it used). A file that cannot be read or written makes every call a miss."""

    def __init__(self, file: Path, model: dict, code: str) -> None:
        self.file = Path(file)
        self.prefix = json.dumps([MEMO_VERSION, model, code], sort_keys=True, default=str)

    def key(self, kind: str, args: Any, conversation: list) -> str:
        digest = hashlib.sha256(self.prefix.encode())
        digest.update(json.dumps([kind, args], sort_keys=True).encode())
        _feed(digest, conversation)
        return digest.hexdigest()

    def answer(self, kind: str, args: Any, conversations: list, compute: Compute):
        """Answers and tokens used, one per conversation: the kept ones read back, the others
        computed in one `compute` call (in their order) and kept."""
        keys = [self.key(kind, args, c) for c in conversations]
        found = self._read(set(keys))
        missing = [i for i, k in enumerate(keys) if k not in found]
        if missing:
            answers, tokens = compute([conversations[i] for i in missing])
            fresh = {keys[i]: (a, t) for i, a, t in zip(missing, answers, tokens, strict=True)}
            self._write(fresh)
            found.update(fresh)
        return [found[k][0] for k in keys], [found[k][1] for k in keys]

    def _connect(self) -> sqlite3.Connection:
        self.file.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.file, timeout=60)
        db.execute(
            "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, answer TEXT, tokens INT)"
        )
        return db

    def _read(self, keys: set[str]) -> dict[str, tuple[Any, int]]:
        out: dict[str, tuple[Any, int]] = {}
        try:
            db = self._connect()
            try:
                ordered = sorted(keys)
                for start in range(0, len(ordered), 500):
                    chunk = ordered[start : start + 500]
                    marks = ",".join("?" * len(chunk))
                    query = f"SELECT key, answer, tokens FROM answers WHERE key IN ({marks})"
                    for key, answer, tokens in db.execute(query, chunk):
                        out[key] = (json.loads(answer), int(tokens))
            finally:
                db.close()
        except (OSError, sqlite3.Error, ValueError):
            return {}
        return out

    def _write(self, items: dict[str, tuple[Any, int]]) -> None:
        rows = [(k, json.dumps(a), int(t)) for k, (a, t) in items.items()]
        try:
            db = self._connect()
            try:
                with db:
                    db.executemany("INSERT OR REPLACE INTO answers VALUES (?, ?, ?)", rows)
            finally:
                db.close()
        except (OSError, sqlite3.Error):
            return


def _feed(digest, value: Any) -> None:
    """Hash a conversation: texts and numbers as JSON, images by mode, size and pixels."""
    if isinstance(value, Image.Image):
        digest.update(f"<image {value.mode} {value.size}>".encode())
        digest.update(value.tobytes())
    elif isinstance(value, dict):
        digest.update(b"{")
        for key in sorted(value):
            digest.update(json.dumps(str(key)).encode() + b":")
            _feed(digest, value[key])
        digest.update(b"}")
    elif isinstance(value, list | tuple):
        digest.update(b"[")
        for item in value:
            _feed(digest, item)
            digest.update(b",")
        digest.update(b"]")
    else:
        digest.update(json.dumps(value, default=str).encode())


def memo_for(spec: ModelSpec, code_files: list[Path]) -> AnswerMemo | None:
    """The memo of a local model (None: the cache is off, or the model is not in local
    folders). `code_files` are the sources that decide an answer from its inputs."""
    root = paths.cache_dir()
    local = spec.path and Path(spec.path).is_dir()
    if root is None or not local or (spec.adapter and not Path(spec.adapter).is_dir()):
        return None
    import torch
    import transformers

    code = hashlib.sha256()
    for file in code_files:
        code.update(Path(file).read_bytes())
    versions = f"torch {torch.__version__} transformers {transformers.__version__}"
    model = {k: v for k, v in spec_identity(spec).items() if k in DECIDING_FIELDS}
    return AnswerMemo(root / FILE_NAME, model, f"{versions} {code.hexdigest()}")
