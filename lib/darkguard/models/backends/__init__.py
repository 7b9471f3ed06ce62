"""Generation backends behind one small protocol."""

from __future__ import annotations

from typing import Protocol

from darkguard.models.spec import ModelSpec

# A chat message: {"role": ..., "content": str | [{"type": "text", "text": ...} |
#                                                 {"type": "image", "image": PIL.Image}]}
Message = dict
Conversation = list[Message]


class Backend(Protocol):
    spec: ModelSpec
    max_pixels: int | None  # the image cap the model applies (None: full resolution)
    tokens_used: int  # tokens processed so far (prompt + completion), for cost tables

    def generate(
        self, conversations: list[Conversation], max_new_tokens: int | None = None
    ) -> list[str]:
        """Greedy completions, one per conversation, in order."""
        ...


def generate_counted(
    backend: Backend, conversations: list[Conversation]
) -> tuple[list[str], list[int]]:
    """Completions and the tokens each conversation used: the backend's `last_tokens` when it
    keeps them per conversation, else its `tokens_used` growth shared out evenly."""
    before = getattr(backend, "tokens_used", 0)
    texts = backend.generate(conversations)
    per = getattr(backend, "last_tokens", None)
    if per is None or len(per) != len(conversations):
        total = getattr(backend, "tokens_used", 0) - before
        per = [total // max(1, len(conversations))] * len(conversations)
    return texts, list(per)


class BackendError(RuntimeError):
    """A backend call that failed for good (names the model, never the key)."""


def load_backend(spec: ModelSpec) -> Backend:
    """The backend for `spec` (imports heavy libraries only when needed)."""
    if spec.backend == "hf":
        from darkguard.models.backends.hf import HFBackend

        return HFBackend(spec)
    if spec.backend == "openai":
        from darkguard.models.backends.openai import OpenAIBackend

        return OpenAIBackend(spec)
    raise BackendError(f"model '{spec.name}': backend {spec.backend!r} has no generator")
