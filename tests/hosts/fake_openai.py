"""A loopback stand-in for an OpenAI-compatible model provider (stdlib only).

It records every request body and answers ``/v1/chat/completions`` from a script: each
scripted reply is either text or tool calls, streamed as server-sent events the way
OpenAI streams them. When the script runs out it answers ``done``.

    with FakeOpenAI([reply_text("hi"), reply_tools(("memory_recall", {"query": "x"}))]) as f:
        f.base_url  # http://127.0.0.1:PORT/v1
        f.bodies    # every JSON body received, in order
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

from tests.hosts.fake_server import LoopbackServer, QuietHandler

Reply = dict[str, Any]


def reply_text(text: str, finish: str = "stop") -> Reply:
    """``finish``: the stream's ``finish_reason`` (``length``: a reply cut off)."""
    return {"text": text, "finish": finish}


def reply_tools(*calls: tuple[str, dict[str, Any]]) -> Reply:
    return {"tools": [{"name": name, "arguments": arguments} for name, arguments in calls]}


class FakeOpenAI:
    def __init__(self, script: Sequence[Reply] = ()) -> None:
        self.script = list(script)
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                self.send_json(200, {"object": "list", "data": [{"id": "fake-model",
                                                                "object": "model"}]})

            def do_POST(self) -> None:
                body = self.read_json()
                with fake._lock:
                    fake.bodies.append(body)
                    reply = fake.script.pop(0) if fake.script else reply_text("done")
                    number = len(fake.bodies)
                if not self.path.endswith("/chat/completions"):
                    self.send_json(404, {"error": {"message": "not found"}})
                    return
                self.send_events([b"data: " + json.dumps(chunk).encode() + b"\n\n"
                                  for chunk in _chunks(reply, number)] + [b"data: [DONE]\n\n"])

        self.http = LoopbackServer(Handler)

    @property
    def base_url(self) -> str:
        return f"{self.http.origin}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.http.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.stop()


def _chunks(reply: Reply, n: int) -> list[dict[str, Any]]:
    base = {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": 0,
            "model": "fake-model"}
    if "tools" in reply:
        deltas = [{"index": i, "id": f"call_{n}_{i}", "type": "function",
                   "function": {"name": call["name"],
                                "arguments": json.dumps(call["arguments"])}}
                  for i, call in enumerate(reply["tools"])]
        return [{**base, "choices": [{"index": 0, "delta": {"role": "assistant",
                                                            "tool_calls": deltas}}]},
                {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}]
    return [{**base, "choices": [{"index": 0, "delta": {"role": "assistant",
                                                        "content": reply["text"]}}]},
            {**base, "choices": [{"index": 0, "delta": {},
                                  "finish_reason": reply.get("finish", "stop")}],
             "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}]
