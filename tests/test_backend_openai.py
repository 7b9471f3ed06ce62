"""The openai backend (the official SDK) against a local mock server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from PIL import Image

from darkguard.models.backends import BackendError
from darkguard.models.backends.openai import OpenAIBackend
from darkguard.models.spec import ModelSpec

SECRET = "sk-test-do-not-log-123"


class MockServer:
    """Replies from a script of (status, body, headers) entries, or from `respond(body)` when
    set; records every request with its arrival time and the requests in flight then."""

    def __init__(self) -> None:
        self.script: list[tuple[int, dict, dict]] = []
        self.respond = None
        self.requests: list[dict] = []
        self.in_flight = 0
        self.most_in_flight = 0
        lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with lock:
                    server.in_flight += 1
                    server.most_in_flight = max(server.most_in_flight, server.in_flight)
                    server.requests.append(
                        {
                            "path": self.path,
                            "body": body,
                            "auth": self.headers.get("Authorization"),
                            "at": time.perf_counter(),
                        }
                    )
                    entry = server.script.pop(0) if server.respond is None else None
                status, reply, headers = entry or server.respond(body)
                with lock:
                    server.in_flight -= 1
                data = json.dumps(reply).encode()
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def reply(self, text: str, tokens: int = 0) -> tuple[int, dict, dict]:
        body = {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "served-model",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": text},
                }
            ],
        }
        if tokens:
            body["usage"] = {
                "prompt_tokens": tokens - 1,
                "completion_tokens": 1,
                "total_tokens": tokens,
            }
        return 200, body, {}


@pytest.fixture
def server():
    s = MockServer()
    yield s
    s.httpd.shutdown()


def make_backend(server, **fields) -> OpenAIBackend:
    spec = ModelSpec(
        "remote",
        backend="openai",
        path="served-model",
        base_url=server.url,
        api_key_env="DG_TEST_KEY",
        **{"max_retries": 3, "timeout_s": 5, **fields},
    )
    return OpenAIBackend(spec)


@pytest.fixture
def backend(server, monkeypatch):
    monkeypatch.setenv("DG_TEST_KEY", SECRET)
    b = make_backend(server)
    yield b
    b.close()


FAST = {"retry-after-ms": "20"}  # the SDK's own backoff, shortened by the server's header


def conversation() -> list[dict]:
    image = Image.new("RGB", (8, 6), (255, 0, 0))
    return [
        {"role": "system", "content": "judge"},
        {
            "role": "user",
            "content": [{"type": "image", "image": image}, {"type": "text", "text": "Task: x"}],
        },
    ]


def test_request_format_and_reply(server, backend) -> None:
    server.script = [server.reply("<judge>1</judge> <conf>0.9</conf>", tokens=57)]
    assert backend.generate([conversation()], max_new_tokens=12) == [
        "<judge>1</judge> <conf>0.9</conf>"
    ]
    assert backend.last_tokens == [57] and backend.tokens_used == 57
    req = server.requests[0]
    assert req["path"] == "/v1/chat/completions"
    assert req["auth"] == f"Bearer {SECRET}"
    body = req["body"]
    assert body["model"] == "served-model" and body["temperature"] == 0
    assert body["max_tokens"] == 12
    image_part = body["messages"][1]["content"][0]
    assert image_part["type"] == "image_url"
    assert image_part["image_url"]["url"].startswith("data:image/png;base64,")


def test_retries_429_and_5xx_honouring_retry_after(server, backend) -> None:
    server.script = [
        (429, {"error": "slow down"}, {"Retry-After": "1"}),
        (503, {"error": "busy"}, FAST),
        server.reply("ok"),
    ]
    assert backend.generate([conversation()]) == ["ok"]
    first, second, _ = (r["at"] for r in server.requests)
    assert second - first >= 1.0  # the server's Retry-After, never less


def test_gives_up_after_bounded_retries(server, backend) -> None:
    server.script = [(500, {"error": "down"}, FAST)] * 4
    with pytest.raises(BackendError, match="failed after 4 attempts") as info:
        backend.generate([conversation()])
    assert SECRET not in str(info.value) and len(server.requests) == 4


def test_4xx_fails_at_once_with_the_message(server, backend) -> None:
    server.script = [(400, {"error": "image too large"}, {})]
    with pytest.raises(BackendError, match=r"HTTP 400.*image too large") as info:
        backend.generate([conversation()])
    assert len(server.requests) == 1 and SECRET not in str(info.value)


def test_requests_of_one_call_overlap_and_come_back_in_order(server, monkeypatch) -> None:
    """Eight conversations, each answered after 0.2 s: they are in flight together (bounded by
    `concurrency`) and every reply lands at its own conversation's place."""
    monkeypatch.setenv("DG_TEST_KEY", SECRET)

    def echo(body: dict) -> tuple[int, dict, dict]:
        time.sleep(0.2)
        return server.reply("episode " + body["messages"][-1]["content"][-1]["text"])

    server.respond = echo
    texts = [f"{i}" for i in range(8)]
    convs = [[{"role": "user", "content": [{"type": "text", "text": t}]}] for t in texts]
    wide, narrow = make_backend(server, concurrency=8), make_backend(server, concurrency=2)
    try:
        assert wide.generate(convs) == [f"episode {t}" for t in texts]
        assert server.most_in_flight > 2
        server.most_in_flight = 0
        assert narrow.generate(convs) == [f"episode {t}" for t in texts]
        assert server.most_in_flight == 2
    finally:
        wide.close()
        narrow.close()


def test_a_running_event_loop_is_left_alone(server, backend) -> None:
    """As in a notebook kernel: generate() called from inside a running loop."""
    import asyncio

    server.script = [server.reply("ok")]

    async def inside() -> list[str]:
        return backend.generate([conversation()])

    assert asyncio.run(inside()) == ["ok"]


def test_missing_key_variable_is_a_clear_error(monkeypatch) -> None:
    monkeypatch.delenv("DG_ABSENT_KEY", raising=False)
    spec = ModelSpec(
        "remote",
        backend="openai",
        path="m",
        base_url="http://127.0.0.1:9/v1",
        api_key_env="DG_ABSENT_KEY",
    )
    with pytest.raises(BackendError, match="DG_ABSENT_KEY is not set"):
        OpenAIBackend(spec)
