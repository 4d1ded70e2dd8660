"""The gate decides from the headers before it reads a body, caps the body it reads, keeps
the launch token out of the cookie, redirects only to its own paths and speaks no
websocket. Driven as raw ASGI calls on the real application (so a test can see whether the
body was read at all) and through the real ``waymarks ui`` process."""

from __future__ import annotations

import asyncio
import http.client
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import onward
from tests.web.test_security import _printed_url, _stop, _waymarks
from waymarks.web.security import MAX_BODY, Gate, GateMiddleware, host_names

Receive = Callable[[], Awaitable[dict[str, Any]]]


def _scope(method: str, path: str, *, query: str = "", headers: dict[str, str] | None = None
           ) -> dict[str, Any]:
    given = {"host": "testserver", **(headers or {})}
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": method, "scheme": "http", "path": path, "raw_path": path.encode(),
            "query_string": query.encode(), "root_path": "",
            "headers": [(k.encode(), v.encode()) for k, v in given.items()],
            "client": ("127.0.0.1", 50000), "server": ("testserver", 80)}


def _act(gate: Gate) -> str:
    return gate.prefix + "/act"


def _never_read() -> Receive:
    async def receive() -> dict[str, Any]:
        raise AssertionError("the gate read the body before refusing")

    return receive


def _call(app: Any, scope: dict[str, Any], receive: Receive
          ) -> tuple[int, dict[str, str], bytes]:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], headers, body


def _form_headers(gate: Gate, **extra: str) -> dict[str, str]:
    return {"content-type": "application/x-www-form-urlencoded",
            "cookie": f"{gate.cookie}={gate.session}", **extra}


def test_a_post_without_the_token_is_refused_before_its_body_is_read(web: Any) -> None:
    client, gate = web
    headers = _form_headers(gate, **{"content-length": str(2 * 1024 ** 3)})
    del headers["cookie"]
    status, _headers, body = _call(client.app, _scope("POST", _act(gate), headers=headers),
                                   _never_read())
    assert status == 401 and b"No token" in body
    wrong = {**headers, "cookie": f"{gate.cookie}=nope"}
    assert _call(client.app, _scope("POST", _act(gate), headers=wrong), _never_read())[0] == 403
    foreign = {**_form_headers(gate), "host": "attacker.example"}
    assert _call(client.app, _scope("POST", _act(gate), headers=foreign), _never_read())[0] == 403
    cross = _form_headers(gate, origin="http://attacker.example")
    assert _call(client.app, _scope("POST", _act(gate), headers=cross), _never_read())[0] == 403


def test_a_declared_large_body_is_413_unread(web: Any) -> None:
    client, gate = web
    for declared in (str(MAX_BODY + 1), str(2 * 1024 ** 3), "-5", "12abc"):
        headers = _form_headers(gate, **{"content-length": declared})
        status, _h, body = _call(client.app, _scope("POST", _act(gate), headers=headers),
                                 _never_read())
        assert status == 413 and b"nothing was done" in body, declared


def test_an_undeclared_body_is_read_only_up_to_the_cap(web: Any) -> None:
    client, gate = web
    chunk = b"x" * 65536
    calls = 0

    async def endless() -> dict[str, Any]:
        nonlocal calls
        calls += 1
        if calls > 4 * MAX_BODY // len(chunk):
            raise AssertionError("the gate kept reading past its cap")
        return {"type": "http.request", "body": chunk, "more_body": True}

    status, _h, _body = _call(client.app, _scope("POST", _act(gate), headers=_form_headers(gate)),
                              endless)
    assert status == 413
    assert calls == MAX_BODY // len(chunk) + 1  # read just past the cap, then stopped


def test_a_form_under_the_cap_still_acts(web: Any) -> None:
    client, gate = web
    body = f"csrf={gate.csrf}&action=pin&text=Capped+pin&confirmed=yes".encode()
    parts = [body[:10], body[10:]]

    async def receive() -> dict[str, Any]:
        chunk = parts.pop(0)
        return {"type": "http.request", "body": chunk, "more_body": bool(parts)}

    headers = _form_headers(gate, **{"content-length": str(len(body))})
    status, _h, page = _call(client.app, _scope("POST", _act(gate), headers=headers), receive)
    assert status == 200 and b"Pinned pin" in page


def test_the_cookie_is_a_derived_secret_not_the_token(web: Any) -> None:
    client, gate = web
    answer = client.get(f"/?token={gate.token}")
    cookie = answer.headers["set-cookie"]
    assert gate.token not in cookie
    assert cookie.startswith(f"{gate.cookie}={gate.session};")
    assert gate.session not in (gate.token, gate.csrf)
    assert client.get("/").status_code == 200
    client.cookies.clear()
    client.cookies.set(gate.cookie, gate.token)  # the token itself is not a session
    assert client.get("/").status_code == 403


@pytest.mark.parametrize("path", ["//evil.example/", "///evil.example/x",
                                  "/\\evil.example/", "/\\/evil.example/"])
def test_the_token_redirect_stays_on_this_server(web: Any, path: str) -> None:
    client, gate = web
    status, _headers, body = _call(client.app, _scope("GET", path,
                                                     query=f"token={gate.token}&a=1"),
                                   _never_read())
    location = onward(status, body.decode())
    # a path of this launch, not another host: outside the launch's path, its overview
    assert location == gate.prefix + "/?a=1", location
    # leading slashes collapse: a page of the launch stays that page
    inside = "//" + gate.prefix.lstrip("/") + "/timeline"
    status, _headers, body = _call(client.app, _scope("GET", inside,
                                                     query=f"token={gate.token}&a=1"),
                                   _never_read())
    assert onward(status, body.decode()) == gate.prefix + "/timeline?a=1"


def test_websockets_are_refused_without_reaching_the_app(gate: Gate) -> None:
    reached: list[str] = []

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["type"])

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "websocket.connect"}

    scope = {**_scope("GET", "/"), "type": "websocket", "scheme": "ws"}
    asyncio.run(GateMiddleware(inner, gate)(scope, receive, send))
    assert reached == [] and sent == [{"type": "websocket.close", "code": 1008}]
    asyncio.run(GateMiddleware(inner, gate)({"type": "lifespan"}, receive, send))
    assert reached == ["lifespan"]  # the server's start and stop still reach the app


@pytest.mark.slow
def test_the_real_server_answers_a_huge_post_without_waiting_for_it(home: Path,
                                                                    project: Path) -> None:
    process = _waymarks(home, project, "ui", "--port", "0")
    try:
        url = _printed_url(process)
        port = int(re.search(r":(\d+)/", url).group(1))  # type: ignore[union-attr]
        for cookie, expected in (("", 401), ("x=y", 401)):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            connection.putrequest("POST", "/act")
            connection.putheader("Content-Type", "application/x-www-form-urlencoded")
            connection.putheader("Content-Length", str(2 * 1024 ** 3))
            if cookie:
                connection.putheader("Cookie", cookie)
            connection.endheaders(b"csrf=")  # the rest of the 2 GiB never comes
            answer = connection.getresponse()
            assert answer.status == expected
            connection.close()
    finally:
        _stop(process)


def test_a_server_on_port_80_answers_the_host_header_a_browser_sends() -> None:
    """``ui --port 80``: a browser leaves HTTP's default port out of ``Host``, and the
    gate refused every request. Other ports keep the port in the name."""
    async def page(scope: dict[str, Any], receive: Receive, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"page"})

    gate = Gate(hosts=host_names("127.0.0.1", 80))
    cookie = {"cookie": f"{gate.cookie}={gate.session}"}
    for host in ("127.0.0.1", "localhost", "[::1]", "127.0.0.1:80"):
        status, _headers, body = _call(GateMiddleware(page, gate),
                                       _scope("GET", "/", headers={"host": host, **cookie}),
                                       _never_read())
        assert (status, body) == (200, b"page"), host
    for host in ("evil.example", "127.0.0.1:8080"):
        status, _headers, _body = _call(GateMiddleware(page, gate),
                                        _scope("GET", "/", headers={"host": host, **cookie}),
                                        _never_read())
        assert status == 403, host
    assert "127.0.0.1" not in host_names("127.0.0.1", 8766)
    assert {"127.0.0.1", "127.0.0.1:*"} <= host_names("127.0.0.1", "*")  # the MCP server's
