"""``waymarks mcp`` over stdio answers every request line, as JSON-RPC 2.0 requires: the
SDK's reader dropped lines it could not validate without a word, so a client waited for
its timeout (a lone surrogate in a tool's arguments, ``{not json``, ``[]``)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from waymarks.mcp.stdio import (
    DROPPED_RESPONSE,
    DROPPED_UNICODE,
    Dropped,
    Instead,
    screen,
)
from waymarks.service.app import Waymarks


def _server(home: Path, project: Path, errors: Any) -> subprocess.Popen[bytes]:
    """``waymarks mcp`` over stdio in a process of its own, its errors into ``errors``."""
    server = subprocess.Popen(
        [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "mcp"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, cwd=project,
        env={**os.environ, "WAYMARKS_HOME": str(home)})
    assert server.stdin is not None and server.stdout is not None
    return server

def _initialize() -> list[str]:
    return [json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})]


def _call(request_id: int, query: str) -> str:
    return (f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call","params":{{"name":'
            f'"memory_recall","arguments":{{"query":"{query}"}}}}}}')


def _serve(home: Path, project: Path, lines: list[str | bytes], expect: int
           ) -> list[dict[str, Any]]:
    """The real ``waymarks mcp`` in a subprocess: every line written, then ``expect``
    answers read before standard input is closed (the server ends at end of input, and
    may cancel what it is still answering then: waiting first keeps a loaded machine from
    losing an answer to that race)."""
    answers: list[bytes] = []
    with tempfile.TemporaryFile() as errors:
        server = _server(home, project, errors)
        out = server.stdout
        reader = threading.Thread(target=lambda: answers.extend(iter(out.readline, b"")),
                                  daemon=True)
        reader.start()
        server.stdin.write(b"".join((line if isinstance(line, bytes) else line.encode())
                                    + b"\n" for line in lines))
        server.stdin.flush()
        for _ in range(1200):  # bounded polling (no timing assertion): up to ~120 s
            if len(answers) >= expect:
                break
            time.sleep(0.1)
        server.stdin.close()
        server.wait(timeout=120)
        reader.join(timeout=30)
        errors.seek(0)
        err = errors.read()
    assert b"Traceback" not in err, err.decode()
    return [json.loads(line) for line in answers]


@pytest.mark.slow  # over a second on a quiet machine (docs/development.md: the fast lane)
def test_every_request_line_is_answered(home: Path, project: Path) -> None:
    deep = '{"jsonrpc":"2.0","id":9,"method":"ping","params":' + "[" * 3000 + "]" * 3000 + "}"
    answers = _serve(home, project, [
        *_initialize(), "{not json", "[]", _call(5, "sur \\ud800"), "5", deep,
        '{"jsonrpc":"2.0","id":7}', '{"jsonrpc":"2.0","id":8,"method":"ping","params":'
        '{"_meta":{"x":"\\udc00"}}}', '{"jsonrpc":"2.0","method":"n","params":{"x":"\\ud800"}}',
        json.dumps({"jsonrpc": "2.0", "id": 6, "method": "tools/list"})], expect=9)
    errors = [(a["id"], a["error"]["code"]) for a in answers if "error" in a]
    assert errors == [(None, -32700), (None, -32600), (None, -32600), (None, -32700),
                      (7, -32600), (8, -32602)]
    [refused] = [a for a in answers if a["id"] == 5]
    assert refused["result"]["isError"] is True
    assert refused["result"]["structuredContent"]["category"] == "invalid-parameters"
    assert "lone surrogates" in refused["result"]["structuredContent"]["message"]
    [listed] = [a for a in answers if a["id"] == 6]  # still serving after all of them
    assert "memory_recall" in {t["name"] for t in listed["result"]["tools"]}
    assert len(answers) == 9  # initialize, six errors, the refusal, tools/list: no notification


@pytest.mark.slow  # a real server in a subprocess
def test_a_line_that_is_not_utf8_is_refused_as_a_lone_surrogate_is(
        home: Path, project: Path) -> None:
    """A review: bytes that are not UTF-8 were read as U+FFFD, and capture_note saved
    "Invalid byte here: \\ufffd\\ufffd end" (a note is not confirmed), while an escaped lone
    surrogate was refused. Now a line is decoded strictly: the tool call is the same
    refused result, another request -32602, a notification nothing, and a line that is
    not JSON -32700; nothing is written."""
    note = ('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"capture_note",'
            '"arguments":{"text":"Invalid byte here: \xff\xfe end","type":"lesson"}}}')
    answers = _serve(home, project, [
        *_initialize(), note.encode("latin-1"),
        b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{"x":"\xc3"}}}',
        b'{"jsonrpc":"2.0","method":"n","params":{"x":"\xff"}}', b"\xff{}",
        json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}).encode()], expect=5)
    assert [(a["id"], a["error"]["code"]) for a in answers if "error" in a] == [
        (3, -32602), (None, -32700)]
    [refused] = [a for a in answers if a["id"] == 2]
    assert refused["result"]["isError"] is True
    assert refused["result"]["structuredContent"]["category"] == "invalid-parameters"
    assert "not UTF-8" in refused["result"]["structuredContent"]["message"]
    assert [a["id"] for a in answers if "result" in a] == [1, 2, 5]
    assert not [p for p in home.rglob("*.jsonl") if "Invalid byte" in p.read_text(
        errors="replace")]


def test_a_sound_request_passes_the_screen_unchanged() -> None:
    assert screen(_call(3, "where do deploys go?")) is None
    assert screen(_call(3, "emoji \\ud83d\\ude00 pairs are fine")) is None


@pytest.mark.slow  # over a second on a quiet machine (docs/development.md: the fast lane)
def test_a_request_whose_id_is_not_a_string_or_an_integer_is_answered_not_run(
        home: Path, project: Path) -> None:
    """The SDK took such a request for a notification: it never answered (the client waited
    for its timeout)."""
    bad = [1.5, True, None, {"a": 1}, [1]]
    calls = [json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
        "name": "capture_note", "arguments": {"text": f"note for id {i}"}}}) for i in bad]
    for call in calls:
        answer = screen(call)
        assert answer is not None and not isinstance(answer, Dropped)
        assert answer.model_dump(mode="json")["id"] is None
    answers = _serve(home, project, [*_initialize(), *calls, json.dumps(
        {"jsonrpc": "2.0", "id": "last", "method": "tools/list"})], expect=len(bad) + 2)
    errors = [(a["id"], a["error"]["code"], a["error"]["message"]) for a in answers
              if "error" in a]
    assert errors == [(None, -32600, "Invalid Request: the id must be a string (of valid "
                       "Unicode) or an integer")] * len(bad)
    assert [a["id"] for a in answers if "result" in a] == [1, "last"]
    assert not [p for p in home.rglob("*.jsonl") if "note for id" in p.read_text()]
    assert screen(json.dumps({"jsonrpc": "2.0", "id": "x", "method": "ping"})) is None
    assert screen(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "ping"})) is None


@pytest.mark.slow  # a real server in a subprocess
@pytest.mark.parametrize("attempt", range(4))
def test_ctrl_c_ends_the_server_while_standard_input_stays_open(
        home: Path, project: Path, attempt: int) -> None:
    """A review: after SIGINT the server answered nothing more but did not exit, holding
    waymarks.db and its -wal and -shm open, until its client closed standard input (a
    worker thread blocked reading it kept the event loop's shutdown waiting). Now it
    says so and exits 130 with its input still open. Right after the handshake, the
    SDK's teardown then raised its closed streams instead, a traceback and exit 1 (10 of
    20 runs for the second re-read, 1 of 12 here): run a few times, each must be 130.
    It then said the runner's generic "interrupted; ... a write that was under way",
    where ``mcp --http`` says the server stopped."""
    import signal

    server = subprocess.Popen(
        [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "mcp"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=project,
        env={**os.environ, "WAYMARKS_HOME": str(home)})
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write("".join(line + "\n" for line in _initialize()).encode())
        server.stdin.flush()
        assert json.loads(server.stdout.readline())["id"] == 1  # serving, reading input
        server.send_signal(signal.SIGINT)
        status = server.wait(timeout=60)  # a bound, not a timing: before, it never came
        assert server.stderr is not None
        said = server.stderr.read()
        # Ctrl-C is how a person stops the server: said as that, not as the runner's
        # "interrupted; ... a write that was under way" (as ``mcp --http`` and ``ui`` say)
        assert status == 130 and b"waymarks: the MCP server stopped (Ctrl-C)" in said, said
        assert b"under way" not in said
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        server.stdin.close()


def test_an_id_that_is_not_valid_unicode_is_answered_with_a_null_id() -> None:
    """A string ID holding a lone surrogate (escaped, or a byte that is not UTF-8 read
    with surrogateescape) was echoed in the answer, whose serialisation then ended the
    server with a traceback (a request with the byte \\xff in its ID killed it)."""
    for line in ('{"jsonrpc":"2.0","id":"a\\ud800b","method":"ping"}',
                 b'{"jsonrpc":"2.0","id":"a\xffb","method":"ping"}'.decode(
                     "utf-8", "surrogateescape"),
                 b'{"jsonrpc":"2.0","id":"n\xff","method":"tools/call","params":{"name":'
                 b'"capture_note","arguments":{"text":"x"}}}'.decode("utf-8", "surrogateescape")):
        answer = screen(line)
        assert isinstance(answer, types.JSONRPCError), answer
        assert answer.id is None and answer.error.code == types.INVALID_REQUEST
        assert answer.model_dump_json()  # it can be written


@pytest.mark.slow  # a real server in a subprocess
def test_a_confirmation_answer_the_sdk_cannot_take_ends_the_call_unanswered(
        home: Path, project: Path) -> None:
    """A review: the client's answer to the server's ``elicitation/create`` holding a lone
    surrogate (escaped, or a byte that is not UTF-8), or not a response the SDK validates,
    went down the request path: the server sent an error "answer" to the client's own
    response, the SDK never saw one, and the tool call was left waiting forever. Now such
    a response reaches the SDK as an error response with its id: the call ends as any
    client's error does (``cancelled``/``confirmation-invalid``), nothing is written, no
    response is answered, and a later yes still commits."""
    lines: queue.SimpleQueue[bytes] = queue.SimpleQueue()
    with tempfile.TemporaryFile() as errors:
        server = _server(home, project, errors)
        out, stdin = server.stdout, server.stdin
        reader = threading.Thread(target=lambda: [lines.put(line) for line in iter(
            out.readline, b"")], daemon=True)
        reader.start()

        def send(line: bytes) -> None:
            stdin.write(line + b"\n")
            stdin.flush()

        def receive() -> dict[str, Any]:
            return dict(json.loads(lines.get(timeout=120)))  # a bound, not a measure

        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "test", "version": "1"}}}).encode())
        assert receive()["id"] == 1
        send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        answers = [b'{"action":"accept","content":{"confirm":"\\ud800"}}',
                   b'{"action":"accept","content":{"confirm":"\xff"}}', b"5",
                   b'{"action":"accept","content":{"confirm":true}}']
        outcomes: list[tuple[str, str | None]] = []
        asked: list[int] = []
        for call, answer in enumerate(answers, start=2):
            send(json.dumps({"jsonrpc": "2.0", "id": call, "method": "tools/call", "params": {
                "name": "context_persistence", "arguments": {
                    "action": "memory_add", "content": f"Staging listens on {5430 + call}"}}
            }).encode())
            question = receive()
            assert question["method"] == "elicitation/create", question
            asked.append(question["id"])
            send(b'{"jsonrpc":"2.0","id":%d,"result":%s}' % (question["id"], answer))
            done = receive()
            assert done["id"] == call, done  # the call's answer, not one to the response
            content = done["result"]["structuredContent"]
            outcomes.append((content["outcome"], content.get("errorCode")))
        stdin.close()
        server.wait(timeout=120)
        reader.join(timeout=30)
        errors.seek(0)
        assert b"Traceback" not in errors.read()
    assert outcomes == [("cancelled", "confirmation-invalid")] * 3 + [("committed", None)]
    assert lines.empty()  # nothing more was said: no response was answered
    with Waymarks(home, cwd=str(project)) as reader:
        assert [view.text for view in reader.items("memory")] == ["Staging listens on 5435"]


def test_a_response_is_passed_on_or_dropped_never_answered() -> None:
    """A response the SDK can take passes unchanged; one it cannot becomes an error
    response with its id for the SDK (the server numbers its requests), or is dropped
    when its id is no integer: none is answered."""
    sound = '{"jsonrpc":"2.0","id":4,"result":{"action":"decline"}}'
    assert screen(sound) is None
    for bad in ('{"jsonrpc":"2.0","id":4,"result":{"content":{"confirm":"\\udfff"}}}',
                '{"jsonrpc":"2.0","id":4,"result":5}', '{"jsonrpc":"2.0","id":4,"error":7}'):
        instead = screen(bad)
        assert isinstance(instead, Instead), bad
        passed = json.loads(instead.line())
        assert passed["id"] == 4 and passed["error"]["code"] == -32602
        assert screen(instead.line()) is None  # the SDK takes it
    assert screen('{"jsonrpc":"2.0","id":"a","result":{"x":"\\ud800"}}') == DROPPED_UNICODE
    assert screen('{"jsonrpc":"2.0","id":"\\ud800","result":{}}') == DROPPED_UNICODE
    # dropped as well, for what it is: a response that is not valid, in plain ASCII
    for bad in ('{"jsonrpc":"2.0","id":"x","result":5}', '{"jsonrpc":"2.0","id":1.5,'
                '"result":{}}', '{"jsonrpc":"2.0","id":"x","error":{"code":"a",'
                '"message":"m"}}'):
        assert screen(bad) == DROPPED_RESPONSE, bad
