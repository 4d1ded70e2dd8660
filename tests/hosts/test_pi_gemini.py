"""The real Pi with a Google model (``api: google-generative-ai``) and the extension loaded,
against a loopback fake of Gemini's streaming endpoint."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.fake_server import LoopbackServer, QuietHandler
from tests.hosts.pi_harness import PiHome, install

# Pi's packages from npm (installed on first use)
pytestmark = pytest.mark.slow

ANSWER = {"candidates": [{"content": {"role": "model", "parts": [{"text": "GEMINI-ANSWER"}]},
                          "finishReason": "STOP", "index": 0}],
          "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2,
                            "totalTokenCount": 5}}


@pytest.fixture
def gemini() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """The server's origin, and the request bodies it was sent."""
    bodies: list[dict[str, Any]] = []

    class Handler(QuietHandler):
        def do_POST(self) -> None:
            bodies.append(self.read_json())
            self.send_events([f"data: {json.dumps(ANSWER)}\r\n\r\n".encode()])

    server = LoopbackServer(Handler)
    server.start()
    try:
        yield server.origin, bodies
    finally:
        server.stop()


@pytest.mark.parametrize("variant", ["pi16", "pi073"])
def test_a_gemini_request_goes_out_sanitized_with_its_tools(
        tmp_path: Path, gemini: tuple[str, list[dict[str, Any]]], variant: str) -> None:
    """Pi's Google payload holds the request's AbortSignal: it crossed the bridge as JSON,
    came back {}, and the SDK failed before sending anything ("callerSignal.
    addEventListener is not a function"; no request reached the server). Then it went out
    with its content withheld and its tools dropped (the sanitizer did not read Gemini's
    shape). It goes out sanitized now: the credential redacted, the rest and Pi's tools
    kept, and Pi answers."""
    origin, bodies = gemini
    pi = PiHome(tmp_path, install(variant), origin)
    (pi.agent / "models.json").write_text(json.dumps({"providers": {"fake": {
        "baseUrl": origin, "api": "google-generative-ai", "apiKey": "test-key",
        "models": [{"id": "fake-model"}]}}}))
    done = pi.run("-p", "hello, the key is sk-ant-api03-AAAABBBBCCCCDDDDEEEE")
    assert done.returncode == 0, done.stderr
    assert "GEMINI-ANSWER" in done.stdout
    assert len(bodies) == 1, done.stderr
    sent = json.dumps(bodies[0])
    assert "AAAABBBB" not in sent and "hello" in sent and "[REDACTED" in sent
    assert "[withheld by Waymarks" not in sent
    assert "functionDeclarations" in sent and "systemInstruction" in sent
