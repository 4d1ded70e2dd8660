"""The warm helper for Claude Code hooks (the hook process's client is
:mod:`waymarks.hosts.cc_client`).

A hook is a new process for every prompt. Importing Waymarks and reading a long session
ledger costs hundreds of milliseconds, so a helper process keeps them warm: it listens on
``<home>/claude-code/helper.sock`` (mode 0600; ``helper-0.sock``, ``helper-10.sock`` for
hooks with hybrid recall or its backfill switched off: ``cc_client.socket_path``), keeps
one ``Waymarks`` per project and
session (recall index in memory, ledger read incrementally; the ``WARM_APPS`` most
recently served, a session that never ended is closed after them), answers one hook per
connection, and exits after ``IDLE_SECONDS`` without work (``WAYMARKS_CC_HELPER_IDLE``
overrides: ``0`` starts none, ``inf`` never idles, a value that is not a number of seconds
is logged and the default taken; ``WAYMARKS_CC_HELPER=off`` never starts one), or once
another helper took its socket path over (looked at every ``SOCKET_CHECK_S`` without
work: no hook reaches it any more). It serves as soon as it listens: its start-up work
(the spool's drain, the recovery tick) runs on a thread of its own
(:mod:`waymarks.hosts.cc_helper_start`).

``PostToolUse``/``PostToolUseFailure`` (which print nothing) are answered before the
helper records them, so the hook process leaves at once; the helper takes one connection
at a time, so the turn's ``Stop`` finds every record of it (a helper killed between the
answer and the record loses that one record, like a hook killed before it wrote). A
request whose client hung up (it stopped waiting for this helper, stopped or slow, and
did the hook itself) is dropped, and a tool event whose answer could not be sent is not
recorded: the hook's own process did both (the records are also made once: a tool call
per ``tool_use_id``, a prompt per hook, ``claude_code.handle``).
``Stop``: the helper answers at once, then queues a capture request
(:mod:`waymarks.service.capture_spool`) and captures. The turn's work observations
(issue 19) are closed off the path too (the helper, or the client's detached child), and
only when a tool observation was recorded since the last close
(:mod:`waymarks.hosts.claude_code_turnmark`, a byte search of the session ledger). The
helper checks the input exactly as the in-process path does. It answers only its own
installation's hooks (a request names it: :func:`~waymarks.hosts.cc_client.installation`)
with its code as it started (:class:`~waymarks.spawn.freshness.LoadedCode`): otherwise it
answers "protocol", so the hook does the work itself and starts a helper of its own
installation, and exits. :func:`main` is what the
client's detached processes run (the helper, or ``--background``).
"""

import os
import sys
import time

from waymarks.hosts.cc_client import (
    ANSWER_TIMEOUT_S,
    PROTOCOL,
    _ask,
    _stop_input,
    installation,
    socket_path,
)
from waymarks.spawn.freshness import LoadedCode
from waymarks.spawn.sockets import PROBE, PROBE_ANSWER, listen
from waymarks.spawn.switches import answering

TYPE_CHECKING = False  # not typing's: nothing more than needed in the detached processes
if TYPE_CHECKING:
    import socket
    from pathlib import Path
    from typing import Any

IDLE_SECONDS = 1800
#: the environment variable that overrides :data:`IDLE_SECONDS` (``0``: no helper,
#: ``inf``: never idle; :func:`waymarks.spawn.switches.seconds`)
IDLE_ENV = "WAYMARKS_CC_HELPER_IDLE"
#: warm ``Waymarks`` kept at most (each holds a database connection and the recall index):
#: a session whose ``SessionEnd`` never came (Claude Code killed, its terminal closed)
#: is closed once this many more recent sessions were served; its next hook starts cold
WARM_APPS = 16
#: the detached drainer's waits before each drain: a ``Stop``'s turn may reach Claude
#: Code's transcript after the hook (the request then waits; later drains take it too)
DRAIN_PAUSES = (0.0, 0.25, 0.5, 1.0)
__all__ = ["IDLE_SECONDS", "main", "serve", "socket_path"]
#: events that print nothing: the helper answers before it does the work (issue 19: the
#: ``PostToolUse`` hook runs after every tool call; its process only hands the input over)
_ANSWER_FIRST = ("PostToolUse", "PostToolUseFailure")


def _close_work_turn(home: "str | Path", raw: bytes, project: str, session: str) -> None:
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


def _background(args: list[str]) -> int:
    """The detached process of :func:`_in_background`."""
    home, mode, close = args[0], args[1], args[2:5]
    try:
        from waymarks.spawn.detached import lower_priority

        lower_priority(10)  # background work: everyone's foreground first (its session too)
        if mode == "drain":
            import time
            from pathlib import Path

            from waymarks.service.evolution import drain_captures

            for pause in DRAIN_PAUSES:
                time.sleep(pause)
                errors = drain_captures(Path(home))["errors"]
                if not (isinstance(errors, dict) and errors.get("transcript_behind")):
                    break  # Claude Code had not written the turn yet: a moment later
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


def serve(home: "Path", idle_seconds: float = IDLE_SECONDS) -> None:
    """The helper: answer hooks until idle for ``idle_seconds``."""
    import contextlib
    import json
    import socket

    from waymarks.hosts.cc_helper_start import StartUp, note_failure, warm_learned
    from waymarks.hosts.claude_code import _log, error_code, unusable_home
    from waymarks.ledger.flush_later import flushes_deferred

    code = LoadedCode()  # from its start: what it imports meanwhile (a drain) counts too
    path = socket_path(home)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    except OSError as exc:  # (a file there, a home not this user's to write)
        _note_unavailable(home, exc)
        return
    # one helper per home and switches: the one holding the lock beside its socket
    # (helper.lock for helper.sock); a starting helper that finds it
    # held serves only if the holder does not answer (stopped, hung: the hooks waited 4 s
    # each for it), taking the socket path over. A helper removes the socket at its end
    # only if it is still its own: one that stalled, then went idle, unlinked the socket
    # of the helper that took over, which then ran unreachable for 30 minutes
    from pathlib import Path

    from waymarks.files.locks import open_lock

    try:
        lock: int | None = open_lock(Path(path).with_suffix(".lock"))
    except OSError:
        lock = None
    import fcntl

    if lock is not None:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(lock)
            lock = None
    if lock is None and _holder_answers(home, path):
        return  # the helper holding the lock serves (or is about to)
    if _ask(home, "ping", b"") is not None:
        return  # a helper answers here (one of a release without the lock)
    try:
        server = listen(path)  # in place of a dead or stalled helper's socket
        identity = os.stat(path)
    except OSError as exc:  # a folder in its place, a folder not this user's to write
        _note_unavailable(home, exc)
        if lock is not None:
            os.close(lock)
        return
    # woken every SOCKET_CHECK_S to look at its socket path (``inf``: never idle)
    server.settimeout(min(idle_seconds, SOCKET_CHECK_S))
    last = time.monotonic()  # when it last took a connection
    apps: dict[tuple[str, str], Any] = {}
    start_up = StartUp(home)  # served meanwhile: the hooks find the socket there now
    warm_learned(home)  # (its own thread: a Stop waits for the start-up, not for this)
    mine = installation()  # (what a request must say: :func:`cc_client.installation`)
    switches = answering(lambda name: os.environ.get(name, ""))  # (and with these)
    try:
        while True:
            try:
                connection, _ = server.accept()
            except TimeoutError:
                if time.monotonic() - last >= idle_seconds or not _own(path, identity):
                    return
                continue
            idle_since, last = last, time.monotonic()
            with connection:
                connection.settimeout(ANSWER_TIMEOUT_S)
                try:
                    data = _receive(connection)
                    if data == PROBE:  # status or health asking whether it answers: it
                        last = idle_since  # was not used (a polling script kept it for ever)
                        connection.sendall(PROBE_ANSWER)
                        if time.monotonic() - last >= idle_seconds:
                            return  # (asked more often than its wait for a connection)
                        continue
                    header, _, rest = data.partition(b"\n")
                    project, _, raw = rest.partition(b"\n")
                    request = json.loads(header)
                    # every request: one ``stat`` of each module's file, 0.4-0.8 ms for
                    # the 220-460 a helper has imported (at most once a second, it answered
                    # with code changed a moment before)
                    if code.changed():  # upgraded under it: the client does the hook, the
                        connection.sendall(b"protocol\n")  # next helper is new code
                        return
                    if not _own(path, identity):  # its home moved, the socket along: the
                        # hook is of the home's new path, this helper of the old one (it
                        # said nothing, home_gone, and made the old path's logs again)
                        connection.sendall(b"protocol\n")
                        return
                    if request.get("protocol") != PROTOCOL or \
                            request.get("installation") != mine or \
                            request.get("switches", switches) != switches:
                        # another release's or installation's hooks reach this home now,
                        # or hooks with hybrid recall switched otherwise (each finds the
                        # socket named for its switches, cc_client.socket_path; a check):
                        # they do the work themselves and start a helper of their own,
                        # which this one, stale, leaves the socket and the lock to
                        connection.sendall(b"protocol\n")
                        return
                    event = str(request.get("event"))
                    if event == "ping":
                        connection.sendall(b"ok\n")
                        continue
                    if _client_gone(connection):
                        # it stopped waiting (this helper was stopped or slow) and did the
                        # hook itself: done here too, its prompt and tool call went twice
                        _note_dropped(home, event)
                        continue
                    subagent = request.get("subagent") is True  # the hook's word
                    if event == "Stop":
                        # answer first (the person's turn never waits for capture), then
                        # queue the request durably and drain: a helper that dies in
                        # between loses only the pointer, and the next turn's Stop reads
                        # the same transcript again
                        with contextlib.suppress(OSError):
                            connection.sendall(b"ok\n")
                            connection.shutdown(socket.SHUT_RDWR)
                        if subagent:  # (its client does not ask: nothing to learn)
                            continue
                        where = project.decode("utf-8", "replace")
                        start_up.drained.wait()  # (its drain and this one: never two)
                        session = _queue_stop(home, raw, where)
                        if session is not None:
                            _close_work_turn(home, raw, where, session)
                        continue
                    if event in _ANSWER_FIRST:
                        # a tool event prints nothing: the hook (and Claude Code's next
                        # step) need not wait for the record. Connections are taken one
                        # at a time, so the turn's Stop still finds it recorded
                        # an answer no one took: the client gave up and records it itself
                        connection.sendall(b"ok\n")
                        with contextlib.suppress(OSError):
                            connection.shutdown(socket.SHUT_RDWR)
                except Exception:  # noqa: BLE001 (nothing was done: the client may do it)
                    continue
                # the ledger's lines written before the answer, flushed after it is sent
                with flushes_deferred(lambda exc: _note_unflushed(home, exc)):
                    try:
                        answer = _answer(event, raw, home, apps,
                                         project.decode("utf-8", "replace") or None,
                                         _pid(request.get("pid")), _started(request),
                                         subagent)
                    except Exception as exc:  # noqa: BLE001 (never block the prompt)
                        from datetime import UTC, datetime

                        _log(home, datetime.now(UTC), event, error_code(exc))
                        _close_all(apps)  # start clean: a broken app must not answer again
                        said = unusable_home(event, exc)
                        answer = "" if said is None else json.dumps(said, ensure_ascii=False)
                    if event not in _ANSWER_FIRST:
                        with contextlib.suppress(OSError):
                            connection.sendall(b"ok\n" + answer.encode("utf-8"))
                            connection.shutdown(socket.SHUT_RDWR)  # the client reads it now
                if event == "UserPromptSubmit" and start_up.drained.is_set():
                    try:  # (else the start-up drain takes it)
                        _drain_waiting(home)
                        if start_up.done() and start_up.recovery is not None:
                            start_up.recovery.poll()  # learning on since? one stat if not
                    except Exception as exc:  # noqa: BLE001 (the helper serves on)
                        note_failure(home, exc)
    finally:
        server.close()
        with contextlib.suppress(OSError):
            now = os.stat(path)
            if (now.st_dev, now.st_ino) == (identity.st_dev, identity.st_ino):
                os.unlink(path)  # its own socket, never one another helper put there
        if lock is not None:
            os.close(lock)
        if start_up.wait() is not None:  # (a drain it began is finished first)
            start_up.recovery.stop()  # an attempt in flight returns to pending


def _note_unavailable(home: "Path", exc: OSError) -> None:
    """Log that no helper can serve this home (the error's kind, never a path): it ended
    with a traceback on /dev/null, each hook then did its work itself and started another
    helper, and nothing said why."""
    from datetime import UTC, datetime

    from waymarks.service.logs import log_event

    log_event(home, datetime.now(UTC), "claude_code_helper_unavailable",
              code=type(exc).__name__)


def _note_unflushed(home: "Path", exc: OSError) -> None:
    """Log that a session ledger's deferred flush failed after the answer went out (the
    lines were written; a power cut could lose them): the error's kind, never a path."""
    from datetime import UTC, datetime

    from waymarks.service.logs import log_event

    log_event(home, datetime.now(UTC), "claude_code_helper_unflushed",
              code=type(exc).__name__)


def _holder_answers(home: "Path", path: str) -> bool:
    """Whether the helper holding the lock answers: given a few seconds to put its
    socket there (it may be starting), then the client's wait for an answer."""
    import time

    deadline = time.monotonic() + STARTING_S
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return _ask(home, "ping", b"") is not None


#: how long a helper waits for the one holding the lock to put its socket in place
STARTING_S = 3.0
#: how often a helper without work checks that ``helper.sock`` is still its own
SOCKET_CHECK_S = 2.0


def _own(path: str, identity: "os.stat_result") -> bool:
    """Whether the socket at ``path`` is still the one this helper bound. Another took
    the path over (this one stalled past a hook's wait, or a helper of another release
    answered "protocol"), or the home went: no hook reaches this one any more, and it
    waited on its unlinked socket for its idle time (30 minutes; with two installations
    on a home, each hook started another helper: 8 after 6 prompts). Asked at each
    request too: a home moved elsewhere took the socket along, and its hooks reached a
    helper of the old path."""
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # unreadable for now: it may serve still
    return (now.st_dev, now.st_ino) == (identity.st_dev, identity.st_ino)


def _close_all(apps: "dict[tuple[str, str], Any]") -> None:
    """Close and forget every warm ``Waymarks``: one dropped unclosed kept its database
    connection until the collector found it (never, once its heap settling froze it)."""
    import contextlib

    while apps:
        with contextlib.suppress(Exception):  # a broken one still lets the others close
            apps.popitem()[1].close()


def _queue_stop(home: "Path", raw: bytes, project: str) -> str | None:
    """Queue and drain a ``Stop``'s capture request; its session (``None``: bad input,
    logged)."""
    found = _stop_input(raw, project)
    if found is None:
        from datetime import UTC, datetime

        from waymarks.hosts.claude_code import _log

        _log(home, datetime.now(UTC), "Stop", "bad_input")
        return None
    from waymarks.hosts.cc_helper_start import drain_spool
    from waymarks.service.capture_spool import write_request

    write_request(home, "claude-code", "Stop", *found)
    drain_spool(home)
    return found[0]


def _drain_waiting(home: "Path") -> None:
    """After a prompt is answered: a ``Stop`` still waiting for its turn to reach the
    transcript is taken now. ``claude -p`` writes the transcript after the ``Stop`` hook
    and before it exits, so by the next prompt the last turn is there; left for the next
    ``Stop``, its request was replaced by that turn's, which then judged a file ending
    with the turn before as written, one turn behind from then on, and the session's last
    turn was never captured. One directory listing when nothing waits."""
    from waymarks.hosts.cc_helper_start import drain_spool

    drain_spool(home)


#: a request: a header line, the project line and the hook's input, which the hook reads
#: at most ``claude_code.MAX_INPUT_BYTES`` (+1) of; read without a cap, a client on the
#: socket could make the helper hold any amount
MAX_REQUEST_BYTES = 4 * 1024 * 1024 + 1 + 64 * 1024


def _receive(connection: "socket.socket") -> bytes:
    """The whole request; ``ValueError`` past :data:`MAX_REQUEST_BYTES` (nothing is done:
    the client does the hook itself, and refuses input that large)."""
    chunks = []
    size = 0
    while chunk := connection.recv(65536):
        size += len(chunk)
        if size > MAX_REQUEST_BYTES:
            raise ValueError("request too large")
        chunks.append(chunk)
    return b"".join(chunks)


def _client_gone(connection: "socket.socket") -> bool:
    """Whether the hook's client has closed its end of the connection (hung up: it
    stopped waiting for an answer and does the hook itself). It shut down only its
    writing side after the request, so a hang-up is its close, never the request's end."""
    import select

    poller = select.poll()
    poller.register(connection, 0)  # hang-ups and errors only: they are always reported
    return any(events & (select.POLLHUP | select.POLLERR | select.POLLNVAL)
               for _fd, events in poller.poll(0))


def _note_dropped(home: "Path", event: str) -> None:
    """Log a request dropped because its client had gone (never content)."""
    from datetime import UTC, datetime

    from waymarks.service.logs import log_event

    log_event(home, datetime.now(UTC), "claude_code_helper_dropped",
              kind=event if event.isascii() and event.isalpha() else "invalid")


def _started(request: "dict[str, Any]") -> int | None:
    """When the hook's client started (epoch ms), if it said: a prompt recorded since is
    this hook's (``claude_code.handle``)."""
    value = request.get("started")
    return value if type(value) is int and value > 0 else None


def _pid(value: object) -> int | None:
    """The hook client's Claude Code process (``spawn.parent.claude_pid``), if it sent
    one that names a process."""
    return value if type(value) is int and value >= 1 else None


def _answer(event: str, raw: bytes, home: "Path", apps: "dict[tuple[str, str], Any]",
            project: str | None, pid: int | None = None,
            started_ms: int | None = None, subagent: bool = False) -> str:
    """One hook, on the warm ``Waymarks`` of its project and session. ``subagent``: the
    hook runs in a subagent (its request says so; never this process's environment)."""
    import json
    from datetime import UTC, datetime

    from waymarks.hosts.claude_code import (
        HOOK_BUSY_TIMEOUT_MS,
        HookInputError,
        _log,
        handle,
        parse_input,
        project_of,
    )
    from waymarks.service.app import Waymarks

    try:
        payload = parse_input(event, raw)
    except HookInputError as exc:
        _log(home, datetime.now(UTC), event, exc.code)
        return ""
    cwd = project_of(payload, project)
    key = (cwd, payload["session_id"].lower())
    app = apps.pop(key, None)  # kept again last: the most recently served
    if app is None:
        app = Waymarks(home, cwd=cwd, keep_recall_index=True, project_may_be_gone=True,
                       busy_timeout_ms=HOOK_BUSY_TIMEOUT_MS)
        while len(apps) >= WARM_APPS:
            apps.pop(next(iter(apps))).close()  # the least recently served
    apps[key] = app
    if event == "UserPromptSubmit":  # its query embedded beside the prompt's record
        from waymarks.service.query_ahead import embed_ahead

        embed_ahead(app, payload["prompt"])
    output = handle(event, payload, home, app, pid=pid, started_ms=started_ms,
                    subagent=subagent)
    if event == "SessionEnd":
        apps.pop(key, None)
        app.close()
    return json.dumps(output, ensure_ascii=False) if output is not None else ""


def main(argv: list[str]) -> int:
    """A detached process (:func:`_spawn`): ``--background HOME MODE [CLOSE...]`` or the
    helper, ``HOME``."""
    if argv[:1] == ["--background"]:
        return _background(argv[1:])
    from pathlib import Path

    from waymarks.spawn.switches import seconds

    usage = "usage: python -m waymarks.hosts.cc_helper HOME (the Claude Code hooks start it)"
    if len(argv) != 1 or not argv[0]:
        print(usage, file=sys.stderr)
        return 2
    try:
        os.chdir(argv[0])  # the helper runs in the home, not in the project
    except OSError as exc:  # (it ended in a traceback: nothing to serve, nothing created)
        why = {FileNotFoundError: "no such folder", NotADirectoryError: "not a folder"}
        print(f"waymarks: no Claude Code helper for {argv[0]}: "
              f"{why.get(type(exc), exc.strerror or type(exc).__name__)}\n{usage}",
              file=sys.stderr)
        return 2
    home = Path(argv[0])
    idle = seconds(os.environ.get(IDLE_ENV, ""), IDLE_SECONDS)
    if idle is None:  # (before, ``30m`` ended the helper with a traceback nobody saw)
        from datetime import UTC, datetime

        from waymarks.service.logs import log_event

        log_event(home, datetime.now(UTC), "claude_code_helper_bad_idle")
        idle = IDLE_SECONDS
    if idle > 0:  # (0: switched off; the hooks do not start one then)
        serve(home, idle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
