"""What a file-system error says to a person: what failed on which file, and how to mend
it when a person can. Imports only ``errno`` and ``os`` (and, for a permission error,
:mod:`.attributes`): the command line's error path uses it without loading the service,
and the service's own ``io_error`` words it the same way."""

from __future__ import annotations

import errno
import os
from typing import Final

#: the fix for the file-system errors a person can mend (a read error names its own file)
_FIXES: Final = {
    errno.EROFS: "remount it read-write, or point --home (WAYMARKS_HOME) at a writable place",
    errno.ENOSPC: "free disk space there, then retry",
    errno.EDQUOT: "free space within your disk quota, then retry",
    errno.EACCES: "check that it is yours and writable (or readable), then retry",
    errno.EPERM: "check that it is yours and writable (or readable), then retry",
    errno.ENOTDIR: "a file is in the way of a folder on that path: move it aside, then "
                   "retry",
    errno.ELOOP: "a symbolic link on that path leads back to itself: remove it or point it "
                 "at a real folder or file (`ls -l` shows where each leads), then retry",
}


def os_error_cause(exc: OSError) -> str:
    """What failed, and on which file (the error's own words); for a permission error, the
    folder on the file's path this user may not enter, when one is the cause (a home at
    mode 000 was named as its ``waymarks.db``, whose own mode was fine)."""
    shut = _shut_folder(exc)
    where = exc.filename or "file"
    return f"{exc.strerror or exc} ({where}" + (
        f"; the folder {shut} cannot be entered by this user)" if shut else ")")


def _shut_folder(exc: OSError) -> str | None:
    """The first folder on the path of ``exc``'s file that this user may not enter."""
    name = exc.filename
    if exc.errno not in (errno.EACCES, errno.EPERM) or not isinstance(name, str) \
            or not os.path.isabs(name):
        return None
    folder = "/"
    for part in os.path.dirname(os.path.normpath(name)).split("/")[1:]:
        folder = os.path.join(folder, part)
        if os.path.isdir(folder) and not os.access(folder, os.X_OK):
            return folder
    return None


def fix_for(exc: OSError) -> str:
    """``. Fix it so`` for an error a person can mend, else ``""``. A permission error on
    a file (or in a folder) marked immutable or append-only names that attribute: the
    mode is not the cause, and a ``chmod`` changes nothing."""
    if exc.errno in (errno.EACCES, errno.EPERM) and isinstance(exc.filename, str):
        from waymarks.files.attributes import attribute_problem

        held = attribute_problem(exc.filename)
        if held is not None:
            return f". {held[0]}; {held[1]}, then retry"
    fix = _FIXES.get(exc.errno or 0)
    return f". {fix[:1].upper()}{fix[1:]}" if fix else ""
