"""A loopback stand-in for the Anthropic Messages API (stdlib only): records every request
body and streams a scripted text answer as server-sent events."""

from __future__ import annotations

import json
from typing import Any

from tests.hosts.fake_server import LoopbackServer, QuietHandler


class FakeAnthropic:
    def __init__(self, answer: str = "done") -> None:
        self.answer = answer
        self.bodies: list[dict[str, Any]] = []
        self.paths: list[str] = []
        fake = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                fake.paths.append(self.path)
                self.send_json(200, {"data": [], "has_more": False})

            def do_POST(self) -> None:
                body = self.read_json()
                fake.paths.append(self.path)
                if not self.path.split("?")[0].endswith("/v1/messages"):
                    self.send_json(200, {})
                    return
                fake.bodies.append(body)
                if not body.get("stream"):
                    self.send_json(200, _message(fake.answer, body))
                    return
                self.send_events(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
                                 for name, data in _events(fake.answer, body))

        self.http = LoopbackServer(Handler)

    @property
    def base_url(self) -> str:
        return self.http.origin

    def __enter__(self) -> FakeAnthropic:
        self.http.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.stop()


def _message(text: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"id": "msg_fake", "type": "message", "role": "assistant",
            "model": body.get("model", "claude-fake"),
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5}}


def _events(text: str, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    start = _message("", body)
    start["content"] = []
    return [
        ("message_start", {"type": "message_start", "message": start}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": text}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn",
                                                              "stop_sequence": None},
                           "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ]
