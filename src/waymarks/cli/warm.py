"""The warm start of one-shot commands: ``waymarks recall`` and ``waymarks pins`` run in a
process forked from a warm helper (:mod:`waymarks.cli.warm_server`), with this process's
standard streams, directory, environment and command line.

A one-shot recall is mostly the interpreter's start and its imports (~200 modules: 70-90 ms
of a ~110 ms recall at 10k memories on two quiet cores), the recall itself 15-20 ms. The
helper has imported those modules once; for each command it forks a child that takes this
process's descriptors 0, 1 and 2 (passed over the socket), ``cwd``, ``umask``, environment,
``sys.argv`` and ``sys.path``, then runs :func:`waymarks.cli.main.main` exactly as this
process would have. The child starts from the helper's imports and nothing else: the helper
never opens a database, a file of a home or a thread, so every command still reads the
home afresh, as a new process does (what it does not take: its groups, resource limits,
nice value and CPU affinity, which must be the helper's (:func:`confinement`: a client
with others has a helper of its own); process group and session, which are the helper's;
``TZ`` is read again, NumPy's variables must match, see :mod:`waymarks.cli.warm_server`).
This process waits for the child's exit status, forwards every signal that would have
ended it (:data:`FORWARDED`) to it, and ends with that status (or the signal that ended
the child); if it is killed (``SIGKILL`` is passed on to no one), the helper ends the
child.

Scripts and hosts are who run these per question, output captured: a command whose output
is a terminal runs in its own process as before (a pager needs the terminal's job control).
When no helper answers (none started yet, one of another installation or interpreter
settings, ``WAYMARKS_CLI_HELPER=off``, one that took nothing within
:data:`ACCEPT_TIMEOUT_S`: stopped or hung, its socket then removed so no other command
waits for it), nothing was run: the command runs in this process as before, and
:func:`start` leaves a helper for the next command (it exits after
``WAYMARKS_CLI_HELPER_IDLE`` seconds without a command, 1800 by default; ``0`` switches
the helper off).

What must stay true: this module imports only ``os``, ``sys``, ``posix``, ``_socket``,
``_signal`` and ``zlib`` (all loaded by the entry point already, or built in) before the
helper has taken the command (``tests/cli/test_warm.py`` lists them); a command runs once,
never twice and never not at all: the helper's child runs it only after this process's
go-ahead (``g``, sent once the child's pid is known), this process never runs it after
the go-ahead was delivered, and a child that did not get one ends without running it
(``unrun``: then this process does). The helper listening must be this user's process.
"""

import os
import posix
import sys

from waymarks.spawn.sockets import connect, installation_key
from waymarks.spawn.switches import CLI_HELPER, IDLE_RANGE, seconds, switched_off

#: the commands run warm: one-shot reads a script or a person runs often. Anything else
#: (servers, installers, interactive confirmations) runs in the process as before
COMMANDS = frozenset({"recall", "pins"})
#: global options that take a value (``waymarks [globals] COMMAND``)
GLOBAL_VALUES = ("--home", "--session", "--cwd")
PROTOCOL = b"waymarks-warm-v4"
#: what the helper says once it has taken a connection: only then does the client send its
#: descriptors (sent to a helper that never took them, stopped say, they stayed open in its
#: queue, and whoever read the command's output waited for its end until it resumed)
GREETING = b"w"
CONNECT_TIMEOUT_S = 0.5
#: how long the helper may take to accept the command (fork included); after it has, the
#: command runs as long as it takes
ACCEPT_TIMEOUT_S = 5.0
ENV_OFF = CLI_HELPER
ENV_IDLE = "WAYMARKS_CLI_HELPER_IDLE"
#: how long a helper waits for a command before it exits, unless :data:`ENV_IDLE` says
IDLE_SECONDS = 1800.0
#: the signals a process ends by unless it handles them and that others send (a shell's
#: ``kill``, ``timeout -s``, a job's time limit): each would have ended the command run here
FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM",
              "SIGVTALRM", "SIGPROF", "SIGXCPU", "SIGIO", "SIGPWR")


def routed(argv: list[str], home: str) -> str | None:
    """The helper's socket for this command line, or ``None`` when it runs in this process:
    not one of :data:`COMMANDS` (after the global options), the helper switched off, a home
    that is not an absolute path, output to a terminal (:func:`_terminal`), interpreter
    settings a helper would not share (``-O``, ``-X dev``, ``-W``, ``-I``, ``-S``, ``-E``,
    ``-u``, ``PYTHONHASHSEED``: a helper has its own), or a confinement no helper serves
    (:func:`confinement`)."""
    found = leading(argv)
    if found is None:
        return None
    index, given = found
    home = os.path.expanduser(given) if given is not None else home
    if argv[index:index + 1] == [] or argv[index] not in COMMANDS:
        return None
    if switched_off(os.environ.get(ENV_OFF, "")) or not home.startswith("/") or \
            idle_seconds(os.environ.get(ENV_IDLE, "")) == 0 or _terminal():
        return None
    flags = sys.flags
    if flags.optimize or flags.dev_mode or flags.isolated or flags.no_site or \
            flags.ignore_environment or sys.warnoptions or os.environ.get("PYTHONHASHSEED"):
        return None
    if getattr(sys.stdout, "write_through", False) and not os.environ.get("PYTHONUNBUFFERED"):
        return None  # -u (PYTHONUNBUFFERED is the environment's: the child reads it)
    try:
        confined = confinement()
        if confined is None:
            return None
        return f"{home}/cli/warm-{installation(confined):08x}.sock"
    except OSError:  # no /proc: no helper could tell how this process is confined; or a
        return None  # relative import path where this directory is gone (it was removed)


def idle_seconds(text: str) -> float | None:
    """The seconds of :data:`ENV_IDLE`'s value ``text``: :data:`IDLE_SECONDS` when empty,
    ``0`` the helper switched off, ``inf`` never idle; ``None`` when it is not a number of
    seconds (``30m``: :func:`start` says so and takes the default)."""
    return seconds(text, IDLE_SECONDS)


def leading(argv: list[str]) -> tuple[int, str | None] | None:
    """Where the command starts in ``argv`` (past the global options) and the ``--home``
    given among them; ``None`` at an option that is not a global one. The helper reads a
    request's command line with it too: it runs only :data:`COMMANDS`."""
    index, home = 0, None
    while index < len(argv) and argv[index].startswith("-"):
        if argv[index] in GLOBAL_VALUES and index + 1 < len(argv):
            if argv[index] == "--home":
                home = argv[index + 1]
            index += 2
        elif argv[index] == "--json":
            index += 1
        else:
            return None
    return index, home


def _terminal() -> bool:
    """Whether the output goes to a terminal: a long answer then goes through a pager,
    which needs the terminal's job control (``Ctrl-Z``, window size, keys), and only a
    process of the terminal's own session has that; a child of the helper does not."""
    try:
        return os.isatty(1)
    except OSError:
        return False


def installation(confined: list[str]) -> int:
    """What a helper must share with this process to run its command: the protocol (a
    helper of another release says it otherwise, or not at all), the interpreter, its
    import path (``PYTHONPATH`` included; the directory it runs in too when an entry is
    relative), how it decodes names and writes bytecode (:func:`settings`) and its
    confinement (``confined``: :func:`confinement`). One helper
    per combination, named by this checksum. The console script heads the path with its
    own directory, so one helper serves every directory; ``python -m`` heads it with the
    directory it runs in."""
    import zlib

    paths = sys.path
    if not all(path.startswith("/") for path in paths):  # ("" of `python -c`): resolved
        paths = [os.getcwd(), *paths]                    # where this process runs
    return zlib.crc32(installation_key(PROTOCOL.decode(), settings(), *confined, *paths))


#: a process's namespaces and root, under its /proc folder
_NAMESPACES = ("ns/mnt", "ns/pid", "ns/user", "ns/net", "root")
#: the status lines of what confines a process: its user and groups (supplementary ones
#: too: a file readable by a group the client dropped), seccomp, capabilities and the CPUs
#: it may run on
_CONFINING = ("Uid:", "Gid:", "Groups:", "Seccomp:", "Seccomp_filters:", "NoNewPrivs:",
              "CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:", "Cpus_allowed_list:")


def confinement(process: str = "/proc/self") -> list[str] | None:
    """What confines the process of the /proc folder ``process``: its namespaces and root,
    user and groups (real, effective, saved and supplementary), seccomp (mode and filters),
    capability sets, CPU affinity, resource limits, nice value, cgroup and security label
    (a child of the helper has the helper's groups and limits: a client that dropped a
    group, or lowered a limit, ``ulimit -f`` say, must not have its command run with them
    back). A helper runs
    the command of a process confined as it is only (a process of the same user inside a
    sandbox must not have its command run outside it); part of its socket's name, so a
    process confined otherwise (another cgroup: a terminal's own scope) has a helper of its
    own rather than one that refuses it. ``None`` with no-new-privileges set: the process
    may be under Landlock, which /proc does not show, so no helper runs its command (a
    reviewer read a home its sandbox denied it through a helper confined the same
    otherwise), and it starts none (one it started would have it too, and serve no one).
    ``OSError`` when /proc does not tell."""
    shown = [posix.readlink(f"{process}/{name}") for name in _NAMESPACES]
    with open(f"{process}/status", encoding="utf-8", errors="replace") as lines:
        shown += [line for line in lines if line.startswith(_CONFINING)]
    if "NoNewPrivs:\t1\n" in shown:
        return None
    try:  # (one not shown differs from one shown: a process this cannot read is refused)
        with open(f"{process}/limits", encoding="utf-8", errors="replace") as limits:
            shown.append(f"limits: {limits.read()}")
        with open(f"{process}/stat", "rb") as stat:  # (its name, in parentheses, may hold any)
            shown.append(f"nice: {stat.read().rpartition(b')')[2].split()[16].decode()}")
    except OSError:
        pass
    for name in ("cgroup", "attr/current"):
        try:
            with open(f"{process}/{name}", encoding="utf-8", errors="replace") as extra:
                shown.append(f"{name}: {extra.read()}")
        except OSError:
            pass
    return shown


def bytecode() -> str:
    """How this process writes bytecode: ``1`` not at all (``-B``,
    ``PYTHONDONTWRITEBYTECODE``), else ``0``; then the directory it writes it under
    (``-X pycache_prefix``, ``PYTHONPYCACHEPREFIX``), if any. A helper runs with ``-I``,
    which ignores those variables, and imports ~200 modules at its start: it is started
    with its client's settings (:func:`waymarks.spawn.detached.spawn`) and runs only a
    request with the same (its socket's name, and the request, say them)."""
    prefix = sys.pycache_prefix
    return f"{int(sys.dont_write_bytecode)}{os.path.abspath(prefix) if prefix else ''}"


def settings() -> str:
    """The interpreter settings a helper must share with its client, said in a request:
    the file system encoding and UTF-8 mode (the child decodes the client's directory,
    arguments and environment with the helper's: a helper started with ``-I`` in the C
    locale ran in UTF-8 mode for a client with ``PYTHONUTF8=0`` and
    ``PYTHONCOERCECLOCALE=0``, and listed pins in a directory its client's own process
    refuses as not UTF-8), then :func:`bytecode`. :func:`start` starts a helper in the
    client's UTF-8 mode."""
    return f"{sys.getfilesystemencoding()} {int(sys.flags.utf8_mode)} {bytecode()}"


def run(argv: list[str], path: str) -> tuple[int | None, bool]:
    """Run the command line in a child of the helper listening at ``path``: its exit
    status, and whether a helper should be started for the next command. Status ``None``:
    no helper took it (none listens, it refused, a descriptor of ours is closed), so
    nothing ran and the caller runs it here; a helper is wanted unless one listens and
    refused this command for what it is (its environment, its confinement: every such
    command would start one that exits at once). One that did not take the command within
    :data:`ACCEPT_TIMEOUT_S` is set aside (:func:`_set_aside`) and a new one wanted."""
    try:
        seen = posix.stat(path)
        request = _request(argv)
    except OSError:  # no helper; or this directory is gone (a fresh process fails alike)
        return None, True
    import _socket

    try:
        client = connect(path, CONNECT_TIMEOUT_S, ACCEPT_TIMEOUT_S)
    except OSError:
        return None, True
    try:
        greeted = client.recv(1)
        if greeted != GREETING:  # (closed: it is stopping)
            client.close()
            return None, greeted == b""
        descriptors = b"".join(fd.to_bytes(4, sys.byteorder) for fd in (0, 1, 2))
        message = len(request).to_bytes(8, "big") + request
        sent = client.sendmsg([message], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS,
                                           descriptors)])
        client.sendall(message[sent:])  # (a large environment outgrows the socket's buffer)
        started = _line(client)
        if not started.startswith(b"run "):
            client.close()  # refused; files changed since it started: it is stopping
            return None, started in (b"refused changed", b"")
        child = int(started[4:])
    except TimeoutError:  # it took nothing in ACCEPT_TIMEOUT_S: stopped (SIGSTOP), hung
        client.close()
        _set_aside(path, seen)
        return None, True
    except (OSError, ValueError):
        client.close()  # (a child forked late finds no go-ahead: it runs nothing)
        return None, False
    return _supervise(client, child), False


def _set_aside(path: str, seen: "os.stat_result") -> None:
    """Remove the socket at ``path`` of a helper that took no command within
    :data:`ACCEPT_TIMEOUT_S`, if it is still the one ``seen`` (not one a new helper has
    put there since), so no further command waits for it: the next helper started serves
    in its place (:func:`waymarks.cli.warm_server.serve`). Before, a stopped helper kept
    its lock, so none replaced it, and every command waited 5 s for it."""
    try:
        now = posix.stat(path)
        if (now.st_dev, now.st_ino) == (seen.st_dev, seen.st_ino):
            posix.unlink(path)
    except OSError:
        pass  # gone already (another client set it aside)


def _request(argv: list[str]) -> bytes:
    """What the child needs to be this process: NUL-separated (no argument, variable or
    path holds a NUL), strings in the file system encoding as the OS gave them."""
    umask = posix.umask(0o022)
    posix.umask(umask)
    streams = []
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        if stream is None:
            raise OSError("a standard stream is closed")
        streams += [stream.encoding, stream.errors or "strict"]
    fields = [PROTOCOL, *(_bytes(text) for text in (
        os.getcwd(), str(umask), settings(), *streams, sys.argv[0] if sys.argv else "waymarks",
        str(len(argv)), *argv, str(len(sys.path)), *_paths()))]
    fields += [key + b"=" + value for key, value in os.environb.items()]
    return b"\0".join(fields)


def _bytes(text: str) -> bytes:
    return text.encode(sys.getfilesystemencoding(), "surrogateescape")


def _line(client: "object") -> bytes:
    """One line from the helper (without its newline; ``b""`` at the end)."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = client.recv(1)  # type: ignore[attr-defined]
        if not chunk:
            return data
        data += chunk
    return data[:-1]


def _supervise(client: "object", child: int) -> int | None:
    """Say go to the child (from then on it runs the command, never this process), pass
    on the signals this process does not ignore, and wait for its end: its exit status.
    ``None``: the child ended without running it (it had waited in vain for the go-ahead),
    so the caller runs it here."""
    import _signal  # type: ignore[import-not-found]  # (signal.py imports enum: ~2 ms)

    def forward(signum: int, _frame: object) -> None:
        try:  # noqa: SIM105 - contextlib is not imported on this path
            posix.kill(child, signum)
        except OSError:
            pass  # it has ended already

    previous = {}
    for name in FORWARDED:  # (one ignored, as under nohup, stays ignored: as if run here)
        signum = getattr(_signal, name, None)  # (SIGPWR: Linux only)
        if signum is not None and _signal.getsignal(signum) != _signal.SIG_IGN:
            previous[signum] = _signal.signal(signum, forward)
    try:
        client.sendall(b"g")  # type: ignore[attr-defined]
        client.settimeout(None)  # type: ignore[attr-defined]
        ended = _line(client)
    except OSError:  # (no go-ahead was delivered: nothing ran)
        ended = b"unrun"
    finally:
        client.close()  # type: ignore[attr-defined]
    if ended == b"unrun":
        for signum, handler in previous.items():
            _signal.signal(signum, handler)
        return None
    return _status(ended, child)


def _status(ended: bytes, child: int) -> int:
    """The exit status of a child whose end the helper reported as ``ended``."""
    import _signal

    word, _, number = ended.partition(b" ")
    if word == b"exit" and number.isdigit():
        return int(number)
    if word == b"signal" and number.isdigit():  # end as it ended: a shell sees the same
        signum = int(number)
        sys.stdout.flush()
        if signum not in (_signal.SIGKILL, _signal.SIGSTOP):  # (no handler can be set)
            _signal.signal(signum, _signal.SIG_DFL)
        posix.kill(posix.getpid(), signum)
        return 128 + signum  # a signal that does not end a process (it was ignored)
    _until_gone(child)  # (its output is complete: the caller may read it)
    sys.stderr.write("waymarks: the warm helper stopped before it said how the command ended;"
                     " run it again, or with WAYMARKS_CLI_HELPER=off\n")
    return 1


def _until_gone(child: int) -> None:
    """Wait until ``child`` has ended when its helper can no longer say so (killed, say):
    it may still be writing the command's output. A zombie has ended (its new parent may
    never collect it); a pid that is not ours or not there any more too."""
    import time

    while True:
        try:
            posix.kill(child, 0)
            with open(f"/proc/{child}/stat", "rb") as stat:
                if stat.read().rpartition(b")")[2].split()[:1] == [b"Z"]:
                    return
        except OSError:
            return
        time.sleep(0.02)


def start(path: str) -> None:
    """Leave a helper listening at ``path`` for the next command (detached: its own
    session, standard streams on /dev/null; it exits at once when one runs there already).
    If it cannot start, the next command tries again."""
    from waymarks.spawn.detached import spawn

    home = path.rsplit("/", 2)[0]
    given = os.environ.get(ENV_IDLE, "")
    idle = idle_seconds(given)
    if idle is None:  # (said each time a helper starts: once, as it then serves)
        from waymarks.cli.runner import note

        note(f"{ENV_IDLE}={given!r} is not {IDLE_RANGE}; the warm helper exits after "
             f"{IDLE_SECONDS:g} idle seconds")
        idle = IDLE_SECONDS
    try:
        paths = _paths()
    except OSError:  # this directory is gone (removed while it ran): the command has
        return       # answered, its status stands; no helper could take its import path
    spawn("waymarks.cli.warm_server", [path, repr(idle), *paths], cwd=home,
          options=("-X", f"utf8={int(sys.flags.utf8_mode)}"))


def _paths() -> list[str]:
    """``sys.path``, a relative entry resolved where this process runs (the helper runs in
    the home; ``""`` of ``python -c`` is this directory)."""
    here = os.getcwd()
    return [os.path.join(here, path) for path in sys.path]
