"""The session's life over stdio, as a client meets it: a request sent before
``initialize`` (a client that skipped the handshake after a restart, a hand-written
probe) was answered ``-32602`` "Invalid request parameters", so the client looked for a
fault in its parameters; it is an invalid request now, saying to initialize first. And
calls still in flight when the client closed its end were cancelled, not answered."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from tests.mcp_server.test_stdio_screen import _call, _initialize, _serve, _server


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


def test_calls_in_flight_when_input_closes_are_answered_not_dropped(
        home: Path, project: Path) -> None:
    """A client that sends its last calls and closes its end (``printf ... | waymarks
    mcp``, a client done asking that still reads) got "Connection closed" (-32000) for
    each call not yet answered: the SDK cancelled them at end of input, though the output
    was still open and a call may have written. They are answered, then the server ends."""
    note = ('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"capture_note",'
            '"arguments":{"text":"We decided the staging port is 5433","type":"decision"}}}')
    lines = [*_initialize(), _call(2, "staging port"), note]
    with tempfile.TemporaryFile() as errors:
        server = _server(home, project, errors)
        out, _ = server.communicate("".join(line + "\n" for line in lines).encode(),
                                    timeout=300)
        errors.seek(0)
        assert b"Traceback" not in errors.read()
    assert server.returncode == 0
    answers = {answer["id"]: answer for answer in map(json.loads, out.splitlines())}
    assert set(answers) == {1, 2, 3}
    assert "error" not in answers[2], answers[2]
    assert "error" not in answers[3], answers[3]
    saved = json.loads(answers[3]["result"]["content"][0]["text"])
    assert saved["outcome"] == "saved", saved


def test_a_server_without_standard_input_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    """`waymarks mcp <&-` (a supervisor that closed its input): the event loop failed on
    fd 0 at once, said as "Invalid argument (file); nothing was acknowledged", exit 1,
    naming neither the input nor what to do. Refused before serving, both ways in."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "WAYMARKS_HOME": str(tmp_path / "home"), "HOME": str(tmp_path),
           "WAYMARKS_CLI_HELPER": "off"}
    for argv in (["mcp"], ["--json", "mcp"], ["mcp", "--claude-code"]):
        done = subprocess.run(["sh", "-c", '"$@" <&-', "mcp", sys.executable, "-m",
                               "waymarks.cli.main", *argv], capture_output=True, text=True,
                              timeout=120, env=env, cwd=tmp_path)
        said = json.loads(done.stdout)["message"] if "--json" in argv else done.stderr
        assert done.returncode == 2, (argv, done.stdout, done.stderr)
        assert "standard input is closed" in said and "--http" in said, said
