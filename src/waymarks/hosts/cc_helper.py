"""The warm helper for Claude Code hooks, and the lean client each hook process runs.

A hook is a new process for every prompt. Importing Waymarks and reading a long session
ledger costs hundreds of milliseconds, so a helper process keeps them warm: it listens on
``<home>/claude-code/helper.sock`` (mode 0600), keeps one ``Waymarks`` per project and
session (recall index in memory, ledger read incrementally), answers one hook per
connection, and exits after ``IDLE_SECONDS`` without work (``WAYMARKS_CC_HELPER_IDLE``
overrides; ``WAYMARKS_CC_HELPER=off`` never starts one).

The client (:func:`run`) imports nothing of Waymarks: it sends the raw hook input and
the event, prints the answer, exits 0. When no helper answers, it handles the hook in
its own process (slower, same result) and starts a helper for the next prompt. The
helper checks the input exactly as the in-process path does.
"""

from __future__ import annotations

import os
import socket
import sys

TYPE_CHECKING = False  # the client path imports nothing it does not need (not typing)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

SOCKET_NAME = "helper.sock"
IDLE_SECONDS = 1800
CONNECT_TIMEOUT_S = 0.5
ANSWER_TIMEOUT_S = 8.0
PROTOCOL = "waymarks-cc-helper-v1"


def socket_path(home: str | Path) -> str:
    return os.path.join(home, "claude-code", SOCKET_NAME)


def run(argv: list[str], home: str) -> int:
    """The hook's entry point (lean): ask the helper, else do it here."""
    event = argv[0] if argv else ""
    raw = sys.stdin.buffer.read(4 * 1024 * 1024 + 1)
    answer = _ask(home, event, raw)
    if answer is None:
        from pathlib import Path

        from waymarks.hosts.claude_code import main as in_process

        code = in_process_with(in_process, argv, Path(home), raw)
        if os.environ.get("WAYMARKS_CC_HELPER", "on") != "off":
            _start_helper(home)
        return code
    if answer:
        sys.stdout.write(answer)
        sys.stdout.flush()
    return 0


def in_process_with(entry: Any, argv: list[str], home: Path, raw: bytes) -> int:
    """Run the in-process hook on ``raw`` (stdin was already read)."""
    import io

    sys.stdin = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8")
    code: int = entry(argv, home)
    return code


def _ask(home: str | Path, event: str, raw: bytes) -> str | None:
    """The helper's answer (``""``: nothing to print), or ``None`` if none answered."""
    path = socket_path(home)
    if not os.path.exists(path):
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(CONNECT_TIMEOUT_S)
            client.connect(path)
            client.settimeout(ANSWER_TIMEOUT_S)
            name = event if event.isascii() and event.isalpha() else "invalid"
            header = f'{{"protocol": "{PROTOCOL}", "event": "{name}"}}'.encode()
            client.sendall(header + b"\n" + raw)
            client.shutdown(socket.SHUT_WR)
            chunks = []
            while chunk := client.recv(65536):
                chunks.append(chunk)
    except OSError:
        return None
    reply = b"".join(chunks)
    if not reply.startswith(b"ok\n"):
        return None  # a helper of another version, or one that failed: do it here
    return reply[3:].decode("utf-8")


def _start_helper(home: str) -> None:
    import contextlib
    import subprocess

    with contextlib.suppress(OSError):  # if it cannot start, the next prompt tries again
        subprocess.Popen(
            [sys.executable, "-m", "waymarks.hosts.cc_helper", home],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, close_fds=True)


def serve(home: Path, idle_seconds: float = IDLE_SECONDS) -> None:
    """The helper: answer hooks until idle for ``idle_seconds``."""
    import json

    from waymarks.hosts.claude_code import HookInputError, handle, parse_input
    from waymarks.service.app import Waymarks

    path = socket_path(home)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if _ask(home, "ping", b"") is not None:
        return  # another helper already answers here
    if os.path.exists(path):
        os.unlink(path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        server.bind(path)
    finally:
        os.umask(old_umask)
    server.listen(16)
    server.settimeout(idle_seconds)
    apps: dict[tuple[str, str], Any] = {}
    try:
        while True:
            try:
                connection, _ = server.accept()
            except TimeoutError:
                return
            with connection:
                connection.settimeout(ANSWER_TIMEOUT_S)
                try:
                    data = _receive(connection)
                    header, _, raw = data.partition(b"\n")
                    request = json.loads(header)
                    if request.get("protocol") != PROTOCOL:
                        connection.sendall(b"protocol\n")
                        continue
                    event = str(request.get("event"))
                    if event == "ping":
                        connection.sendall(b"ok\n")
                        continue
                    answer = _answer(event, raw, home, apps, handle, parse_input,
                                     HookInputError, Waymarks)
                    connection.sendall(b"ok\n" + answer.encode("utf-8"))
                except Exception:  # noqa: BLE001 (the client then does it in-process)
                    apps.clear()  # start clean: a broken app must not answer again
                    continue
    finally:
        server.close()
        if os.path.exists(path):
            os.unlink(path)


def _receive(connection: socket.socket) -> bytes:
    chunks = []
    while chunk := connection.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _answer(event: str, raw: bytes, home: Path, apps: dict[tuple[str, str], Any],
            handle: Any, parse_input: Any, input_error: Any, waymarks: Any) -> str:
    import json
    from datetime import UTC, datetime

    from waymarks.hosts.claude_code import _log

    try:
        payload = parse_input(event, raw)
    except input_error as exc:
        _log(home, datetime.now(UTC), event, exc.code)
        return ""
    key = (payload["cwd"], payload["session_id"].lower())
    app = apps.get(key)
    if app is None:
        app = apps[key] = waymarks(home, cwd=payload["cwd"], keep_recall_index=True)
    output = handle(event, payload, home, app)
    if event == "SessionEnd":
        apps.pop(key, None)
        app.close()
    return json.dumps(output, ensure_ascii=False) if output is not None else ""


if __name__ == "__main__":
    from pathlib import Path

    serve(Path(sys.argv[1]), float(os.environ.get("WAYMARKS_CC_HELPER_IDLE") or IDLE_SECONDS))
