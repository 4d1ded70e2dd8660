"""``waymarks mcp --http`` answers what it cannot take as ``waymarks mcp`` over stdio does
(:func:`waymarks.mcp.stdio.screen`): the SDK never answered a request whose id is not a
string or an integer (202, taken for a notification), and refused a batch or bad
``params`` with pydantic's dump of the input, a credential in it included. And what
the server answers itself, as over stdio: an unknown prompt is one (not bad arguments)."""

from __future__ import annotations

import http.client
import json
import queue
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.mcp_server.test_http_transport import INIT, TOKEN, server
from tests.mcp_server.test_http_transport import configured as configured  # (a fixture)

SECRET = "ghp_" + "S3cr3tT0k3n" * 3


def exchange(port: int, body: bytes, session: str | None = None
             ) -> tuple[int, str | None, bytes]:
    """One POST to /mcp with the token: the status, the session header, the body."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}
    if session is not None:
        headers |= {"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"}
    try:
        connection.request("POST", "/mcp", body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.getheader("mcp-session-id"), response.read()
    finally:
        connection.close()


def _call(request_id: str, params: str = '{"name":"memory_recall","arguments":'
          '{"query":"x"}}') -> bytes:
    return (f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call",'
            f'"params":{params}}}').encode()


@pytest.mark.slow
def test_what_the_sdk_cannot_take_is_answered_as_over_stdio(configured: Path,
                                                            project: Path) -> None:
    with server(configured, project) as (port, stderr):
        status, session, _body = exchange(port, INIT)
        assert status == 200 and session is not None
        initialized = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
        assert exchange(port, initialized, session)[0] == 202

        def refused(body: bytes, request_id: int | None = None) -> dict[str, Any]:
            status, _session, answer = exchange(port, body, session)
            assert status == 400, (body, status, answer)
            assert SECRET.encode() not in answer and b"input_value" not in answer
            found: dict[str, Any] = json.loads(answer)
            assert found["jsonrpc"] == "2.0" and found["id"] == request_id, found
            return found["error"]  # type: ignore[no-any-return]

        for request_id in ("1.5", "true", "null", '{"a":1}', "[1]"):
            error = refused(_call(request_id))  # was 202 with nothing ever answered
            assert error["code"] == -32600 and "the id must be" in error["message"]
        batch = b"[" + _call("1") + b"," + _call("2") + b"]"
        error = refused(batch)  # was pydantic's dump of the batch
        assert error["code"] == -32600 and "batches are not supported" in error["message"]
        error = refused(_call("13", json.dumps(SECRET)), 13)  # params that are not an object
        assert error["code"] == -32600 and "not a JSON-RPC 2.0" in error["message"]
        assert refused(b"{not json")["code"] == -32700
        # a response the SDK cannot take, with an id the server never sent: said as such
        # (it was "the request holds text that is not valid Unicode", in plain ASCII)
        for body in (b'{"jsonrpc":"2.0","id":"x","result":5}',
                     b'{"jsonrpc":"2.0","id":1.5,"result":{}}',
                     b'{"jsonrpc":"2.0","id":"x","error":{"code":"a","message":"m"}}'):
            assert refused(body) == {"code": -32600, "message": "Invalid Request: not a "
                                     "valid JSON-RPC 2.0 response"}, body
        error = refused(b'{"jsonrpc":"2.0","id":"x","result":{"a":"\\ud800"}}')
        assert error["code"] == -32602 and "not valid Unicode" in error["message"]
        # a lone surrogate in a tool's arguments: the tool's refusal, with the request's id
        status, _session, answer = exchange(
            port, _call("14", '{"name":"memory_recall","arguments":{"query":"\\ud800"}}'),
            session)
        result = json.loads(answer)
        assert status == 200 and result["id"] == 14 and result["result"]["isError"] is True
        # what it can take still reaches the SDK, body and all
        status, _session, answer = exchange(
            port, b'{"jsonrpc":"2.0","id":15,"method":"tools/list"}', session)
        assert status == 200 and b'"memory_recall"' in answer and b'"id":15' in answer
    assert SECRET not in stderr[0] and "Traceback" not in stderr[0]


@pytest.mark.slow
def test_an_unknown_prompt_is_reported_as_unknown(configured: Path, project: Path) -> None:
    """A name that is no prompt was answered "prompt (unknown): the arguments are not ones
    it takes": it is an unknown prompt, its name (a client's string) not echoed back."""
    with server(configured, project) as (port, stderr):
        _status, session, _body = exchange(port, INIT)
        assert session is not None
        exchange(port, b'{"jsonrpc":"2.0","method":"notifications/initialized"}', session)

        def prompt(name: str, request_id: int) -> dict[str, Any]:
            body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "prompts/get",
                               "params": {"name": name}}).encode()
            status, _session, answer = exchange(port, body, session)
            assert status == 200, answer
            [data] = [line[len(b"data: "):] for line in answer.splitlines()
                      if line.startswith(b"data: ")]
            found: dict[str, Any] = json.loads(data)
            assert found["id"] == request_id, found
            return found

        for request_id, name in enumerate(("no_such_prompt", f"<b>{SECRET}</b>\u202e"), 2):
            error = prompt(name, request_id)["error"]
            assert error == {"code": -32602, "message": "unknown prompt (see prompts/list)"}
        assert "messages" in prompt("promote_notes", 9)["result"]  # a known one renders
    assert SECRET not in stderr[0]


@pytest.mark.slow
def test_a_confirmation_answer_the_sdk_cannot_take_ends_the_call(configured: Path,
                                                                 project: Path) -> None:
    """A review: a client's answer to ``elicitation/create`` holding a lone surrogate was
    answered 400 as a bad request, the SDK never saw an answer, and the tool call waited
    forever. Now the SDK gets an error response with its id: the call ends
    ``cancelled``/``confirmation-invalid`` and nothing is written."""
    init = json.loads(INIT)
    init["params"]["capabilities"] = {"elicitation": {}}
    events: queue.SimpleQueue[dict[str, Any]] = queue.SimpleQueue()
    with server(configured, project) as (port, stderr):
        _status, session, _body = exchange(port, json.dumps(init).encode())
        assert session is not None
        exchange(port, b'{"jsonrpc":"2.0","method":"notifications/initialized"}', session)

        def call() -> None:  # the call's answer streams the question, then the result
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            connection.request("POST", "/mcp", body=json.dumps({
                "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                    "name": "context_persistence", "arguments": {
                        "action": "memory_add", "content": "Staging listens on 5433"}}}),
                headers={"Authorization": f"Bearer {TOKEN}",
                         "Content-Type": "application/json",
                         "Accept": "application/json, text/event-stream",
                         "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"})
            response = connection.getresponse()
            for line in iter(response.readline, b""):
                if line.startswith(b"data: "):
                    events.put(json.loads(line[len(b"data: "):]))
            connection.close()

        streaming = threading.Thread(target=call, daemon=True)
        streaming.start()
        question = events.get(timeout=120)  # a bound, not a measure
        assert question["method"] == "elicitation/create", question
        status, _session, answer = exchange(port, b'{"jsonrpc":"2.0","id":%d,"result":{'
                                            b'"action":"accept","content":{"confirm":'
                                            b'"\\ud800"}}}' % question["id"], session)
        assert (status, answer) == (202, b""), answer  # a response is never answered
        done = events.get(timeout=120)
        streaming.join(timeout=120)
    assert done["id"] == 2, done
    content = done["result"]["structuredContent"]
    assert (content["outcome"], content["errorCode"]) == ("cancelled", "confirmation-invalid")
    assert "Traceback" not in stderr[0]
    assert not [p for p in configured.rglob("*.jsonl") if "5433" in p.read_text()]


@pytest.mark.slow
def test_a_client_that_leaves_mid_body_leaves_no_traceback(configured: Path,
                                                           project: Path) -> None:
    """A review: a POST whose client closed before its body ended (a Content-Length of
    1000 with part of it sent; a chunked body with one chunk) reached the SDK as the part
    and a disconnect, and its ``ClientDisconnect`` was a 45-line "Exception in ASGI
    application" in the server's log. There is no one to answer: nothing is said."""
    import socket

    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n"
            "Content-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\n")
    partial = b'{"jsonrpc":"2.0","id":1,"method":'
    with server(configured, project) as (port, stderr):
        for sent in ((head + "Content-Length: 1000\r\n\r\n").encode() + partial,
                     (head + "Transfer-Encoding: chunked\r\n\r\n").encode()
                     + b"%x\r\n" % len(partial) + partial + b"\r\n"):
            with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
                client.sendall(sent)  # and gone at once
            with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
                client.sendall(sent)
                client.shutdown(socket.SHUT_WR)  # gone, waiting for what is said
                assert client.recv(4096) == b""  # nothing: no one to answer
        # the server goes on serving (and has handled both by the time it answers)
        status, session, _body = exchange(port, INIT)
        assert status == 200 and session is not None
    assert "Traceback" not in stderr[0] and "ClientDisconnect" not in stderr[0], stderr[0]
