"""The openai backend against a local mock server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from PIL import Image

from darkguard.models.backends import BackendError
from darkguard.models.backends.openai import OpenAIBackend
from darkguard.models.spec import ModelSpec

SECRET = "sk-test-do-not-log-123"


class MockServer:
    """Replies from a script of (status, body, headers) entries; records every request."""

    def __init__(self) -> None:
        self.script: list[tuple[int, dict, dict]] = []
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(
                    {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                )
                status, reply, headers = server.script.pop(0)
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

    def reply(self, text: str) -> tuple[int, dict, dict]:
        return 200, {"choices": [{"message": {"role": "assistant", "content": text}}]}, {}


@pytest.fixture
def server():
    s = MockServer()
    yield s
    s.httpd.shutdown()


@pytest.fixture
def backend(server, monkeypatch):
    monkeypatch.setenv("DG_TEST_KEY", SECRET)
    sleeps: list[float] = []
    spec = ModelSpec(
        "remote",
        backend="openai",
        path="served-model",
        base_url=server.url,
        api_key_env="DG_TEST_KEY",
        max_retries=3,
        timeout_s=5,
    )
    b = OpenAIBackend(spec, sleep=sleeps.append)
    b.sleeps = sleeps
    return b


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
    server.script = [server.reply("<judge>1</judge> <conf>0.9</conf>")]
    assert backend.generate([conversation()], max_new_tokens=12) == [
        "<judge>1</judge> <conf>0.9</conf>"
    ]
    req = server.requests[0]
    assert req["path"] == "/v1/chat/completions"
    assert req["auth"] == f"Bearer {SECRET}"
    body = req["body"]
    assert body["model"] == "served-model" and body["temperature"] == 0
    assert body["max_tokens"] == 12
    image_part = body["messages"][1]["content"][0]
    assert image_part["type"] == "image_url"
    assert image_part["image_url"]["url"].startswith("data:image/png;base64,")


def test_retries_429_and_5xx_with_backoff(server, backend) -> None:
    server.script = [
        (429, {"error": "slow down"}, {"Retry-After": "2"}),
        (503, {"error": "busy"}, {}),
        server.reply("ok"),
    ]
    assert backend.generate([conversation()]) == ["ok"]
    assert len(server.requests) == 3
    assert backend.sleeps == [2.0, 1.0]  # Retry-After, then exponential backoff


def test_gives_up_after_bounded_retries(server, backend) -> None:
    server.script = [(500, {"error": "down"}, {})] * 4
    with pytest.raises(BackendError, match="failed after 4 attempts") as info:
        backend.generate([conversation()])
    assert SECRET not in str(info.value)
    assert backend.sleeps == [0.5, 1.0, 2.0]


def test_4xx_fails_at_once_with_the_message(server, backend) -> None:
    server.script = [(400, {"error": "image too large"}, {})]
    with pytest.raises(BackendError, match=r"HTTP 400.*image too large") as info:
        backend.generate([conversation()])
    assert len(server.requests) == 1 and SECRET not in str(info.value)


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
