"""Directories for Waymarks' own state (the home and what it holds) are private.

``Path.mkdir(parents=True, mode=0o700)`` applies the mode to the last directory only: the
parents it makes get the umask's (0755 under the usual 022). A home made as the parent
of its first file (``session new`` making ``<home>/sessions/…``, a personal entry in
``<home>/memory``) was therefore readable by everyone, though a home Waymarks creates is
documented as 0700 (XDG asks the same of a data directory it has to create).
"""

from __future__ import annotations

import errno
import os


def make_private_dirs(path: str | os.PathLike[str]) -> None:
    """Make ``path`` a directory, creating it and every missing parent ``0700``; existing
    directories keep their mode. ``OSError`` as ``mkdir`` raises it, but
    ``NotADirectoryError`` naming it when something other than a directory is in the way
    (``mkdir``'s "File exists" sent the person looking for a file to remove, and callers
    that take ``FileExistsError`` for a concurrent creator's win read it so)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        return
    parent = os.path.dirname(path.rstrip(os.sep)) or os.curdir
    if parent != path:
        make_private_dirs(parent)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError as exc:
        if not os.path.isdir(path):  # a file, or a dangling link: not a directory
            raise NotADirectoryError(errno.ENOTDIR, "not a folder (something else is at "
                                     "its name)", path) from exc



def open_directory(path: str | os.PathLike[str]) -> int | None:
    """A descriptor holding the directory at ``path`` (``None``: none is there), for
    :func:`still_at`: while it is held, the directory's inode is not reused, even when
    the directory is deleted (a directory made at the same path after an ``rm -rf``
    got the same inode number, and compared by ``(device, inode)`` alone it was taken
    for the one deleted)."""
    try:
        return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None


def still_at(held: int, path: str | os.PathLike[str]) -> bool:
    """Whether the directory ``held`` (:func:`open_directory`) is still the one at
    ``path``: not deleted, not replaced by another. A detached worker asks before it
    writes into its home, so that it never creates again, or writes into, a home deleted
    or replaced under it."""
    try:
        kept, found = os.fstat(held), os.stat(path)
    except (OSError, ValueError):
        return False
    return kept.st_nlink > 0 and (kept.st_dev, kept.st_ino) == (found.st_dev, found.st_ino)
