"""Whether a long-lived helper still runs the code on disk.

A helper (the CLI's, Claude Code's) imports Waymarks once and serves for as long as it is
used. An upgrade, or a ``git pull`` of an editable install, changes the files under it;
from then on it must not answer (its egress and redaction may be the ones a fix
replaced). Each imported module's file is remembered by size and modification time; a
file that changed, or went, means the helper stops and the next one starts on the new
code. Modules imported later (a helper imports lazily: the planner on its first prompt)
are added as they appear, and one whose file was modified after the helper started
counts as changed at once: it was remembered after its import, so the size and time
taken then may already be the new code's while the helper runs the old (before, such a
module was remembered at its new stamp and never counted as changed: after a ``git
pull``, the Claude Code helper planned every prompt with the old planner until idle).
A file stamped in the future (clock skew: a file server's clock ahead, a VM's clock set
back) is no sign of a change: its stamp is remembered and compared later like any other
(before, every helper quit on its first request, and each prompt started a new one).
"""

import os
import sys
import time

#: module file -> (size, modification time in ns)
Stamps = dict[str, tuple[int, int]]
#: the stamp of a file modified after the helper started: never a file's own
CHANGED = (-1, -1)
#: how long before :attr:`LoadedCode.started` a file's modification still counts as after
#: it: the modules imported as the process started came before that time was taken, and
#: the time a file system records may trail the write (a clock tick; whole seconds on
#: some). A helper started within this of an upgrade is replaced once, by a fresh one.
#: Also how far past the time now a stamp may be and still be a write just made (a file
#: server's clock a little ahead); one further on is remembered as the file's stamp
SLACK_NS = 2_000_000_000


def module_files(into: "Stamps | None" = None, started_ns: int | None = None) -> Stamps:
    """The size and modification time of each imported module's file (``into``: add
    the modules imported since it was taken, and return it). ``started_ns`` (epoch ns):
    a file modified since then (less :data:`SLACK_NS`), and not in the future (more
    than :data:`SLACK_NS` from now), is added as :data:`CHANGED`."""
    found = {} if into is None else into
    now = time.time_ns()
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if isinstance(name, str) and name not in found:
            try:
                stat = os.stat(name)
            except OSError:
                continue
            found[name] = (stat.st_size, stat.st_mtime_ns)
            if started_ns is not None and \
                    started_ns - SLACK_NS <= stat.st_mtime_ns <= now + SLACK_NS:
                found[name] = CHANGED
    return found


def changed(files: Stamps) -> bool:
    """Whether any of ``files`` changed or went since it was taken."""
    for name, known in files.items():
        try:
            stat = os.stat(name)
        except OSError:
            return True
        if (stat.st_size, stat.st_mtime_ns) != known:
            return True
    return False


class LoadedCode:
    """The code a helper runs, from when it started: what both helpers ask before each
    request (:meth:`changed`)."""

    def __init__(self) -> None:
        self.started_ns = time.time_ns()
        self.files = module_files(started_ns=self.started_ns)

    def changed(self) -> bool:
        """Whether a module this process imported (since it started: those imported
        since the last call are added first) has a file that changed or went after the
        helper started."""
        self.note()
        return changed(self.files)

    def note(self) -> None:
        """Remember the modules imported since the last look, while their files are there
        (after a preload: one whose file went before the first request was never
        remembered, so never counted as gone)."""
        module_files(self.files, self.started_ns)
