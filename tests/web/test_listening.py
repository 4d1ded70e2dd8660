"""What the real ``waymarks ui`` process listens on: a socket no child it starts inherits,
and a printed URL naming the address it is bound to (not a name another listener on this
machine could answer)."""

from __future__ import annotations

import os
import re
import socket
import sys
from pathlib import Path

import pytest

from tests.web.test_security import _printed_url, _stop, _waymarks

O_CLOEXEC = 0o2000000  # the flags field of /proc/PID/fdinfo/N is octal


def _listening_fds(pid: int, port: int) -> list[int]:
    """The descriptors of ``pid`` that are the socket listening on ``port`` (IPv4)."""
    inodes = {fields[9] for fields in (line.split() for line in
                                       Path("/proc/net/tcp").read_text().splitlines()[1:])
              if fields[1].endswith(f":{port:04X}") and fields[3] == "0A"}
    found = []
    for entry in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(entry)
        except FileNotFoundError:  # closed since it was listed (the server is running)
            continue
        if target.startswith("socket:[") and target[8:-1] in inodes:
            found.append(int(entry.name))
    return found


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_listening_socket_is_not_handed_to_children(home: Path, project: Path) -> None:
    """An action that writes a claim can start a detached worker (``posix_spawn`` keeps
    every descriptor that is not close-on-exec): an inheritable listening socket went
    with it, so the port stayed bound after Ctrl-C while the worker ran."""
    process = _waymarks(home, project, "ui", "--port", "0")
    try:
        url = _printed_url(process)
        port = int(re.search(r":(\d+)/", url).group(1))  # type: ignore[union-attr]
        [fd] = _listening_fds(process.pid, port)
        flags = Path(f"/proc/{process.pid}/fdinfo/{fd}").read_text()
        octal = re.search(r"^flags:\s*([0-7]+)$", flags, re.M).group(1)  # type: ignore[union-attr]
        assert int(octal, 8) & O_CLOEXEC, f"listening socket fd {fd} is inheritable"
    finally:
        _stop(process)


def _ipv6_loopback_port() -> socket.socket | None:
    """A listener on a free port of ``::1`` whose IPv4 twin is free too (another user's
    server, as far as ``waymarks ui`` can tell); ``None`` without IPv6 loopback."""
    for _ in range(20):
        try:
            squatter = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            squatter.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            squatter.bind(("::1", 0))
        except OSError:
            return None
        port = squatter.getsockname()[1]
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                squatter.close()
                continue
        squatter.listen(1)
        return squatter
    return None


@pytest.mark.slow
def test_the_printed_url_names_the_bound_address_not_localhost(home: Path,
                                                              project: Path) -> None:
    """``--host localhost`` binds 127.0.0.1 only; a URL saying ``localhost`` lets the
    browser try ``::1`` first, where another user of this machine may listen on the same
    port and would receive the token."""
    squatter = _ipv6_loopback_port()
    if squatter is None:
        pytest.skip("no IPv6 loopback here")
    port = squatter.getsockname()[1]
    process = _waymarks(home, project, "ui", "--host", "localhost", "--port", str(port))
    try:
        url = _printed_url(process)
        assert url.startswith(f"http://127.0.0.1:{port}/s/") and "/?token=" in url, url
    finally:
        _stop(process)
        squatter.close()


@pytest.mark.slow
def test_a_port_in_use_is_a_usage_error_with_the_fix(home: Path, project: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        process = _waymarks(home, project, "ui", "--port", str(port))
        out, err = process.communicate(timeout=60)
    assert process.returncode == 2 and out == ""
    assert f"cannot listen on 127.0.0.1:{port}" in err and "--port 0" in err


@pytest.mark.slow
def test_a_host_that_does_not_resolve_is_a_usage_error_about_the_host(
        home: Path, project: Path) -> None:
    """It was told to choose another --port (or --port 0), which changes nothing."""
    process = _waymarks(home, project, "ui", "--host", "127.0.0.1 ", "--port", "0")
    out, err = process.communicate(timeout=60)
    assert process.returncode == 2 and out == ""
    assert "--host '127.0.0.1 ' does not resolve to an address here" in err, err
    assert "--port" not in err and "Traceback" not in err


def test_an_address_not_of_this_machine_is_a_usage_error_about_the_host() -> None:
    """`ui --host 192.0.2.7 --allow-remote --port 0` (an address no interface here has:
    a typo, a VPN that is down) was told "Cannot assign requested address; choose another
    --port (or --port 0 for any free one)", with --port 0 given: no port helps."""
    from waymarks.web.server import UnresolvedHost, bind

    try:
        sock = bind("192.0.2.7", 0)  # TEST-NET-1: documentation only, never assigned
    except UnresolvedHost as exc:
        message = str(exc)
    else:
        sock.close()
        pytest.skip("this machine binds addresses it does not have (ip_nonlocal_bind)")
    assert "--host 192.0.2.7 is not an address of this machine" in message, message
    assert "--port" not in message and "127.0.0.1" in message


def test_a_link_local_address_is_a_usage_error_about_the_host(
        ) -> None:
    """`ui --host fe80::1 --allow-remote --port 0`: bind() refuses a link-local IPv6
    address (EINVAL, with `%eth0` after it too), and it was told "Invalid argument; choose
    another --port (or --port 0 ...)": no port helps."""
    import socket

    from waymarks.web.server import UnresolvedHost, bind

    try:
        socket.socket(socket.AF_INET6).close()
    except OSError:
        pytest.skip("no IPv6 here")
    for host in ("fe80::1", "fe80::1%lo"):
        with pytest.raises(UnresolvedHost) as refused:
            bind(host, 0).close()
        message = str(refused.value)
        assert f"--host {host} cannot be listened on" in message and "link-local" in message
        assert "--port" not in message and "127.0.0.1" in message


@pytest.mark.slow
def test_the_inspector_cuts_off_a_connection_whose_headers_never_end(
        home: Path, project: Path) -> None:
    """Half-sent requests were kept for ever, before any token check: 20,000 of them took
    every descriptor the inspector had (found in a security review). The server runs
    with the guard (``spawn/http_guard.py``, tested on its own in ``tests/spawn``)."""
    import time

    from waymarks.spawn.http_guard import HEADER_SECONDS

    process = _waymarks(home, project, "ui", "--port", "0")
    try:
        port = int(_printed_url(process).split(":")[2].split("/")[0])
        with socket.create_connection(("127.0.0.1", port), timeout=30) as slow:
            slow.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-a: ")
            start = time.monotonic()
            assert slow.recv(4096) == b""  # closed by the server, not answered
            assert time.monotonic() - start < HEADER_SECONDS + 15
    finally:
        _stop(process)


@pytest.mark.slow
def test_the_remote_warning_is_said_once_it_listens_with_its_port(home: Path,
                                                                  project: Path) -> None:
    """`ui --allow-remote` warned before binding: "listens on nosuch.invalid:0" for a
    host that does not resolve (then refused), and `:0` for the port it did get."""
    process = _waymarks(home, project, "ui", "--host", "nosuch.invalid", "--port", "0",
                        "--allow-remote")
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2 and "does not resolve" in err
    assert "listens on" not in err, err
    process = _waymarks(home, project, "ui", "--host", "0.0.0.0", "--port", "0",
                        "--allow-remote")
    try:
        assert process.stderr is not None
        warning = process.stderr.readline()
        url = _printed_url(process)
    finally:
        _stop(process)
    port = url.split("/")[2].rsplit(":", 1)[1]
    assert f"listens on 0.0.0.0:{port}, beyond this machine" in warning, (warning, url)


#: a terminal browser (webbrowser's choice for ``lynx``, ``w3m`` or ``www-browser``, and for
#: any ``BROWSER`` command): it loads the page it was given, through the launch page's
#: refresh, before it returns; it says on the inspector's standard output whether it could
TERMINAL_BROWSER = r'''
import html, re, sys, urllib.parse, urllib.request
from pathlib import Path
page = Path(urllib.parse.unquote(urllib.parse.urlsplit(sys.argv[1]).path)).read_text()
[target] = re.findall(r'http-equiv="refresh" content="0;url=([^"]+)"', page)
try:
    with urllib.request.urlopen(html.unescape(target), timeout=20) as answer:
        print("browser: loaded", answer.status, flush=True)
except OSError as exc:
    print("browser: not loaded", type(exc).__name__, flush=True)
'''


@pytest.mark.slow
def test_open_serves_while_a_browser_that_waits_for_the_page_runs(
        home: Path, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`ui --open` ran the browser command and waited for it to return before it served:
    a terminal browser (`lynx`, `w3m`: what Python picks over SSH) or any `BROWSER`
    command that runs until it is closed waited for a page nobody answered, for ever."""
    browser = tmp_path / "browser"
    browser.write_text(f"#!{sys.executable}\n{TERMINAL_BROWSER}")
    browser.chmod(0o755)
    monkeypatch.setenv("BROWSER", f"{browser} %s")
    process = _waymarks(home, project, "ui", "--open", "--port", "0")
    try:
        _printed_url(process)
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(2)]  # the note, then the browser
        assert lines[1].strip() == "browser: loaded 200", lines
    finally:
        _stop(process)


@pytest.mark.slow
@pytest.mark.parametrize("browser", ["false %s", '"unterminated %s'],
                         ids=["fails", "unparsable"])
def test_open_says_so_when_no_browser_could_be_started(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch, browser: str) -> None:
    """`ui --open` with no browser to start (none installed, a server over SSH, or a
    BROWSER command that fails) said nothing: the person waited for a window. A BROWSER
    that cannot be read as a command (a quote left open) raised in the browser's thread:
    a traceback, and no word of the browser that would not come."""
    import select

    monkeypatch.setenv("BROWSER", browser)
    process = _waymarks(home, project, "ui", "--open", "--port", "0")
    try:
        url = _printed_url(process)
        assert process.stderr is not None
        ready, _, _ = select.select([process.stderr], [], [], 60)
        note = process.stderr.readline() if ready else ""
        assert "no browser could be started" in note and "open the URL" in note, note
        assert "token=" not in note and url not in note  # (stderr may be a log)
    finally:
        _stop(process)
