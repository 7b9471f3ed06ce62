"""Any OpenAI-compatible chat-completions endpoint (vLLM, hosted APIs), through the official
`openai` SDK.

The conversations of one `generate` call go out at once, at most `spec.concurrency` in flight,
over one `AsyncOpenAI` connection pool that lives in this backend's own event-loop thread (so a
notebook's running loop is never touched), and come back in the order given. Retries are the
SDK's: 408, 409, 429 and 5xx and lost connections are retried `spec.max_retries` times with
exponential backoff, honouring Retry-After; other 4xx fail at once with the server's message.
Images travel as data URLs; the key comes from the environment variable named in the spec and is
never logged or put in an error. Token usage is read off each response.
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import io
import os
import threading
from collections.abc import Coroutine
from typing import Any

import openai

from darkguard.models.backends import BackendError, Conversation
from darkguard.models.spec import ModelSpec


def image_data_url(image) -> str:
    """A PIL image as a PNG data URL."""
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def to_openai_messages(conversation: Conversation) -> list[dict]:
    out = []
    for message in conversation:
        content = message["content"]
        if not isinstance(content, str):
            parts = []
            for part in content:
                if part.get("type") == "image":
                    url = part.get("url") or image_data_url(part["image"])
                    parts.append({"type": "image_url", "image_url": {"url": url}})
                else:
                    parts.append(part)
            content = parts
        out.append({"role": message["role"], "content": content})
    return out


class _LoopThread:
    """An event loop running in a daemon thread: `run(coro)` from any thread, blocking."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
        self.loop.close()


class OpenAIBackend:
    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self.max_pixels = spec.max_pixels
        self.tokens_used = 0  # total_tokens the server reported, all calls
        self.last_tokens: list[int] = []  # the same, per conversation of the last call
        self._key = os.environ.get(spec.api_key_env, "") if spec.api_key_env else ""
        if spec.api_key_env and not self._key:
            raise BackendError(
                f"model '{spec.name}': environment variable {spec.api_key_env} is not set"
            )
        self._loop: _LoopThread | None = None
        self._client: openai.AsyncOpenAI | None = None

    def _run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        if self._loop is None:
            self._loop = _LoopThread()
            atexit.register(self.close)
        return self._loop.run(coro)

    def _async_client(self) -> openai.AsyncOpenAI:
        if self._client is None:  # made inside the loop thread, which owns its connections
            self._client = openai.AsyncOpenAI(
                base_url=self.spec.base_url,
                api_key=self._key or "none",  # servers without a key ignore it
                max_retries=self.spec.max_retries,
                timeout=self.spec.timeout_s,
            )
        return self._client

    def close(self) -> None:
        """Close the connection pool and stop the loop thread (also done at exit)."""
        if self._loop is not None:
            if self._client is not None:
                self._loop.run(self._client.close())
                self._client = None
            self._loop.close()
            self._loop = None

    async def _complete(self, conversation: Conversation, max_tokens: int) -> tuple[str, int]:
        url = self.spec.base_url.rstrip("/") + "/chat/completions"
        try:
            reply = await self._async_client().chat.completions.create(
                model=self.spec.path,
                messages=to_openai_messages(conversation),
                temperature=0,
                max_tokens=max_tokens,
            )
        except openai.APIStatusError as err:
            detail = str(err.body if err.body is not None else err.message)[:300]
            if err.status_code in (408, 409, 429) or err.status_code >= 500:
                raise BackendError(
                    f"model '{self.spec.name}': {url} failed after {self.spec.max_retries + 1} "
                    f"attempts (HTTP {err.status_code}: {detail})"
                ) from None
            raise BackendError(
                f"model '{self.spec.name}': HTTP {err.status_code} from {url}: {detail}"
            ) from None
        except openai.APIConnectionError as err:  # timeouts included
            raise BackendError(
                f"model '{self.spec.name}': {url} failed after {self.spec.max_retries + 1} "
                f"attempts ({type(err).__name__}: {err})"
            ) from None
        try:
            text = reply.choices[0].message.content or ""
        except (AttributeError, IndexError, TypeError):
            raise BackendError(
                f"model '{self.spec.name}': malformed response {str(reply)[:200]}"
            ) from None
        used = int(getattr(reply.usage, "total_tokens", 0) or 0) if reply.usage else 0
        return text, used

    async def _complete_all(
        self, conversations: list[Conversation], max_tokens: int
    ) -> list[tuple[str, int]]:
        gate = asyncio.Semaphore(self.spec.concurrency)

        async def one(conversation: Conversation) -> tuple[str, int]:
            async with gate:
                return await self._complete(conversation, max_tokens)

        try:  # the first failure cancels the requests still out
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(one(c)) for c in conversations]
        except* BackendError as failed:
            raise failed.exceptions[0] from None
        return [t.result() for t in tasks]

    def generate(
        self, conversations: list[Conversation], max_new_tokens: int | None = None
    ) -> list[str]:
        """One greedy reply per conversation, in order; their requests overlap."""
        results = self._run(
            self._complete_all(conversations, max_new_tokens or self.spec.max_new_tokens)
        )
        self.last_tokens = [used for _, used in results]
        self.tokens_used += sum(self.last_tokens)
        return [text for text, _ in results]
