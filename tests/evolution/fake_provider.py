"""A loopback fake model provider for the evolution adapters (stdlib HTTP server on
127.0.0.1): non-streaming OpenAI chat completions and Anthropic messages, answering from a
script. Each scripted answer is ``(status, body, headers, delay_s)``; when the script runs
out it answers a plain success. Every request (path, headers, JSON body) is recorded.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tests.hosts.fake_server import LoopbackServer, QuietHandler

Answer = tuple[int, Any, dict[str, str], float]


def openai_ok(text: str, finish: str = "stop", usage: tuple[int, int] = (11, 7)) -> Answer:
    return (200, {"id": "x", "object": "chat.completion",
                  "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                               "finish_reason": finish}],
                  "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]}}, {}, 0.0)


def anthropic_ok(text: str, stop: str = "end_turn", usage: tuple[int, int] = (13, 5)) -> Answer:
    return (200, {"id": "m", "type": "message", "role": "assistant",
                  "content": [{"type": "text", "text": text}], "stop_reason": stop,
                  "usage": {"input_tokens": usage[0], "output_tokens": usage[1]}}, {}, 0.0)


def learning_home(home: Path, origin: str, key_env: str) -> None:
    """Make ``home`` with learning on, routed to an Anthropic-compatible server at
    ``origin`` (model ``claude-test``), its key read from ``key_env``."""
    home.mkdir()
    (home / "config.toml").write_text(
        f'[evolution]\nlearn = true\nprovider = "anthropic"\napi = "anthropic"\n'
        f'endpoint = "{origin}"\nmodel = "claude-test"\nkeyEnv = "{key_env}"\n',
        encoding="utf-8")


def error(status: int, body: Any = None, headers: dict[str, str] | None = None,
          delay: float = 0.0) -> Answer:
    return (status, body if body is not None else {"error": {"message": "nope"}},
            headers or {}, delay)


class FakeProvider:
    def __init__(self, script: Sequence[Answer] = (), *, default: Answer | None = None,
                 hold: Callable[[], None] | None = None) -> None:
        """``hold``: run in the request's thread before it is answered (a test's barrier:
        e.g. answer nobody until every competing process has called)."""
        self.script = list(script)
        self.default = default or openai_ok('{"claims": []}')
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                with fake._lock:
                    fake.requests.append({"path": self.path, "headers": dict(self.headers),
                                          "body": json.loads(raw or b"{}")})
                    answer = fake.script.pop(0) if fake.script else fake.default
                status, body, headers, delay = answer
                if hold is not None:
                    hold()
                if delay:
                    time.sleep(delay)
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                try:
                    self.send_response(status)
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._server = LoopbackServer(Handler)

    @property
    def origin(self) -> str:
        return self._server.origin

    def __enter__(self) -> FakeProvider:
        self._server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.stop()
