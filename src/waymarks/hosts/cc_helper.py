"""The warm helper for Claude Code hooks, and the lean client each hook process runs.

A hook is a new process for every prompt. Importing Waymarks and reading a long session
ledger costs hundreds of milliseconds, so a helper process keeps them warm: it listens on
``<home>/claude-code/helper.sock`` (mode 0600), keeps one ``Waymarks`` per project and
session (recall index in memory, ledger read incrementally), answers one hook per
connection, and exits after ``IDLE_SECONDS`` without work (``WAYMARKS_CC_HELPER_IDLE``
overrides; ``WAYMARKS_CC_HELPER=off`` never starts one).

The client (:func:`run`) imports nothing of Waymarks: it sends the raw hook input and
the event, prints the answer, exits 0. ``PostToolUse``/``PostToolUseFailure`` (which
print nothing) are answered before the helper records them, so the hook process leaves
at once; the helper takes one connection at a time, so the turn's ``Stop`` finds every
record of it (a helper killed between the answer and the record loses that one record,
like a hook killed before it wrote). ``Stop`` is lighter still: the helper answers at once, then
queues a capture request (:mod:`waymarks.service.capture_spool`) and captures; with no
helper, the client writes the request durably itself (no ``json``/``re`` import) and a
detached child captures (or the helper it starts). The turn's work observations (issue
19) are closed off the path too (the helper, or that child), and only when a tool
observation was recorded since the last close (:mod:`waymarks.hosts.claude_code_turnmark`,
a byte search of the session ledger). When no helper answers, it handles the hook in
its own process (slower, same result) and starts a helper for the next prompt. The
helper checks the input exactly as the in-process path does.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # the client path imports nothing it does not need (not typing)
if TYPE_CHECKING:
    import socket
    from pathlib import Path
    from typing import Any

SOCKET_NAME = "helper.sock"
IDLE_SECONDS = 1800
CONNECT_TIMEOUT_S = 0.5
ANSWER_TIMEOUT_S = 8.0
PROTOCOL = "waymarks-cc-helper-v1"
#: events that print nothing: the helper answers before it does the work (issue 19: the
#: ``PostToolUse`` hook runs after every tool call; its process only hands the input over)
_ANSWER_FIRST = ("PostToolUse", "PostToolUseFailure")


def socket_path(home: str | Path) -> str:
    return os.path.join(home, "claude-code", SOCKET_NAME)


#: a Unix socket address holds at most 107 bytes (Linux; 103 on macOS): a longer path is
#: reached from its directory by its short name
_SHORT_ADDRESS = 100


def _at_socket(path: str, use: Any) -> None:
    """``use(address)`` (connect or bind) for the socket at ``path``, however long it is.

    A home deep in the file system (a long user name, a test's temporary directory) puts
    the socket past the address limit: ``bind`` and ``connect`` then fail, and every
    hook would quietly run without the helper. From the socket's directory its short
    name is the address; the working directory is restored, even if it was removed."""
    if len(os.fsencode(path)) <= _SHORT_ADDRESS:
        use(path)
        return
    here = os.open(".", os.O_RDONLY)
    try:
        os.chdir(os.path.dirname(path))
        use(os.path.basename(path))
    finally:
        os.fchdir(here)
        os.close(here)


def run(argv: list[str], home: str) -> int:
    """The hook's entry point (lean): ask the helper, else do it here."""
    if os.environ.get("WAYMARKS_EVOLUTION_CHILD"):  # core.evolution_policy.CHILD_ENV
        # this Claude Code is a consolidation call (`claude -p`): its prompt is a sanitized
        # source, not the person's; record nothing, inject nothing
        return 0
    event = argv[0] if argv else ""
    if event in ("Stop", "PostToolUse", "PostToolUseFailure") and \
            os.environ.get("PI_SUBAGENT_AGENT_ID"):
        return 0  # a subagent's turn is never captured (checked here: the helper's own
        # environment is not the hook's)
    raw = sys.stdin.buffer.read(4 * 1024 * 1024 + 1)
    project = os.environ.get("CLAUDE_PROJECT_DIR", "")
    if event == "Stop" and len(argv) == 1:
        stopped = _stop(home, raw, project)
        if stopped is not None:
            return stopped
    answer = _ask(home, event, raw, project)
    if answer is None:  # no helper took the request: nothing was done yet
        from pathlib import Path

        from waymarks.hosts.claude_code import main as in_process

        code: int = in_process(argv, Path(home), raw, project or None)
        if os.environ.get("WAYMARKS_CC_HELPER", "on") != "off":
            _start_helper(home)
        return code
    if answer:
        sys.stdout.buffer.write(answer.encode("utf-8"))
        sys.stdout.buffer.flush()
    return 0


def _stop(home: str, raw: bytes, project: str) -> int | None:
    """``Stop``: queue a capture request and leave (the analysis runs off this path: the
    helper after it answered, else a detached drainer). ``None``: not handled here (the
    input is not what a ``Stop`` hook sends, or the request could not be queued): the
    in-process path answers, logs and captures as before."""
    try:
        with open(os.path.join(home, "config.toml"), "rb") as handle:
            config = handle.read(1 << 20)
        if b"learn" not in config or b"true" not in config:
            return 0  # learning is off (the exact check, projects included, is the drainer's)
    except OSError:
        return 0  # no home configuration: learning is off
    if _ask(home, "Stop", raw, project) is not None:
        return 0  # the helper took it: it answers first, then queues and captures
    found = _stop_input(raw, project)
    if found is None:
        return None
    session, transcript, where = found
    from waymarks.service.capture_spool import write_request

    # no helper: the request is written durably (fsync) before this process leaves
    if not write_request(home, "claude-code", "Stop", session, transcript, where):
        return None
    helper = os.environ.get("WAYMARKS_CC_HELPER", "on") != "off"
    if helper:
        _start_helper(home)  # it drains the spool when it starts
    # the turn's tool observations (issue 19): most turns have none new, which a byte
    # search of the session ledger answers here; closing one (~70 ms of CPU) is left to
    # the detached child, like the statements' drain
    from waymarks.hosts.claude_code_turnmark import pending_turn

    pending, _seen = pending_turn(home, session)
    if pending or not helper:  # the child also notes a statement turn (item 46)
        _in_background(home, drain=not helper, close=found)
    return 0


def _close_work_turn(home: str | Path, raw: bytes, project: str, session: str) -> None:
    """Close the turn's work observations (issue 19): the spool's drainer stores the
    statements only. A turn with no tool observation recorded since the last close is
    answered by a byte search (:mod:`waymarks.hosts.claude_code_turnmark`): it is not
    captured again, and only a statement turn without tools is noted (item 46). This runs
    off the hook's path (the helper after answering, or the detached child); a failure is
    logged, never raised into the person's turn."""
    from waymarks.hosts.claude_code_turnmark import mark_closed, pending_turn

    pending, seen = pending_turn(str(home), session)
    from pathlib import Path

    from waymarks.hosts.claude_code import close_work_turn

    try:
        close_work_turn(raw, Path(home), project or None, observed=pending)
    except Exception as exc:  # noqa: BLE001 (a hook never fails the turn; logged)
        from datetime import UTC, datetime

        from waymarks.hosts.claude_code import _log

        _log(Path(home), datetime.now(UTC), "Stop", type(exc).__name__)
        return  # no mark: the next Stop tries this turn again
    if pending:  # a turn with no observation is only noted when it states something
        mark_closed(str(home), session, seen)


def _stop_input(raw: bytes, project: str) -> tuple[str, str, str] | None:
    """(session, transcript, project) from a ``Stop`` hook's input, checked as far as a
    request needs (the drainer checks the rest); None when it is not usable."""
    from waymarks.service.capture_spool import loads_object  # C JSON: no `re`, no `enum`

    payload = loads_object(raw)
    if payload is None or payload.get("hook_event_name") not in (None, "Stop"):
        return None
    session, cwd = payload.get("session_id"), payload.get("cwd")
    transcript = payload.get("transcript_path")
    if not (isinstance(session, str) and len(session) == 36
            and [i for i, c in enumerate(session) if c == "-"] == [8, 13, 18, 23]
            and all(c in "0123456789abcdefABCDEF-" for c in session)):
        return None
    if not isinstance(cwd, str) or not os.path.isabs(cwd) or not os.path.isdir(cwd):
        return None
    if not isinstance(transcript, str) or not os.path.isabs(transcript):
        return None
    where = project if project and os.path.isabs(project) and os.path.isdir(project) else cwd
    return session.lower(), transcript, where


def _in_background(home: str, *, drain: bool, close: tuple[str, str, str] | None) -> None:
    """Drain the capture spool (``drain``: no helper runs here), then close the turn's
    work observations (``close``: session, transcript, project), in a detached process:
    the hook's own exits at once. Spawned, not forked: a forked child holds the hook's
    pipes until it is first scheduled, and Claude Code waits for them to close (on a
    loaded machine that was most of the hook's wall time); ``posix_spawn`` replaces them
    before this process goes on. Only IDs and paths are passed, never content."""
    _spawn(["--background", home, "drain" if drain else "-", *(close or ())])


def _background(args: list[str]) -> int:
    """The detached process of :func:`_in_background`."""
    home, mode, close = args[0], args[1], args[2:5]
    try:
        os.nice(10)  # background work: everyone's foreground first
        if mode == "drain":
            from pathlib import Path

            from waymarks.service.evolution import drain_captures

            drain_captures(Path(home))
        if len(close) == 3:
            import json

            session, transcript, project = close
            raw = json.dumps({"session_id": session, "cwd": project,
                              "transcript_path": transcript,
                              "hook_event_name": "Stop"}).encode()
            _close_work_turn(home, raw, project, session)  # logs its own failures
    except Exception:  # noqa: BLE001 - a detached process has no one to tell; a request
        pass  # that failed stays queued (the drain keeps it), a turn unmarked: retried
    return 0


def _spawn(args: list[str]) -> None:
    """``python -I -m waymarks.hosts.cc_helper ARGS`` detached: its own session, standard
    streams on /dev/null (set before this process continues), no other descriptor (ours
    are close-on-exec). ``-I``: isolated, so nothing in the project directory (a
    socket.py, PYTHONPATH) can run in it. If it cannot start, the next prompt tries
    again."""
    actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDWR, 0),
               (os.POSIX_SPAWN_DUP2, 0, 1), (os.POSIX_SPAWN_DUP2, 0, 2)]
    try:
        os.posix_spawn(sys.executable, [sys.executable, "-I", "-m", "waymarks.hosts.cc_helper",
                                        *args], os.environ, file_actions=actions, setsid=True)
    except OSError:
        return


def _ask(home: str | Path, event: str, raw: bytes, project: str = "") -> str | None:
    """The helper's answer (``""``: nothing to print), or ``None`` if no helper took the
    request (then nothing was done, and the caller may do it itself)."""
    path = socket_path(home)
    if not os.path.exists(path):
        return None
    # the C module, not `socket`: that one imports enum, selectors and array, ~1 ms of
    # CPU quiet and tens of ms on a loaded machine, on every prompt (measured)
    import _socket

    client = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        client.settimeout(CONNECT_TIMEOUT_S)
        _at_socket(path, client.connect)
        client.settimeout(ANSWER_TIMEOUT_S)
        name = event if event.isascii() and event.isalpha() else "invalid"
        header = f'{{"protocol": "{PROTOCOL}", "event": "{name}"}}'.encode()
        where = project.encode("utf-8", "replace") if "\n" not in project else b""
        client.sendall(header + b"\n" + where + b"\n" + raw)
        client.shutdown(_socket.SHUT_WR)
        chunks = []
        while chunk := client.recv(65536):
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        client.close()
    reply = b"".join(chunks)
    if reply.startswith(b"ok\n"):
        return reply[3:].decode("utf-8", "replace")
    if reply.startswith(b"protocol\n"):
        return None  # a helper of another version did nothing: do it here
    return ""  # it took the request and failed: doing it again could record it twice


def _start_helper(home: str) -> None:
    """Start a helper for the next prompts, detached (:func:`_spawn`; it moves to the
    home itself, so it never runs in the project). Spawned with ``os`` alone:
    ``subprocess`` costs ~40 ms of imports on a loaded machine, on the hook's path."""
    _spawn([home])


def serve(home: Path, idle_seconds: float = IDLE_SECONDS) -> None:
    """The helper: answer hooks until idle for ``idle_seconds``."""
    import contextlib
    import json
    import socket

    from waymarks.hosts.claude_code import _log

    path = socket_path(home)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if _ask(home, "ping", b"") is not None:
        return  # another helper already answers here
    if os.path.exists(path):
        os.unlink(path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        _at_socket(path, server.bind)
    finally:
        os.umask(old_umask)
    server.listen(16)
    server.settimeout(idle_seconds)
    apps: dict[tuple[str, str], Any] = {}
    _drain(home)  # capture requests queued while no helper ran
    tick = _start_recovery(home)
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
                    header, _, rest = data.partition(b"\n")
                    project, _, raw = rest.partition(b"\n")
                    request = json.loads(header)
                    if request.get("protocol") != PROTOCOL:
                        connection.sendall(b"protocol\n")
                        continue
                    event = str(request.get("event"))
                    if event == "ping":
                        connection.sendall(b"ok\n")
                        continue
                    if event == "Stop":
                        # answer first (the person's turn never waits for capture), then
                        # queue the request durably and drain: a helper that dies in
                        # between loses only the pointer, and the next turn's Stop reads
                        # the same transcript again
                        with contextlib.suppress(OSError):
                            connection.sendall(b"ok\n")
                            connection.shutdown(socket.SHUT_RDWR)
                        where = project.decode("utf-8", "replace")
                        session = _queue_stop(home, raw, where)
                        if session is not None:
                            _close_work_turn(home, raw, where, session)
                        continue
                    if event in _ANSWER_FIRST:
                        # a tool event prints nothing: the hook (and Claude Code's next
                        # step) need not wait for the record. Connections are taken one
                        # at a time, so the turn's Stop still finds it recorded
                        with contextlib.suppress(OSError):
                            connection.sendall(b"ok\n")
                            connection.shutdown(socket.SHUT_RDWR)
                except Exception:  # noqa: BLE001 (nothing was done: the client may do it)
                    continue
                try:
                    answer = _answer(event, raw, home, apps,
                                     project.decode("utf-8", "replace") or None)
                except Exception as exc:  # noqa: BLE001 (never block the prompt)
                    from datetime import UTC, datetime

                    _log(home, datetime.now(UTC), event, type(exc).__name__)
                    apps.clear()  # start clean: a broken app must not answer again
                    answer = ""
                if event not in _ANSWER_FIRST:
                    with contextlib.suppress(OSError):
                        connection.sendall(b"ok\n" + answer.encode("utf-8"))
    finally:
        server.close()
        if os.path.exists(path):
            os.unlink(path)
        if tick is not None:
            tick.stop()  # an attempt in flight returns to pending, without a failure


def _queue_stop(home: Path, raw: bytes, project: str) -> str | None:
    """Queue and drain a ``Stop``'s capture request; its session (``None``: bad input,
    logged)."""
    found = _stop_input(raw, project)
    if found is None:
        from datetime import UTC, datetime

        from waymarks.hosts.claude_code import _log

        _log(home, datetime.now(UTC), "Stop", "bad_input")
        return None
    from waymarks.service.capture_spool import write_request

    write_request(home, "claude-code", "Stop", *found)
    _drain(home)
    return found[0]


def _drain(home: Path) -> None:
    """Drain the capture spool with the helper's warm evolution state (a request that
    fails stays queued; nothing here blocks a hook)."""
    import sqlite3

    from waymarks.hosts.claude_code_capture import drop_warm, warm_evolution
    from waymarks.service.capture_spool import drain

    try:
        drain(home, warm_evolution(home))
    except (sqlite3.Error, OSError) as exc:
        from datetime import UTC, datetime

        from waymarks.hosts.claude_code import _log

        drop_warm(home)
        _log(home, datetime.now(UTC), "Stop", type(exc).__name__)


def _start_recovery(home: Path) -> Any:
    """Memory evolution's recovery tick, in the helper (never in a hook's own process):
    one queued source per check, the first 15 s after the helper starts."""
    from waymarks.models import route_client, route_is_available
    from waymarks.service.evolution_wiring import start_recovery

    return start_recovery(home, route_client, route_is_available)


def _receive(connection: socket.socket) -> bytes:
    chunks = []
    while chunk := connection.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _answer(event: str, raw: bytes, home: Path, apps: dict[tuple[str, str], Any],
            project: str | None) -> str:
    """One hook, on the warm ``Waymarks`` of its project and session."""
    import json
    from datetime import UTC, datetime

    from waymarks.hosts.claude_code import HookInputError, _log, handle, parse_input, project_of
    from waymarks.service.app import Waymarks

    try:
        payload = parse_input(event, raw)
    except HookInputError as exc:
        _log(home, datetime.now(UTC), event, exc.code)
        return ""
    cwd = project_of(payload, project)
    key = (cwd, payload["session_id"].lower())
    app = apps.get(key)
    if app is None:
        app = apps[key] = Waymarks(home, cwd=cwd, keep_recall_index=True)
    output = handle(event, payload, home, app)
    if event == "SessionEnd":
        apps.pop(key, None)
        app.close()
    return json.dumps(output, ensure_ascii=False) if output is not None else ""


if __name__ == "__main__":
    if sys.argv[1:2] == ["--background"]:
        sys.exit(_background(sys.argv[2:]))
    from pathlib import Path

    os.chdir(sys.argv[1])  # the helper runs in the home, not in the project
    serve(Path(sys.argv[1]), float(os.environ.get("WAYMARKS_CC_HELPER_IDLE") or IDLE_SECONDS))
