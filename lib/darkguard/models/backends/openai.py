"""Any OpenAI-compatible chat-completions endpoint (vLLM, hosted APIs), over plain HTTP.

Images travel as data URLs; the key comes from the environment variable named in the spec and is
never logged or put in an error; 429 and 5xx are retried with exponential backoff (honouring
Retry-After), other 4xx fail at once with the server's message.
"""

from __future__ import annotations

import base64
import io
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable

from darkguard.models.backends import BackendError, Conversation
from darkguard.models.spec import ModelSpec

RETRY_STATUS = {429, 500, 502, 503, 504}


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


class OpenAIBackend:
    def __init__(self, spec: ModelSpec, sleep: Callable[[float], None] = time.sleep) -> None:
        self.spec = spec
        self.max_pixels = spec.max_pixels
        self.tokens_used = 0  # total_tokens the server reported, all calls
        self.last_tokens: list[int] = []  # the same, per conversation of the last call
        self._sleep = sleep
        self._key = os.environ.get(spec.api_key_env, "") if spec.api_key_env else ""
        if spec.api_key_env and not self._key:
            raise BackendError(
                f"model '{spec.name}': environment variable {spec.api_key_env} is not set"
            )

    def _request(self, payload: dict) -> dict:
        url = self.spec.base_url.rstrip("/") + "/chat/completions"
        body = json.dumps(payload).encode()
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        last = ""
        for attempt in range(self.spec.max_retries + 1):
            request = urllib.request.Request(url, data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.spec.timeout_s) as response:
                    return json.loads(response.read())
            except urllib.error.HTTPError as exc:
                detail = exc.read()[:300].decode("utf-8", "replace")
                if exc.code not in RETRY_STATUS:
                    raise BackendError(
                        f"model '{self.spec.name}': HTTP {exc.code} from {url}: {detail}"
                    ) from None
                last = f"HTTP {exc.code}: {detail}"
                retry_after = exc.headers.get("Retry-After")
                delay = float(retry_after) if retry_after and retry_after.isdigit() else None
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                last, delay = f"{type(exc).__name__}: {exc}", None
            if attempt < self.spec.max_retries:
                self._sleep(delay if delay is not None else min(30.0, 0.5 * 2**attempt))
        raise BackendError(
            f"model '{self.spec.name}': {url} failed after {self.spec.max_retries + 1} "
            f"attempts ({last})"
        )

    def generate(
        self, conversations: list[Conversation], max_new_tokens: int | None = None
    ) -> list[str]:
        outputs = []
        self.last_tokens = []
        for conversation in conversations:
            reply = self._request(
                {
                    "model": self.spec.path,
                    "messages": to_openai_messages(conversation),
                    "temperature": 0,
                    "max_tokens": max_new_tokens or self.spec.max_new_tokens,
                }
            )
            usage = reply.get("usage") if isinstance(reply, dict) else None
            used = int(usage.get("total_tokens") or 0) if isinstance(usage, dict) else 0
            self.tokens_used += used
            self.last_tokens.append(used)
            try:
                outputs.append(reply["choices"][0]["message"]["content"] or "")
            except (KeyError, IndexError, TypeError):
                raise BackendError(
                    f"model '{self.spec.name}': malformed response {str(reply)[:200]}"
                ) from None
        return outputs
