"""The session's life over stdio, as a client meets it: a request sent before
``initialize`` (a client that skipped the handshake after a restart, a hand-written
probe) was answered ``-32602`` "Invalid request parameters", so the client looked for a
fault in its parameters; it is an invalid request now, saying to initialize first."""

from __future__ import annotations

from pathlib import Path

from tests.mcp_server.test_stdio_screen import _call, _initialize, _serve


def test_a_request_before_initialize_is_an_invalid_request_saying_to_initialize(
        home: Path, project: Path) -> None:
    lines = ['{"jsonrpc":"2.0","id":7,"method":"tools/list"}', _call(8, "port"),
             '{"jsonrpc":"2.0","id":9,"method":"ping"}',
             '{"jsonrpc":"2.0","id":10,"method":"no/such/method"}',
             *_initialize(), '{"jsonrpc":"2.0","id":11,"method":"tools/list"}']
    answers = {answer["id"]: answer for answer in _serve(home, project, lines, 6)}
    for refused in (7, 8):
        error = answers[refused]["error"]
        assert error["code"] == -32600, error
        assert "initialize" in error["message"]
    assert answers[9]["result"] == {}  # (ping is allowed before, as the spec says)
    assert answers[10]["error"]["code"] == -32601  # (an unknown method stays unknown)
    assert answers[1]["result"]["serverInfo"]["name"] == "waymarks"
    assert any(tool["name"] == "memory_recall" for tool in answers[11]["result"]["tools"])
