"""What the fake model providers share: a loopback HTTP server on its own thread, and a
request handler with JSON and server-sent-event helpers."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class QuietHandler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def read_json(self) -> dict[str, Any]:
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            return {}
        return body if isinstance(body, dict) else {}

    def send_json(self, status: int, data: dict[str, Any]) -> None:
        raw = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def send_events(self, events: Iterable[bytes]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.end_headers()
        for event in events:
            self.wfile.write(event)
        self.wfile.flush()


#: how often the serving loop checks whether it was asked to stop
POLL_S = 0.02


class LoopbackServer:
    """Serves ``handler`` on 127.0.0.1 (a free port) while used as a context manager."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        # shutdown() waits for the serving loop to look again: every 0.5 s by default,
        # which was half a second of every test that used a fake provider
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": POLL_S}, daemon=True)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
