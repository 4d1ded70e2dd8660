"""Directories for Waymarks' own state (the home and what it holds) are private.

``Path.mkdir(parents=True, mode=0o700)`` applies the mode to the last directory only: the
parents it makes get the umask's (0755 under the usual 022). A home made as the parent
of its first file (``session new`` making ``<home>/sessions/…``, a personal entry in
``<home>/memory``) was therefore readable by everyone, though a home Waymarks creates is
documented as 0700 (XDG asks the same of a data directory it has to create).
"""

from __future__ import annotations

import os


def make_private_dirs(path: str | os.PathLike[str]) -> None:
    """Make ``path`` a directory, creating it and every missing parent ``0700``; existing
    directories keep their mode. ``OSError`` as ``mkdir`` raises it (``FileExistsError``
    when something other than a directory is in the way)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        return
    parent = os.path.dirname(path.rstrip(os.sep)) or os.curdir
    if parent != path:
        make_private_dirs(parent)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        if not os.path.isdir(path):  # a file, or a dangling link: not a directory
            raise
