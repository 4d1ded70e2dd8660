"""The child a warm helper forks for one command (:mod:`waymarks.cli.warm_server`): it
becomes the client's process (its standard streams, directory, umask, environment, import
path and command line: :func:`become`), runs the command once the client says go, and ends
as the interpreter ends a process, never returning to the helper's loop.

What must stay true: nothing here runs in the helper itself but :func:`parse` (the helper
reads a request before it forks, to refuse one it would not run); everything else runs
after ``fork``, so it may change the process's state as a new process's would be.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
from typing import Any, NamedTuple

from waymarks.cli.warm import FORWARDED

#: how long a child waits for its client's go-ahead (:func:`run_child`): without it, the
#: command is the client's to run, and the child ends without running it
GO_SECONDS = 10.0


class Request(NamedTuple):
    """A client's request (:func:`waymarks.cli.warm._request`), read once."""

    cwd: bytes
    umask: int
    #: how the client decodes names and writes bytecode (:func:`waymarks.cli.warm.settings`)
    settings: bytes
    #: standard input's, output's and error's encoding and error handler, in turn
    encodings: list[str]
    #: the client's ``sys.argv``
    argv: list[bytes]
    paths: list[bytes]
    environ: dict[bytes, bytes]


def parse(fields: list[bytes]) -> Request:
    """The request of ``fields`` (the protocol's name left out); ``ValueError`` or
    ``IndexError`` when they are not one."""
    count = int(fields[10])
    paths = int(fields[11 + count])
    environ = {}
    for field in fields[12 + count + paths:]:
        key, _, value = field.partition(b"=")
        environ[key] = value
    return Request(fields[0], int(fields[1]), fields[2], [os.fsdecode(f) for f in fields[3:9]],
                   fields[9:10] + fields[11:11 + count], fields[12 + count:12 + count + paths],
                   environ)


def run_child(client: socket.socket, request: Request, descriptors: list[int],
           mask: set[int | signal.Signals]) -> None:
    """Become the client's process and run its command line once the client says go
    (``g``): without it (the client gave up waiting, or went), send ``unrun`` and end,
    having run nothing. Never returns."""
    signal.set_wakeup_fd(-1)
    # every signal the client passes on acts as in a process of its own, whatever the
    # helper inherited from the client that started it (a background job's ignored QUIT)
    for name in ("SIGCHLD", *FORWARDED):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    for target, fd in enumerate(descriptors):
        os.dup2(fd, target)
    # the helper's own: its socket, lock, wake-up pair and other clients' connections
    # (a child holding the lock would keep a new helper from starting)
    kept = client.fileno()
    os.closerange(3, kept)
    os.closerange(kept + 1, 1 << 16)
    if not _go(client):
        with contextlib.suppress(OSError):
            client.sendall(b"unrun\n")
        os._exit(0)
    client.close()
    status, signum = 1, 0
    try:
        become(request)
        from waymarks.cli.main import main

        status = main(warm=False)
    except SystemExit as exc:
        status = exit_status(exc.code)
    except KeyboardInterrupt:  # as the interpreter ends then: the traceback, then SIGINT
        _uncaught()
        signum = signal.SIGINT
    except BaseException:  # noqa: BLE001 - as the interpreter reports an uncaught error
        _uncaught()
    _finish(status, signum)


def _go(client: socket.socket) -> bool:
    """Whether the client said go. ``Ctrl-C`` forwarded before it was read ends this
    child as it would have ended the command."""
    try:
        client.settimeout(GO_SECONDS)
        return client.recv(1) == b"g"
    except OSError:
        return False
    except KeyboardInterrupt:  # (the command's Ctrl-C: it ends as the command would)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        return False


def _uncaught() -> None:
    import traceback

    with contextlib.suppress(BaseException):  # (a reader of standard error that left)
        traceback.print_exc()


def become(request: Request) -> None:
    """This process's directory, umask, streams, arguments, import path and environment
    from the client's request (with what importing :mod:`waymarks.semantic` sets)."""
    sys.path[:] = [os.fsdecode(path) for path in request.paths]
    os.chdir(request.cwd)
    os.umask(request.umask)
    os.environb.clear()
    os.environb.update(request.environ)
    from waymarks import semantic  # (imported by the preload: nothing is loaded here)

    semantic.one_blas_thread()
    import time

    time.tzset()  # the client's TZ (the C library read the helper's)
    sys.argv = [os.fsdecode(arg) for arg in request.argv]
    encodings = request.encodings
    unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))  # (-u itself runs cold)
    sys.stdin = _stream(0, "r", encodings[0], encodings[1])
    sys.stdout = _stream(1, "w", encodings[2], encodings[3], unbuffered)
    sys.stderr = _stream(2, "w", encodings[4], encodings[5], unbuffered)


def _stream(fd: int, mode: str, encoding: str, errors: str,
            unbuffered: bool = False) -> Any:
    """A standard stream over ``fd`` as the interpreter opens one: line-buffered on a
    terminal (standard error always); with ``PYTHONUNBUFFERED``, each write goes straight
    to the descriptor."""
    interactive = os.isatty(fd)
    if unbuffered:
        import io

        return io.TextIOWrapper(io.FileIO(fd, mode, closefd=False), encoding=encoding,
                                errors=errors, line_buffering=interactive or fd == 2,
                                write_through=True)
    return open(fd, mode, buffering=1 if interactive or fd == 2 else -1, encoding=encoding,
                errors=errors, closefd=False)


def exit_status(code: object) -> int:
    """The status ``sys.exit(code)`` gives a process."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _finish(status: int, signum: int = 0) -> None:
    """End the child as the interpreter ends a process (threads joined, ``atexit`` run,
    streams flushed), without the helper's teardown; by ``signum`` if given (the
    interpreter ends so after an uncaught ``KeyboardInterrupt``)."""
    try:
        threading = sys.modules.get("threading")
        if threading is not None:
            threading._shutdown()  # what the interpreter's end does first
        import atexit

        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    except BaseException:  # noqa: BLE001 - a reader that left: the status stands
        pass
    if signum:
        signal.signal(signum, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
        os.kill(os.getpid(), signum)
    os._exit(status)
