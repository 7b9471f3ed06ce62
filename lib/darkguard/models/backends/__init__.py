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
