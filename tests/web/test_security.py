"""The inspector's gate: the per-launch token, the Host check, CSRF on every action, the
headers, and loopback-only binding (through the real ``waymarks ui`` process)."""

from __future__ import annotations

import html
import os
import re
import signal
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from tests.web.conftest import log_in, onward
from waymarks.web.security import CSP, Gate, host_names, is_loopback


def _login(client: Any, gate: Gate) -> None:
    cookie = log_in(client, gate).headers["set-cookie"]
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()


@pytest.mark.slow
def test_no_token_is_401_and_a_wrong_one_403_on_pages_and_static_files(web: Any) -> None:
    client, gate = web
    for path in ("/", "/explain", "/timeline", "/health", "/static/htmx.min.js"):
        assert client.get(path).status_code == 401, path
        assert client.get(f"{path}?token=not-the-token").status_code == 403, path
        client.cookies.set(gate.cookie, "not-the-token")
        assert client.get(path).status_code == 403, path
        client.cookies.clear()
    refused = client.get("/")
    assert "waymarks ui" in refused.text and gate.token not in refused.text
    _login(client, gate)
    assert client.get("/").status_code == 200
    assert client.get("/static/htmx.min.js").status_code == 200


def test_the_token_in_the_url_is_traded_for_a_cookie_and_kept_out_of_pages(web: Any) -> None:
    client, gate = web
    answer = client.get(f"/timeline?kind=memory&token={gate.token}")
    assert onward(answer.status_code, answer.text) == gate.prefix + "/timeline?kind=memory"
    assert gate.token not in answer.text
    page = client.get("/")
    assert page.status_code == 200 and gate.token not in page.text
    assert gate.csrf in page.text  # the form token, which is not the launch token
    assert gate.csrf != gate.token


def test_every_answer_carries_a_strict_policy(web: Any) -> None:
    client, gate = web
    for answer in (client.get("/"), client.get(f"/?token={gate.token}")):
        assert answer.headers["content-security-policy"] == CSP
    _login(client, gate)
    page = client.get("/")
    assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP and "unsafe-eval" not in CSP
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["referrer-policy"] == "no-referrer"
    # no inline script anywhere: every <script> names a file of the inspector
    scripts = re.findall(r"<script\b[^>]*>", page.text)
    assert scripts and all(f'src="{gate.prefix}/static/' in s for s in scripts)
    assert not re.search(r"<script\b[^>]*>\s*[^<\s]", page.text)  # no script body
    tags = re.findall(r"<[a-z]+\s[^>]*>", page.text)
    assert tags and not [t for t in tags if re.search(r"\son[a-z]+\s*=", t)]  # no handlers


def test_an_unknown_host_header_is_refused(web: Any) -> None:
    client, gate = web
    _login(client, gate)
    answer = client.get("/", headers={"host": "attacker.example:8766"})
    assert answer.status_code == 403 and "Host" in answer.text


def _pin_count(client: Any) -> int:
    return int(re.search(r'id="pins">\s*<h2>Pins <span class="count">(\d+)', client.get(
        "/").text).group(1))  # type: ignore[union-attr]


@pytest.mark.slow
def test_actions_need_the_form_token_and_the_same_origin(web: Any) -> None:
    client, gate = web
    _login(client, gate)
    before = _pin_count(client)
    form = {"action": "pin", "text": "Forged pin", "confirmed": "yes"}
    assert client.post("/act", data=form).status_code == 403  # no csrf field
    assert client.post("/act", data={**form, "csrf": "0" * 64}).status_code == 403
    cross = client.post("/act", data={**form, "csrf": gate.csrf},
                        headers={"origin": "http://attacker.example"})
    assert cross.status_code == 403 and "Cross-origin" in cross.text
    site = client.post("/act", data={**form, "csrf": gate.csrf},
                       headers={"sec-fetch-site": "cross-site"})
    assert site.status_code == 403
    client.cookies.clear()
    assert client.post("/act", data={**form, "csrf": gate.csrf}).status_code == 401
    _login(client, gate)
    assert _pin_count(client) == before  # nothing was written by any of them
    done = client.post("/act", data={**form, "csrf": gate.csrf},
                       headers={"origin": "http://testserver"})
    assert done.status_code == 200 and "Pinned pin" in done.text
    assert _pin_count(client) == before + 1


def test_a_form_sent_without_script_from_the_page_itself_acts(web: Any) -> None:
    """A form the page submits without htmx (not loaded yet, or script off) is a
    navigation; under the pages' no-referrer policy the browser sends ``Origin: null``
    with ``Sec-Fetch-Site: same-origin`` (Chromium does: every action of a page without
    script was refused as cross-origin). ``null`` from anywhere else is still refused."""
    client, gate = web
    _login(client, gate)
    before = _pin_count(client)
    form = {"action": "pin", "text": "Pinned without script", "confirmed": "yes",
            "csrf": gate.csrf}
    for site in ("cross-site", "same-site", None):  # a sandboxed frame, another port, ?
        headers = {"origin": "null", **({"sec-fetch-site": site} if site else {})}
        refused = client.post("/act", data=form, headers=headers)
        assert refused.status_code == 403 and "Cross-origin" in refused.text, site
    assert _pin_count(client) == before
    done = client.post("/act", data=form, headers={"origin": "null",
                                                   "sec-fetch-site": "same-origin"})
    assert done.status_code == 200 and "Pinned pin" in done.text
    assert _pin_count(client) == before + 1


def test_other_methods_and_bodies_are_refused(web: Any) -> None:
    client, gate = web
    _login(client, gate)
    assert client.put("/act").status_code == 405
    assert client.delete("/").status_code == 405
    json_body = client.post("/act", json={"csrf": gate.csrf, "action": "pin"})
    assert json_body.status_code == 415


def test_loopback_names_and_the_hosts_a_server_answers_to() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("[::1]")
    assert is_loopback("localhost") and is_loopback("127.5.0.1")
    assert not is_loopback("0.0.0.0") and not is_loopback("::")
    assert not is_loopback("192.168.1.4") and not is_loopback("example.com")
    assert host_names("127.0.0.1", 8766) >= {"127.0.0.1:8766", "localhost:8766"}
    assert "[::1]:9000" in host_names("::1", 9000)
    first, second = Gate(), Gate()
    assert first.token != second.token and first.cookie != second.cookie  # per launch
    assert first.token not in first.cookie and first.token not in first.csrf


def test_the_remote_warning_writes_an_ipv6_address_as_a_url_does() -> None:
    """`ui --host :: --allow-remote` warned that it "listens on :::38897": which colon
    starts the port is anybody's guess (and `::1:8766` is another address)."""
    from waymarks.web.security import remote_warning

    assert "listens on [::]:38897, beyond" in remote_warning("::", 38897)
    assert "listens on [fd00::5]:8766, beyond" in remote_warning("fd00::5", 8766)
    assert "listens on 0.0.0.0:8766, beyond" in remote_warning("0.0.0.0", 8766)


def test_mcp_http_and_a_taken_port_write_an_ipv6_address_as_a_url_does() -> None:
    """The same address run into its port, left in the two other messages that say where:
    `mcp --http --host :: --allow-remote` warned it served "at :::8798 on every
    interface", and a port in use on `--host ::1` said "cannot listen on ::1:8797"."""
    import socket

    from waymarks.mcp.http_transport import remote_warning
    from waymarks.web.server import BindError, bind

    assert "plain HTTP at [::]:8798 on every interface" in remote_warning("::", 8798)
    assert "plain HTTP at [fd00::5]:8766:" in remote_warning("fd00::5", 8766)
    assert "plain HTTP at 0.0.0.0:8766 on every interface" in remote_warning("0.0.0.0", 8766)
    try:
        taken = socket.socket(socket.AF_INET6)
        taken.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback here")
    with taken:
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(BindError, match=re.escape(f"cannot listen on [::1]:{port}: ")):
            bind("::1", port).close()


def _waymarks(home: Path, project: Path, *args: str, **kwargs: Any) -> subprocess.Popen[str]:
    env = {**os.environ, "WAYMARKS_HOME": str(home), "NO_COLOR": "1"}
    return subprocess.Popen([sys.executable, "-m", "waymarks.cli.main", *args], cwd=project,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kwargs)


def _printed_url(process: subprocess.Popen[str]) -> str:
    """The URL a launched ``waymarks ui`` printed (among its first two lines)."""
    assert process.stdout is not None
    lines = [process.stdout.readline() for _ in range(2)]
    return next(line.strip() for line in lines if line.strip().startswith("http://"))


@pytest.mark.slow
def test_binding_beyond_loopback_needs_the_flag(home: Path, project: Path) -> None:
    process = _waymarks(home, project, "ui", "--host", "0.0.0.0", "--port", "0")
    out, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert "--allow-remote" in err and "http://" not in out


@pytest.mark.slow
def test_the_real_server_prints_a_loopback_url_and_checks_it(home: Path, project: Path
                                                             ) -> None:
    process = _waymarks(home, project, "ui", "--port", "0")
    try:
        url = _printed_url(process)
        match = re.fullmatch(r"http://127\.0\.0\.1:(\d+)(/s/[0-9a-f]{32})/\?token=([\w-]+)",
                             url)
        assert match, url
        port, prefix = match.group(1), match.group(2)
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"http://127.0.0.1:{port}{prefix}/", timeout=30)
        assert missing.value.code == 401
        with pytest.raises(urllib.error.HTTPError) as wrong:
            urllib.request.urlopen(f"http://127.0.0.1:{port}{prefix}/?token=nope", timeout=30)
        assert wrong.value.code == 403

        with urllib.request.urlopen(url, timeout=30) as traded:
            assert onward(traded.status, traded.read().decode()) == prefix + "/"
            cookie = traded.headers["set-cookie"]
        # sent by a browser only under the launch's path: not to another server's pages
        assert f"Path={prefix};" in cookie or cookie.endswith(f"Path={prefix}"), cookie
        cookie = cookie.split(";")[0]
        request = urllib.request.Request(f"http://127.0.0.1:{port}{prefix}/",
                                         headers={"Cookie": cookie})
        with urllib.request.urlopen(request, timeout=30) as page:
            assert page.status == 200 and b"Waymarks" in page.read()
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.mark.slow
def test_beyond_loopback_with_the_flag_it_warns_first(home: Path, project: Path) -> None:
    process = _waymarks(home, project, "ui", "--host", "0.0.0.0", "--allow-remote",
                        "--port", "0")
    try:
        assert process.stderr is not None and process.stdout is not None
        warning = process.stderr.readline()
        assert "warning" in warning and "beyond this machine" in warning
        assert process.stdout.readline().startswith("Waymarks inspector")
    finally:
        _stop(process)


@pytest.mark.slow
def test_open_sends_the_browser_to_the_printed_url_without_the_token_in_its_arguments(
        home: Path, project: Path, tmp_path: Path) -> None:
    """The browser was started with the URL, token and all, as its argument: every user
    of the machine can read a command line (``ps``). It gets a page only this user can
    read, which sends it on to the printed URL; the page goes when the inspector stops."""
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\nprintf %s "$1" > {opened}\n')
    browser.chmod(0o755)
    env = {**os.environ, "WAYMARKS_HOME": str(home), "BROWSER": f"{browser} %s"}
    process = subprocess.Popen([sys.executable, "-m", "waymarks.cli.main", "ui", "--open",
                                "--port", "0"], cwd=project, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        url = _printed_url(process)
        for _ in range(600):  # the browser is started after the URL is printed
            if (opened.exists() and opened.read_text()) or process.poll() is not None:
                break
            time.sleep(0.05)
        argument = opened.read_text()
        token = parse_qs(urlsplit(url).query)["token"][0]
        assert token not in argument and argument.startswith("file://"), argument
        page = Path(unquote(urlsplit(argument).path))
        assert stat.S_IMODE(page.stat().st_mode) == 0o600
        [target] = re.findall(r'http-equiv="refresh" content="0;url=([^"]+)"',
                              page.read_text())
        assert html.unescape(target) == url
    finally:
        _stop(process)
    assert not page.exists()


@pytest.mark.slow
def test_only_a_urlencoded_form_is_an_action(web: Any) -> None:
    """The gate read the body as a URL-encoded form for its CSRF check while Starlette
    parsed it by the media type: a multipart body whose Content-Type merely mentioned
    ``application/x-www-form-urlencoded`` passed both, each reading another form."""
    client, gate = web
    _login(client, gate)
    before = _pin_count(client)
    body = (f"--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n&csrf={gate.csrf}&"
            "\r\n--b\r\nContent-Disposition: form-data; name=\"action\"\r\n\r\npin\r\n"
            "--b\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\nSmuggled pin\r\n"
            "--b\r\nContent-Disposition: form-data; name=\"confirmed\"\r\n\r\nyes\r\n--b--\r\n")
    for media in ("multipart/form-data; boundary=b; x=application/x-www-form-urlencoded",
                  "text/plain; application/x-www-form-urlencoded"):
        answer = client.post("/act", content=body.encode(), headers={"content-type": media})
        assert answer.status_code == 415, media
    assert _pin_count(client) == before
    done = client.post("/act", headers={
        "content-type": "Application/X-WWW-Form-URLencoded ; charset=UTF-8"},
        content=f"csrf={gate.csrf}&action=pin&text=Plain+pin&confirmed=yes".encode())
    assert done.status_code == 200 and _pin_count(client) == before + 1
