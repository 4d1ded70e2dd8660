"""The client every Claude Code hook process runs: hand the hook to the warm helper
(:mod:`waymarks.hosts.cc_helper`), print its answer, exit 0.

``PostToolUse`` runs after every tool call, so this path is as short as a Python process
can be: it imports nothing of Waymarks, not ``os`` (~2 ms of CPU in a process started
with ``-S``, as the hook's launcher :mod:`waymarks.hosts.hook_entry` does: ``posix`` and
``_socket`` are built in), and sends the raw hook input and the event in one write.
``Stop`` is lighter still: the helper answers at once, then queues a capture request and
captures; with no helper, the client writes the request durably itself (no ``json``/
``re`` import) and a detached child captures (or the helper it starts). When no helper
answers, it handles the hook in its own process (slower, same result; first
:func:`~waymarks.spawn.detached.complete_import_path`, for a process the launcher
started without ``site``) and starts a helper for the next prompt.

What must stay true: nothing here imports beyond ``sys``, ``posix`` and ``_socket`` before
the helper has been asked (``tests/test_lean_paths.py``; a prompt's hook also takes the
time, from the built-in ``time``, to send along); no ``from __future__``.
"""

import posix
import sys

from waymarks.hosts.hook_answer import write_answer
from waymarks.spawn.parent import claude_pid
from waymarks.spawn.sockets import connect, installation_key, resolved
from waymarks.spawn.switches import answering, seconds, switched_off

TYPE_CHECKING = False  # not typing's: the client path imports nothing it does not need
if TYPE_CHECKING:
    from pathlib import Path

SOCKET_NAME = "helper.sock"
CONNECT_TIMEOUT_S = 0.5
#: a helper answers in ~30 ms; one that has not in 4 s is stalled: the hook is done here
#: instead, within what is left of Claude Code's 10 s (its database waits are 1 s each)
ANSWER_TIMEOUT_S = 4.0
#: what a request says it speaks; a helper speaking anything else answers "protocol" and
#: does nothing. v2: helpers of releases before 2026-12-04 spoke v1 and never compared
#: their code with the disk, so after an upgrade in place one kept answering every prompt
#: with the old code (old privacy rules, an old schema's rows). Helpers since check their
#: files themselves; change this when a request's or an answer's meaning changes. v3: a
#: request says whether its hook is a subagent's (2026-12-05): a v2 helper read its own
#: environment instead, and a v3 helper given a v2 request took every hook for the
#: person's, so a subagent's statements were learned across two installations on a home.
#: v4: a request says which installation sent it (:func:`installation`, 2026-12-06): a v3
#: helper of an older installation on the same home (a new venv or Python, a move from
#: ``pip --user`` to pipx, ``claude-code install`` run again, the old files still there)
#: answered the new installation's hooks with its own code.
PROTOCOL = "waymarks-cc-helper-v4"
#: events the client does itself when the helper closed the connection without an answer
#: (killed mid-request): the prompt's context and record, the session's binding. Safe to
#: do again: a prompt the helper recorded since the hook started is not recorded twice
#: (``claude_code.handle``, the hook's start sent along); binding a session is idempotent
REDO_ON_CLOSE = ("UserPromptSubmit", "SessionStart")
#: set (non-empty) in a Pi subagent's process: nothing of its turns is learned. Whether a
#: hook is a subagent's is its own environment's word, sent to the helper with every
#: request (``"subagent": true``): the helper's environment is the one of whichever hook
#: started it, so it is never read there, and the helper is started without it
SUBAGENT_ENV = "PI_SUBAGENT_AGENT_ID"


def socket_path(home: "str | Path") -> str:
    """Where the helper for this process's switches listens (:func:`~waymarks.spawn.
    switches.answering`): hooks with hybrid recall switched otherwise each have a helper
    of their own (one for both replaced it on every prompt when they alternated, each
    prompt cold). The helper, started with the hook's environment, finds the same."""
    switches = answering(_env)
    name = SOCKET_NAME if switches == "11" else f"helper-{switches}.sock"
    return f"{home}/claude-code/{name}"


def installation() -> str:
    """The installation a request comes from and a helper serves, as the request says it
    (hex): the interpreter and this module's file, links followed
    (:func:`~waymarks.spawn.sockets.installation_key`). A helper started by another
    installation's hook answers "protocol" to it and stops (:mod:`waymarks.hosts.cc_helper`);
    the hook does the work itself and starts a helper of its own."""
    return installation_key(resolved(__file__)).hex()


def _env(name: str) -> str:
    """An environment variable ("" if unset) without ``os``: ``os.environ`` when ``os``
    is loaded already (it may have been changed in this process), else the process's
    environment as it started (``posix.environ``)."""
    os = sys.modules.get("os")
    if os is not None:
        value: str = os.environ.get(name, "")
        return value
    raw = posix.environ.get(name.encode())
    return raw.decode(sys.getfilesystemencoding(), "surrogateescape") if raw else ""


def hook_arguments(argv: list[str]) -> tuple[str | None, str] | None:
    """``[--home H] [--json] hook claude-code EVENT`` (the global options in any order,
    repeated, the last ``--home`` winning; ``--json`` changes nothing for a hook): the
    home (``None``: not given) and the event; ``None`` when ``argv`` is not that command
    line. The one parser of both hook entries: the console script's fast path
    (:func:`waymarks.cli.launchers.hook_fast_path`) and the launcher ``install`` writes
    (:mod:`waymarks.hosts.hook_entry`)."""
    home = None
    index = 0
    while index < len(argv) and (argv[index] in ("--home", "--json")
                                 or argv[index].startswith("--home=")):
        if argv[index].startswith("--home="):  # the form the full CLI takes too
            home = argv[index][len("--home="):]
        elif argv[index] == "--home" and index + 1 < len(argv):
            home = argv[index + 1]
            index += 1
        index += 1
    if argv[index:index + 2] != ["hook", "claude-code"] or len(argv) != index + 3:
        return None
    return home, argv[index + 2]


def _others_home(home: str) -> int | None:
    """The user whose ``home`` (or, not made yet, the nearest folder above it) it is, when
    that is not root's and this process runs as root; else ``None``."""
    if posix.geteuid() != 0:
        return None
    path = home
    while True:
        try:
            owner = posix.stat(path).st_uid
            break
        except OSError:
            parent = path.rstrip("/").rsplit("/", 1)[0] or "/"
            if parent == path:
                return None
            path = parent
    return owner if owner != 0 else None


def run(argv: list[str], home: str, *, owns_process: bool = False) -> int:
    """The hook's entry point (lean): ask the helper, else do it here. ``owns_process``
    (the launcher, the console script's own command line): a hook done here ends the
    process once answered, without the interpreter's teardown of the ~230 modules a
    prompt's hook imports (~20-25 ms of CPU) and with the cyclic collector still off: the
    hook closed what it opened, and :func:`~waymarks.spawn.imports.end_process` runs the
    ``atexit`` functions, flushes the streams, and returns while a thread runs or a stream
    cannot be flushed (the process then exits as usual). A helper's answer, a ``Stop``
    queued and a refusal return as before: their processes import little."""
    if home.startswith("~"):  # expanded already: no such user, or no HOME
        sys.stderr.write(f"waymarks: the home {home}: '~' cannot be expanded (no such user, "
                         "or HOME is not set); nothing recorded. Give an absolute path "
                         "(`waymarks claude-code install` writes one)\n")
        return 1  # not 2: Claude Code would block the prompt or tool call
    if not home.startswith("/"):  # empty or relative: a store in the person's repository
        sys.stderr.write(f"waymarks: the home {home!r} is not an absolute path; nothing "
                         "recorded (a relative home would put a store, prompts included, "
                         "inside each project). Give an absolute --home or WAYMARKS_HOME "
                         "(`waymarks claude-code install` writes one)\n")
        return 1
    theirs = _others_home(home)
    if theirs is not None:
        sys.stderr.write(f"waymarks: the home {home!r} is user {theirs}'s and this hook runs "
                         "as root; nothing recorded (files it made there would be root's, "
                         "and that user's own hooks could open none of them). Run Claude "
                         "Code as that user, or give root a home of its own "
                         "(WAYMARKS_HOME)\n")
        return 1
    if _env("WAYMARKS_EVOLUTION_CHILD"):  # core.evolution_policy.CHILD_ENV
        # this Claude Code is a consolidation call (`claude -p`): its prompt is a sanitized
        # source, not the person's; record nothing, inject nothing
        return 0
    event = argv[0] if argv else ""
    if event in ("Stop", "PostToolUse", "PostToolUseFailure") and _env(SUBAGENT_ENV):
        return 0  # a subagent's turn is never captured (its other events: the helper is
        # told, :data:`SUBAGENT_ENV`)
    started = _now_ms() if event == "UserPromptSubmit" else None  # before the helper's try
    # no standard input at all (`<&-`): no event, as an empty one (logged, nothing done)
    raw = sys.stdin.buffer.read(4 * 1024 * 1024 + 1) if sys.stdin is not None else b""
    project = _env("CLAUDE_PROJECT_DIR")
    if event == "Stop" and len(argv) == 1:
        stopped = _stop(home, raw, project)
        if stopped is not None:
            return stopped
    # switched off: no helper is asked either (one already running answered before)
    helper = _helper_on()
    answer = _ask(home, event, raw, project, started) if helper else None
    if answer is None:  # no helper took the request: nothing was done yet
        from waymarks.spawn.detached import complete_import_path
        from waymarks.spawn.imports import (
            end_process,
            import_msgspec,
            import_pathlib,
            short_lived,
        )

        with short_lived():  # (from the first import on: msgspec's made 20 collections)
            complete_import_path()
            import_msgspec()
            import_pathlib()
            from pathlib import Path

            from waymarks.hosts.claude_code import main as in_process

            # a helper started next recalls by meaning too; this process by words alone
            code: int = in_process(argv, Path(home), raw, project or None, claude_pid(),
                                   started, helper_next=helper)
            if helper:
                _start_helper(home)
            if owns_process:
                # ended with the collector still off: switched on, it collected at the
                # next allocation every object the hook's imports made (~45k objects)
                end_process(code)  # returns only while a thread runs
        return code
    if answer:
        write_answer(answer.encode("utf-8"))
    return 0


def _now_ms() -> int:
    """The time now, epoch milliseconds (``time`` is built in: no file is read)."""
    import time

    return time.time_ns() // 1_000_000


def _helper_on() -> bool:
    """Whether the helper is asked and started: not ``WAYMARKS_CC_HELPER=off``, nor an
    idle time of ``0`` (``WAYMARKS_CC_HELPER_IDLE``; a helper told that would exit at once,
    and each hook would start another)."""
    return not switched_off(_env("WAYMARKS_CC_HELPER")) and \
        seconds(_env("WAYMARKS_CC_HELPER_IDLE"), 1.0) != 0


def _stop(home: str, raw: bytes, project: str) -> int | None:
    """``Stop``: queue a capture request and leave (the analysis runs off this path: the
    helper after it answered, else a detached drainer). ``None``: not handled here (the
    input is not what a ``Stop`` hook sends, or the request could not be queued): the
    in-process path answers, logs and captures as before."""
    config = _config_bytes(home)
    if config is None or b"learn" not in config or b"true" not in config:
        return 0  # learning is off (the exact check, projects included, is the drainer's)
    helper = _helper_on()
    if helper and _ask(home, "Stop", raw, project) is not None:
        return 0  # the helper took it: it answers first, then queues and captures
    from waymarks.spawn.detached import complete_import_path

    complete_import_path()
    found = _stop_input(raw, project)
    if found is None:
        return None
    session, transcript, where = found
    from waymarks.service.capture_spool import write_request

    # no helper: the request is written durably (fsync) before this process leaves
    if not write_request(home, "claude-code", "Stop", session, transcript, where):
        return None
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


def _config_bytes(home: str) -> bytes | None:
    """The start of the home's ``config.toml``; ``None`` when there is none, or it is
    not a regular file: opened without blocking, so a FIFO in its place (which a plain
    open waits on for ever) holds no ``Stop`` hook, and is never read."""
    try:
        fd = posix.open(f"{home}/config.toml", posix.O_RDONLY | posix.O_NONBLOCK)
    except OSError:
        return None
    try:
        if posix.fstat(fd).st_mode & 0o170000 != 0o100000:  # S_ISREG without `stat`
            return None
        chunks = []
        size = 0
        while size < 1 << 20 and (chunk := posix.read(fd, (1 << 20) - size)):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        posix.close(fd)


def _stop_input(raw: bytes, project: str) -> tuple[str, str, str] | None:
    """(session, transcript, project) from a ``Stop`` hook's input, checked as far as a
    request needs (the drainer checks the rest); None when it is not usable."""
    import os

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
    if not isinstance(transcript, str) or not os.path.isabs(transcript) or \
            "\x00" in transcript:  # (no file has that name: it failed the spawn of the
        return None  # detached process, which raised, after it was queued)
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


def _spawn(args: list[str]) -> None:
    """:func:`waymarks.hosts.cc_helper.main` with ``ARGS`` in a detached ``python -I -S``
    (:func:`waymarks.spawn.detached.spawn`: its own session, standard streams on
    /dev/null, the hook's imports for any installation; ``-I``: nothing in the project
    directory, a socket.py or PYTHONPATH, can run in it). If it cannot start (also with
    an argument no process can take: a NUL), the next prompt tries again. Its
    environment is this one's without :data:`SUBAGENT_ENV`: a helper a subagent's hook
    started turned tool observations off for every session it served (the requests say
    whose they are)."""
    import os

    from waymarks.spawn.detached import spawn

    try:
        spawn("waymarks.hosts.cc_helper", args,
              env={k: v for k, v in os.environ.items() if k != SUBAGENT_ENV})
    except ValueError:  # (an embedded NUL; ``spawn`` returns None for an OSError)
        return


def _ask(home: "str | Path", event: str, raw: bytes, project: str = "",
         started: int | None = None) -> str | None:
    """The helper's answer (``""``: nothing to print), or ``None`` if no helper took the
    request (then nothing was done, and the caller may do it itself). ``started``: when
    the hook started (epoch ms), sent along: a prompt recorded since is the hook's."""
    path = socket_path(home)
    try:
        posix.stat(path)
    except OSError:
        return None
    import _socket  # (built in; loaded by connect)

    try:
        client = connect(path, CONNECT_TIMEOUT_S, ANSWER_TIMEOUT_S)
    except OSError:
        return None
    try:
        name = event if event.isascii() and event.isalpha() else "invalid"
        since = f', "started": {started}' if started is not None else ""
        since += ', "subagent": true' if _env(SUBAGENT_ENV) else ""
        since += f', "switches": "{answering(_env)}"'  # (the helper's must be the same)
        header = (f'{{"protocol": "{PROTOCOL}", "installation": "{installation()}", '
                  f'"event": "{name}", "pid": {claude_pid()}{since}}}').encode()
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
        return None  # a helper of another version or installation did nothing: do it here
    if event == "ping":
        return ""  # something answers there
    # closed without an answer: the helper was killed mid-request (or could not read it)
    redo = event in REDO_ON_CLOSE
    _note_closed(home, event, redo)
    return None if redo else ""  # else doing it again could record it twice


def _note_closed(home: "str | Path", event: str, redo: bool) -> None:
    """Log that the helper closed a hook's connection without an answer (never content):
    the prompt lost its context and record in silence."""
    from waymarks.spawn.detached import complete_import_path

    complete_import_path()
    from datetime import UTC, datetime
    from pathlib import Path

    from waymarks.service.logs import log_event

    log_event(Path(home), datetime.now(UTC), "claude_code_helper_closed",
              kind=event if event.isascii() and event.isalpha() else "invalid",
              outcome="done_here" if redo else "not_redone")


def _start_helper(home: str) -> None:
    """Start a helper for the next prompts, detached (:func:`_spawn`; it moves to the
    home itself, so it never runs in the project). Spawned with ``os`` alone:
    ``subprocess`` costs ~40 ms of imports on a loaded machine, on the hook's path."""
    _spawn([home])
