"""The Unix socket a warm helper listens on, reached by any path however long.

Both warm helpers (Claude Code's hooks: :mod:`waymarks.hosts.cc_helper`; one-shot
commands: :mod:`waymarks.cli.warm_server`) listen on a socket in the home, and their
clients run on the paths that must stay lean: this module imports only ``posix`` and
``sys`` (the client's ``_socket`` too, built in; the helpers' :func:`listen` what it needs).
No ``from __future__``.
"""

import posix
import sys

TYPE_CHECKING = False  # not typing's: imported on the hook's path
if TYPE_CHECKING:
    from typing import Any

#: a Unix socket address holds at most 107 bytes (Linux; 103 on macOS): a longer path is
#: reached from its directory by its short name
SHORT_ADDRESS = 100


def at_socket(path: str, use: "Any") -> None:
    """``use(address)`` (connect or bind) for the socket at ``path``, however long it is.

    A home deep in the file system (a long user name, a test's temporary directory) puts
    the socket past the address limit: ``bind`` and ``connect`` then fail, and every
    command would quietly run without the helper. On Linux the address goes through a
    handle on the socket's directory (``/proc/self/fd/N/name``), so the process's working
    directory is never touched: a threaded server (the MCP server, the inspector) asking
    a helper's status must not move its other threads' relative paths. Elsewhere the
    socket's short name is used from its directory, the working directory restored after,
    even if it was removed."""
    if len(path.encode(sys.getfilesystemencoding(), "surrogateescape")) <= SHORT_ADDRESS:
        use(path)
        return
    directory, _, name = path.rpartition("/")
    if _through_handle(directory or "/", name, use):
        return
    here = posix.open(".", posix.O_RDONLY)
    try:
        posix.chdir(directory or "/")
        use(name)
    finally:
        posix.fchdir(here)
        posix.close(here)


def _through_handle(directory: str, name: str, use: "Any") -> bool:
    """``use`` the socket ``name`` in ``directory`` by way of a handle on the directory;
    ``False`` where there is no ``/proc/self/fd`` to do it by (macOS, a container without
    ``/proc``), or the short address would still be too long (an overlong ``name``)."""
    o_path = getattr(posix, "O_PATH", 0)
    if not o_path or not posix.access("/proc/self/fd", posix.F_OK):
        return False
    handle = posix.open(directory, o_path | posix.O_DIRECTORY)
    try:
        address = f"/proc/self/fd/{handle}/{name}"
        if len(address.encode(sys.getfilesystemencoding(), "surrogateescape")) > SHORT_ADDRESS:
            return False
        use(address)
        return True
    finally:
        posix.close(handle)


def installation_key(*parts: str) -> bytes:
    """What names an installation to a warm helper: this interpreter and ``parts``, what
    else a helper must share with its client to answer it (the CLI's: interpreter
    settings, confinement and import path, :func:`waymarks.cli.warm.installation`; Claude
    Code's: where its client module is, :func:`waymarks.hosts.cc_client.installation`).
    Both helpers answer only a request of their own installation: another's runs other
    code (another release, another copy of the dependencies). The interpreter is its
    directory and its file, both resolved (:func:`resolved`): a venv's ``python`` and
    ``python3`` are one installation (hooks installed by each, in two scopes, made each
    other's helper exit on every prompt); two venvs of one Python are two."""
    where = sys.executable.rpartition("/")[0]
    return "\0".join([resolved(where), resolved(sys.executable), *parts]).encode(
        "utf-8", "surrogateescape")


def resolved(path: str) -> str:
    """``path`` absolute, with every symbolic link in it followed (``os.path.realpath``
    without ``os``: this module is on the hook's lean path). What does not exist is kept
    as written; a link loop gives ``path`` back."""
    if not path.startswith("/"):
        path = f"{posix.getcwd()}/{path}" if path else path
    pending = [p for p in reversed(path.split("/")) if p not in ("", ".")]
    done, hops = "", 0
    while pending:
        name = pending.pop()
        if name == "..":
            done = done.rpartition("/")[0]
            continue
        candidate = f"{done}/{name}"
        try:
            is_link = posix.lstat(candidate).st_mode & 0o170000 == 0o120000  # S_ISLNK
        except OSError:
            return "/".join([candidate, *reversed(pending)])
        if not is_link:
            done = candidate
            continue
        hops += 1
        if hops > 40:
            return path
        target = posix.readlink(candidate)
        if target.startswith("/"):
            done = ""
        pending += [p for p in reversed(target.split("/")) if p not in ("", ".")]
    return done or "/"


def connect(path: str, connect_timeout: float, timeout: float) -> "Any":
    """A client socket connected to the helper at ``path`` (``_socket``, the built-in
    module: ``socket`` imports enum, selectors and array, ~1 ms of CPU quiet and tens of
    ms on a loaded machine, on every prompt), ``timeout`` set for what follows. Raises
    ``OSError`` when no helper listens there."""
    import _socket

    client = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        client.settimeout(connect_timeout)
        at_socket(path, client.connect)
        client.settimeout(timeout)
        _check_owner(client)
    except OSError:
        client.close()
        raise
    return client


#: what ``status`` and ``health`` send a Claude Code helper (:func:`probe`): compared whole
#: before the request's protocol, installation or switches (a request of another one
#: ends that helper, and status asks every helper of the home), and not counted as use
#: (its idle time runs on). Its answer: :data:`PROBE_ANSWER`
PROBE = b'{"probe": true}\n\n'
PROBE_ANSWER = b"alive\n"


def probe(path: str, timeout: float) -> "bool | None":
    """Whether the helper listening at ``path`` answers :data:`PROBE` within ``timeout``
    seconds; ``False``: one took the connection but said nothing in time (stopped with
    ``kill -STOP``, or stuck: the kernel takes connections for it all the same), ``None``:
    none listens there (a socket left by one that ended, or another user's)."""
    import _socket

    try:
        client = connect(path, timeout, timeout)
    except OSError:
        return None
    try:
        client.sendall(PROBE)
        client.shutdown(_socket.SHUT_WR)
        client.recv(len(PROBE_ANSWER))  # (a helper of an earlier release answers
        return True  # "protocol", or closes: it answers all the same)
    except OSError:  # (the timeout's too)
        return False
    finally:
        client.close()


def _check_owner(client: "Any") -> None:
    """Raise ``PermissionError`` unless the process listening is this user's: a home in
    a directory others may write (``WAYMARKS_HOME=/tmp/...``) must not let another user
    bind the socket first and receive what the client sends (its environment, its
    standard streams, a prompt)."""
    import _socket

    option = getattr(_socket, "SO_PEERCRED", None)
    if option is None:  # (not Linux: no peer credentials here; the helper checks ours)
        return
    credentials = client.getsockopt(_socket.SOL_SOCKET, option, 12)
    if int.from_bytes(credentials[4:8], sys.byteorder) != posix.getuid():
        raise PermissionError("the warm helper's socket is another user's")


def listen(path: str) -> "Any":
    """A server socket at ``path`` that only this user may reach (mode 0600), in place of
    whatever a helper that died left there (the helpers' side: not lean).

    It is bound under a name of its own and renamed to ``path`` once it listens: a socket's
    path is there from ``bind``, but a client connecting before ``listen`` is refused, and a
    hook refused in that window ran the whole request in its own process (the slow path)."""
    import contextlib
    import os
    import socket

    fresh = f"{path}.{os.getpid()}.new"
    if os.path.lexists(fresh):
        os.unlink(fresh)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        old_umask = os.umask(0o177)
        try:
            at_socket(fresh, server.bind)
        finally:
            os.umask(old_umask)
        server.listen(16)
        os.replace(fresh, path)  # in place of a dead helper's socket, in one step
    except BaseException:
        server.close()
        with contextlib.suppress(OSError):
            os.unlink(fresh)
        raise
    return server
