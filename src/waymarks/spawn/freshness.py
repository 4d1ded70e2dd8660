"""Whether a long-lived helper still runs the code on disk.

A helper (the CLI's, Claude Code's) imports Waymarks once and serves for as long as it is
used. An upgrade, or a ``git pull`` of an editable install, changes the files under it;
from then on it must not answer (its egress and redaction may be the ones a fix
replaced). Each imported module's file is remembered by size and modification time; a
file that changed, or went, means the helper stops and the next one starts on the new
code. Modules imported later (a helper imports lazily) are added as they appear.
"""

import os
import sys

#: module file -> (size, modification time in ns)
Stamps = dict[str, tuple[int, int]]


def module_files(into: "Stamps | None" = None) -> Stamps:
    """The size and modification time of each imported module's file (``into``: add
    the modules imported since it was taken, and return it)."""
    found = {} if into is None else into
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if isinstance(name, str) and name not in found:
            try:
                stat = os.stat(name)
            except OSError:
                continue
            found[name] = (stat.st_size, stat.st_mtime_ns)
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
