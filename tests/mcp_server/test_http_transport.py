"""``waymarks mcp --http`` against the real server in a subprocess: one Authorization
header exactly, loopback unless --allow-remote (then a warning), and the command's
argument errors (exit 2)."""

from __future__ import annotations

import contextlib
import http.client
import os
import queue
import re
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import pytest

from waymarks.mcp.http_transport import is_loopback

TOKEN = "test-token-0123456789abcdef"
INIT = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
        b'"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}')


SERVING = re.compile(r"^waymarks: serving MCP over HTTP at http://(\S+):(\d+)/mcp ")


def waymarks(home: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), *args]


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    """This module's own temporary folder, outside pytest's. Its tests make the folders
    above a home searchable by others, and pytest sets its per-user folder back to 0700
    whenever another pytest session of the same user starts: the home turned private
    mid-test and a token file others could read was served (a flake seen beside a second
    test run)."""
    path = Path(tempfile.mkdtemp(prefix="waymarks-http-test-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def configured(home: Path) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f'[mcp]\ntoken = "{TOKEN}"\n')
    (home / "config.toml").chmod(0o600)  # the token's file must be private
    return home


class Announced:
    """The standard error of ``waymarks mcp --http --port 0``, read to its end in a thread
    (so the server never blocks on a full pipe), and the port it says it listens on: a
    port picked before the server binds it could be taken meanwhile (an xdist worker's
    server, another test's), a failure that was no fault of the server."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stderr is not None
        self.lines: list[str] = []
        self.ports: queue.Queue[int | None] = queue.Queue()
        self.reader = threading.Thread(target=self._read, args=(proc.stderr,), daemon=True)
        self.reader.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.append(line)
            found = SERVING.match(line)
            if found:
                self.ports.put(int(found.group(2)))
        self.ports.put(None)  # the end: it exited before it listened, or it was stopped

    def port(self) -> int:
        """The port, once it listens (it says so after the socket listens)."""
        try:  # bounded wait to listen (a loaded machine: slow)
            port = self.ports.get(timeout=60)
        except queue.Empty:
            raise AssertionError(f"it never said it listens: {self.text(0)}") from None
        assert port is not None, f"it ended before it listened: {self.text()}"
        return port

    def text(self, wait: float = 120) -> str:
        """All it wrote, once it ended (``wait``: a bound for a hang only)."""
        self.reader.join(timeout=wait)
        return "".join(self.lines)


@contextmanager
def server(home: Path, project: Path, *extra: str) -> Iterator[tuple[int, list[str]]]:
    """The server on the port it picks; yields the port and, after it stopped, its
    stderr."""
    proc = subprocess.Popen(waymarks(home, "mcp", "--http", "--port", "0", *extra),
                            cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    said = Announced(proc)
    stderr: list[str] = []
    try:
        yield said.port(), stderr
    finally:
        proc.terminate()
        proc.wait(timeout=120)  # (a bound for a hang only)
        stderr.append(said.text())


def post(port: int, headers: list[tuple[str, str]], address: str = "127.0.0.1"
         ) -> tuple[int, bytes]:
    """A POST with exactly these header lines (repeated names stay repeated; a ``Host``
    among them replaces the one naming ``address``)."""
    # (a bound for a hang only: the server's first answer took seconds at a load of 10)
    connection = http.client.HTTPConnection(address, port, timeout=120)
    try:
        connection.putrequest("POST", "/mcp", skip_host=any(
            name.lower() == "host" for name, _value in headers))
        for name, value in [("Content-Type", "application/json"),
                            ("Accept", "application/json, text/event-stream"),
                            ("Content-Length", str(len(INIT))), *headers]:
            connection.putheader(name, value)
        connection.endheaders(INIT)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


@pytest.mark.slow
def test_one_authorization_header_exactly(configured: Path, project: Path) -> None:
    good, bad = ("Authorization", f"Bearer {TOKEN}"), ("Authorization", "Bearer wrong")
    with server(configured, project) as (port, _stderr):
        assert post(port, [good])[0] == 200
        assert post(port, [])[0] == 401
        assert post(port, [bad])[0] == 401
        for headers in ([good, bad], [bad, good], [good, good],
                        [good, ("authorization", f"Bearer {TOKEN}")]):
            status, body = post(port, headers)
            assert status == 400 and b"exactly one Authorization header" in body
            assert TOKEN.encode() not in body
        # two values in one header are not the token either
        assert post(port, [("Authorization", f"Bearer {TOKEN}, Bearer {TOKEN}")])[0] == 401
        # the scheme's name is case-insensitive, the token is not
        assert post(port, [("Authorization", f"bearer {TOKEN}")])[0] == 200
        assert post(port, [("Authorization", f"Bearer {TOKEN.upper()}")])[0] == 401


def test_the_gate_reads_the_scheme_case_insensitively_and_the_token_exactly() -> None:
    """Clients sending ``bearer`` (RFC 9110: the scheme is case-insensitive) were
    refused; the token itself, and anything but the Bearer scheme, still are."""
    import asyncio

    from waymarks.mcp.http_transport import BearerGate

    async def inner(scope, receive, send):  # type: ignore[no-untyped-def]
        await send({"type": "http.response.start", "status": 200, "headers": []})

    def status(value: bytes | None) -> int:
        sent: list[dict] = []  # type: ignore[type-arg]

        async def send(message: dict) -> None:  # type: ignore[type-arg]
            sent.append(message)

        headers = [] if value is None else [(b"authorization", value)]
        asyncio.run(BearerGate(inner, TOKEN)({"type": "http", "headers": headers}, None, send))
        return int(sent[0]["status"])

    token = TOKEN.encode()
    for accepted in (b"Bearer " + token, b"bearer " + token, b"BEARER " + token,
                     b"Bearer  " + token):
        assert status(accepted) == 200, accepted
    for refused in (None, b"Bearer", b"Bearer ", token, b"Basic " + token,
                    b"Bearer " + token.upper(), b"Bearer " + token + b"x",
                    b"Bearer" + token, b"Bearerx " + token):
        assert status(refused) == 401, refused


@pytest.mark.slow
def test_a_remote_host_needs_allow_remote(configured: Path, project: Path) -> None:
    refused = subprocess.run(waymarks(configured, "mcp", "--http", "--host",
                                      "0.0.0.0"), cwd=project, capture_output=True,
                             text=True, timeout=60)
    assert refused.returncode == 2 and refused.stdout == ""
    assert "--allow-remote" in refused.stderr and "SSH tunnel" in refused.stderr
    assert "TLS proxy" in refused.stderr and TOKEN not in refused.stderr
    assert "sends Host 127.0.0.1:8765" in refused.stderr  # or the loopback server refuses it


@pytest.mark.slow
def test_with_allow_remote_it_warns_and_still_needs_the_token(configured: Path,
                                                              project: Path) -> None:
    with server(configured, project, "--host", "0.0.0.0", "--allow-remote") as (
            port, stderr):
        assert post(port, [])[0] == 401
        assert post(port, [("Authorization", f"Bearer {TOKEN}")])[0] == 200
    [text] = stderr
    assert "warning" in text and "plain HTTP" in text and "every interface" in text
    assert "TLS proxy" in text and "SSH tunnel" in text and TOKEN not in text
    # the line a script reads names an address a client can connect to: "http://0.0.0.0"
    # is refused by some (Windows, browsers' fetch); this machine's loopback reaches it
    assert f"serving MCP over HTTP at http://127.0.0.1:{port}/mcp (on every interface" \
        in text and "http://0.0.0.0" not in text, text


def _own_address() -> str | None:
    """An IPv4 address of this machine other than loopback, if it has one (the route to a
    documentation address picks it: connecting a UDP socket sends nothing)."""
    found = []
    with contextlib.suppress(OSError):
        found.append(socket.gethostbyname(socket.gethostname()))
    for far in ("192.0.2.1", "198.51.100.1", "203.0.113.1"):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe, \
                contextlib.suppress(OSError):
            probe.connect((far, 9))
            found.append(probe.getsockname()[0])
    return next((a for a in found if not a.startswith("127.") and a != "0.0.0.0"), None)


@pytest.mark.slow
def test_with_allow_remote_it_serves_through_the_address_it_is_reached_by(
        configured: Path, project: Path) -> None:
    """--allow-remote answered 421 "Invalid Host header" to every request that did not name
    a loopback host: left unset, the SDK's own DNS-rebinding check allowed only
    127.0.0.1, localhost and [::1]. Off loopback the token is the check."""
    token = ("Authorization", f"Bearer {TOKEN}")
    with server(configured, project, "--host", "0.0.0.0", "--allow-remote") as (
            port, _stderr):
        elsewhere = f"203.0.113.7:{port}"  # what a client reaching another address sends
        assert post(port, [token, ("Host", elsewhere)])[0] == 200
        assert post(port, [token, ("Host", f"mcp.example:{port}"),
                           ("Origin", f"http://mcp.example:{port}")])[0] == 200
        assert post(port, [("Host", elsewhere)])[0] == 401  # the token still is needed
        assert post(port, [token, ("Host", "mcp.example:x")])[0] == 421  # a port: digits
        own = _own_address()
        if own is not None:  # through the machine's own address, as a remote client is
            assert post(port, [token], own)[0] == 200
    if own is not None:  # and bound to that address alone
        with server(configured, project, "--host", own, "--allow-remote") as (port,
                                                                              _stderr):
            assert post(port, [token], own)[0] == 200
            assert post(port, [], own)[0] == 401


@pytest.mark.slow
def test_loopback_names_need_no_flag(configured: Path, project: Path) -> None:
    with server(configured, project, "--host", "localhost") as (port, stderr):
        assert post(port, [("Authorization", f"Bearer {TOKEN}")])[0] == 200
    assert "warning" not in stderr[0]


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.0.0.2", True), ("::1", True), ("[::1]", True),
    ("localhost", True), ("LOCALHOST", True), ("0.0.0.0", False), ("::", False),
    ("192.168.1.10", False), ("example.com", False), ("", False)])
def test_what_counts_as_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ["mcp", "--host", "127.0.0.1"], ["mcp", "--port", "9000"], ["mcp", "--allow-remote"]])
def test_http_options_without_http_are_refused(home: Path, project: Path,
                                               args: list[str]) -> None:
    done = subprocess.run(waymarks(home, *args), cwd=project, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "--http" in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("transport", [[], ["--http"]], ids=["stdio", "http"])
def test_an_unknown_session_is_a_usage_error(configured: Path, project: Path,
                                             transport: list[str]) -> None:
    done = subprocess.run(waymarks(configured, "--session", "0badc0de", "mcp",
                                   *transport), cwd=project, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and done.stdout == ""
    assert "no session '0badc0de'" in done.stderr and "session list" in done.stderr
    as_json = subprocess.run(waymarks(configured, "--json", "--session",
                                      "0badc0de", "mcp"), cwd=project, capture_output=True,
                             text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert as_json.returncode == 2 and '"outcome": "rejected"' in as_json.stdout


@pytest.mark.slow
@pytest.mark.parametrize(("host", "address"), [("127.0.0.2", "127.0.0.2"),
                                               ("LOCALHOST", "127.0.0.1"),
                                               ("[::1]", "::1")])
def test_every_loopback_spelling_refuses_a_rebound_host_name(configured: Path,
                                                            project: Path, host: str,
                                                            address: str) -> None:
    """A page whose DNS name was rebound to this machine sends its own name as Host and
    Origin. The SDK checks them only for --host 127.0.0.1, localhost or ::1 spelled just
    so: any other loopback spelling served such a page (with a token it would need, but
    the Host check is the wall for the day it has one), and '[::1]' did not start."""
    with server(configured, project, "--host", host) as (port, _stderr):
        token = ("Authorization", f"Bearer {TOKEN}")
        shown = f"[{address}]" if ":" in address else address
        assert post(port, [token], address)[0] == 200
        assert post(port, [token, ("Host", f"localhost:{port}")], address)[0] == 200
        assert post(port, [token, ("Host", f"rebound.example:{port}")], address)[0] == 421
        # the SDK's ``name:*`` checked only how the header starts (a security review)
        assert post(port, [token, ("Host", "localhost:rebound.example")], address)[0] == 421
        assert post(port, [token, ("Host", "[::1]:x")], address)[0] == 421
        for bent in ("localhost:evil.example]", "[::1]]:1", "[::1", "localhost:",
                     # only the text after the last colon was checked (a review)
                     "localhost:evil.example:80", "127.0.0.1:x/evil.com:1",
                     f"localhost@evil.example:{port}", f"localhost:{port}/x"):
            assert post(port, [token, ("Host", bent)], address)[0] == 421, bent
        assert post(port, [token, ("Host", f"localhost:{port}"),
                           ("Host", f"localhost:{port}")], address)[0] in (400, 421)
        # another port stays allowed: an SSH tunnel's local port may differ
        assert post(port, [token, ("Host", f"localhost:{port + 1}")], address)[0] == 200
        assert post(port, [token, ("Host", f"{shown}:{port}"),
                           ("Origin", f"http://rebound.example:{port}")], address)[0] == 403
        assert post(port, [token, ("Origin", "null")], address)[0] == 403
        # the SDK matched "http://localhost:*" on how the origin starts (a review)
        for bent in ("http://localhost:1@evil.example", f"http://localhost:{port}/x",
                     f"http://localhost:{port}.evil.example", f"ftp://localhost:{port}",
                     f"http://localhost:x{port}", "http://evil.example"):
            assert post(port, [token, ("Origin", bent)], address)[0] == 403, bent
        assert post(port, [token, ("Origin", f"https://localhost:{port}")], address)[0] == 200
        assert post(port, [token, ("Origin", "http://LOCALHOST")], address)[0] == 200
        assert post(port, [token, ("Origin", f"http://{shown}:{port}")], address)[0] == 200


@pytest.mark.slow
def test_a_port_in_use_is_a_usage_error_with_the_fix(configured: Path, project: Path
                                                     ) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run(waymarks(configured, "mcp", "--http", "--port", str(port)),
                              cwd=project, capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and done.stdout == ""
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "another --port" in done.stderr and "Traceback" not in done.stderr
    # (another port, not --port 0: a client is configured with the port it connects to)
    assert "--port 0" not in done.stderr


@pytest.mark.slow
def test_port_0_listens_on_a_free_port_and_says_which(configured: Path, project: Path
                                                      ) -> None:
    """``--port 0`` was refused ("a whole number from 1 to 65535"), so a script (or this
    suite) had to pick a port and hope it stayed free until the server bound it. Two
    started at once get a port each, both serve, and each says its own on stderr, in the
    line that says where it serves; nothing is written to standard output."""
    good = ("Authorization", f"Bearer {TOKEN}")
    with server(configured, project) as (first, said_first), \
            server(configured, project) as (second, said_second):
        assert first != second
        assert post(first, [good])[0] == 200 and post(second, [good])[0] == 200
        assert post(first, [])[0] == 401
    for port, said in ((first, said_first), (second, said_second)):
        assert f"waymarks: serving MCP over HTTP at http://127.0.0.1:{port}/mcp (Ctrl-C " \
               "stops it)" in said[0]


@pytest.mark.slow
@pytest.mark.parametrize("host", ["127.0.0.1 ", "::1%no-such-interface",
                                  "localhost.invalid"])
def test_a_host_that_does_not_resolve_is_a_usage_error_about_the_host(
        configured: Path, project: Path, host: str) -> None:
    """A --host that names no address here was told to choose another --port."""
    extra = [] if host != "localhost.invalid" else ["--allow-remote"]
    done = subprocess.run(waymarks(configured, "mcp", "--http", "--port",
                                   "0", "--host", host, *extra),
                          cwd=project, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and done.stdout == ""
    assert "does not resolve to an address here" in done.stderr, done.stderr
    assert "--port" not in done.stderr and "Traceback" not in done.stderr


@contextmanager
def searchable(path: Path) -> Iterator[None]:
    """Every folder above ``path`` that others cannot search made searchable (group and
    other), as a home under /home is; put back after. Test folders are private."""
    changed = []
    for folder in path.resolve().parents:
        mode = folder.stat().st_mode
        if not mode & stat.S_IXOTH and folder.stat().st_uid == os.getuid():
            folder.chmod(stat.S_IMODE(mode) | 0o011)
            changed.append((folder, stat.S_IMODE(mode)))
    try:
        yield
    finally:
        for folder, mode in changed:
            folder.chmod(mode)


def _refused(home: Path, project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(waymarks(home, "mcp", "--http", "--port", "0"),
                          cwd=project, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


@pytest.mark.slow
def test_a_token_other_users_can_read_is_refused(configured: Path, project: Path) -> None:
    """The token is all that keeps other users of this machine out: a config.toml they
    can read (0644 in a home they can enter) is refused with the fix, the token unsaid."""
    config = configured / "config.toml"
    configured.chmod(0o755)
    with searchable(configured):
        for mode in (0o644, 0o640):
            config.chmod(mode)
            done = _refused(configured, project)
            assert done.returncode == 2 and done.stdout == ""
            assert f"chmod 600 {config}" in done.stderr and TOKEN not in done.stderr
    config.chmod(0o644)
    configured.chmod(0o700)  # a private home keeps the file private: no false alarm
    with server(configured, project) as (port, _stderr):
        assert post(port, [("Authorization", f"Bearer {TOKEN}")])[0] == 200
    configured.chmod(0o755)  # nor do private folders above it (a test folder's)
    with server(configured, project) as (port, _stderr):
        assert post(port, [("Authorization", f"Bearer {TOKEN}")])[0] == 200


@pytest.mark.slow
def test_a_token_file_linked_from_a_readable_folder_is_refused(
        configured: Path, project: Path, tmp_path: Path) -> None:
    """A config.toml linked into a dotfiles folder others can read was judged by the
    home's mode, and served (found in a security review): the file linked to is judged."""
    shared = tmp_path / "dotfiles"
    shared.mkdir()
    shared.chmod(0o755)  # (mkdir's mode passes the umask: under 077 it was private)
    real = shared / "config.toml"
    (configured / "config.toml").rename(real)
    real.chmod(0o644)
    (configured / "config.toml").symlink_to(real)
    configured.chmod(0o700)
    with searchable(shared):
        done = _refused(configured, project)
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert f"a link to {real}" in done.stderr and f"chmod 600 {real}" in done.stderr
    assert TOKEN not in done.stderr


def test_a_token_file_hard_linked_from_a_readable_folder_is_refused(tmp_path: Path
                                                                   ) -> None:
    """A 0644 file in a folder others can enter, hard-linked as config.toml into a private
    home, was judged by that link alone and served (found in a review): the other link
    reads the token. A second link with a read bit for others is refused."""
    from waymarks.mcp.http_transport import token_exposed

    shared, home = tmp_path / "dotfiles", tmp_path / "home"
    shared.mkdir()
    shared.chmod(0o755)  # (as above: whatever the umask)
    home.mkdir(mode=0o700)
    real = shared / "config.toml"
    real.write_text(f'[mcp]\ntoken = "{TOKEN}"\n')
    real.chmod(0o644)
    (home / "config.toml").hardlink_to(real)
    with searchable(shared):
        exposed = token_exposed(home / "config.toml")
        assert exposed is not None and "hard links" in exposed
        assert f"chmod 600 {home / 'config.toml'}" in exposed and TOKEN not in exposed
        real.chmod(0o600)  # private, however many links: no false alarm
        assert token_exposed(home / "config.toml") is None


def test_a_token_file_readable_by_its_group_through_folders_others_pass_is_refused(
        tmp_path: Path) -> None:
    """0640 under folders 0701: a member of the file's group who is not in the folders'
    group passes each on its other bit and reads the file on its group bit. Read and search
    bits were paired class by class, so it served (found in a review)."""
    from waymarks.mcp.http_transport import token_exposed

    home = tmp_path / "home"
    home.mkdir()
    config = home / "config.toml"
    config.write_text(f'[mcp]\ntoken = "{TOKEN}"\n')
    config.chmod(0o640)
    with searchable(home):
        for folders, file_mode in ((0o701, 0o640), (0o710, 0o604)):
            home.chmod(folders)
            config.chmod(file_mode)
            exposed = token_exposed(config)
            assert exposed is not None and f"chmod 600 {config}" in exposed, oct(folders)
        home.chmod(0o700)  # a folder only its owner passes keeps the file private
        assert token_exposed(config) is None


@pytest.mark.slow
@pytest.mark.parametrize("token", [" " * 16, f" {TOKEN} ", "tab\there-0123456789",
                                   "caf\u00e9-0123456789abcdef", "short"])
def test_a_token_no_header_can_carry_is_refused(home: Path, project: Path,
                                               token: str) -> None:
    """Sixteen spaces passed the length check and served: header values lose their
    surrounding blanks, so no request could ever match (every one 401, no word why)."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f'[mcp]\ntoken = "{token}"\n'.replace("\t", "\\t"))
    (home / "config.toml").chmod(0o600)
    done = subprocess.run(waymarks(home, "mcp", "--http", "--port", "0"),
                          cwd=project, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "printable ASCII without spaces" in done.stderr
    assert not token.strip() or token.strip() not in done.stderr


@pytest.mark.slow
def test_a_connection_whose_headers_never_end_is_cut_off(configured: Path,
                                                         project: Path) -> None:
    """Half-sent requests were kept for ever, before the token is checked (found in a
    security review): the server runs with the guard (``spawn/http_guard.py``)."""
    from waymarks.spawn.http_guard import HEADER_SECONDS

    with server(configured, project) as (port, _stderr):
        with socket.create_connection(("127.0.0.1", port), timeout=30) as slow:
            slow.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-a: ")
            start = time.monotonic()
            assert slow.recv(4096) == b""  # closed by the server, not answered
            assert time.monotonic() - start < HEADER_SECONDS + 15
        assert post(port, [("Authorization", f"Bearer {TOKEN}")])[0] == 200  # still serves
