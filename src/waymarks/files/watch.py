"""Which names in a few folders changed since the last look, without looking at each file.

A long-lived process (a Pi bridge, the MCP server, the inspector) reads a project's session
folders on every request; with thousands of files there, one ``stat`` each was most of a
plan. :class:`FolderWatch` asks Linux (``inotify``) to queue the name of every entry of the
folders that is created, written, truncated, has its times or mode changed, is renamed or
removed, and answers, without blocking, the names queued since the last call.

What must stay true: a change made by any process before :meth:`FolderWatch.changed` is
called is in its answer, or the answer is ``None`` ("look at everything again"). So the
watch is only started where the kernel sees every write: a folder on a local file system
(:data:`LOCAL_FILE_SYSTEMS`; a network or shared-folder mount, written by another machine,
gets no event here), and the caller keeps to regular files with one link (a write through
another name of the file, or a link's target, is told to that name's folder, not this one).
A lost event (the queue overflowed), a folder removed, moved, unmounted or changed itself
(its mode: what can be listed), or any error reading the queue answers ``None``.
Elsewhere (not Linux, no ``inotify``, its limits reached) :meth:`FolderWatch.start`
returns ``None`` and the caller looks at every file.
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
from collections.abc import Sequence
from typing import Final

#: file systems whose every write, by any process, reaches this kernel's inotify
LOCAL_FILE_SYSTEMS: Final = frozenset({"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs",
                                       "f2fs", "ramfs", "overlay", "zfs"})

_IN_MODIFY, _IN_ATTRIB, _IN_CLOSE_WRITE = 0x2, 0x4, 0x8
_IN_MOVED_FROM, _IN_MOVED_TO, _IN_CREATE, _IN_DELETE = 0x40, 0x80, 0x100, 0x200
_IN_DELETE_SELF, _IN_MOVE_SELF, _IN_UNMOUNT, _IN_Q_OVERFLOW = 0x400, 0x800, 0x2000, 0x4000
_IN_IGNORED, _IN_ONLYDIR = 0x8000, 0x01000000
_IN_NONBLOCK, _IN_CLOEXEC = os.O_NONBLOCK, os.O_CLOEXEC
_WATCHED: Final = (_IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO
                   | _IN_CREATE | _IN_DELETE | _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_ONLYDIR)
#: the folder itself went away, or events were lost: nothing the queue says can be trusted
_LOST: Final = _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_UNMOUNT | _IN_Q_OVERFLOW | _IN_IGNORED
_EVENT: Final = struct.Struct("iIII")  # wd, mask, cookie, len (then len bytes of name)


class FolderWatch:
    """The names changed in some folders since the last :meth:`changed` (see the module
    docstring). Belongs to the process that started it: after a ``fork`` it answers
    ``None`` in the child, which starts its own."""

    def __init__(self, fd: int, folders: dict[int, list[str]]) -> None:
        self._fd = fd
        self._folders = folders  # watch descriptor -> the folder's names (a link: two)
        self._pid = os.getpid()

    @classmethod
    def start(cls, folders: Sequence[str]) -> FolderWatch | None:
        """A watch of ``folders`` (each an existing folder on a local file system), or
        ``None`` where one cannot be trusted or had."""
        if not sys.platform.startswith("linux") or not folders:
            return None
        try:
            if not all(file_system(folder) in LOCAL_FILE_SYSTEMS for folder in folders):
                return None
            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        except (OSError, AttributeError):
            return None
        if fd < 0:
            return None
        watched: dict[int, list[str]] = {}
        for folder in folders:
            wd = libc.inotify_add_watch(fd, os.fsencode(folder), _WATCHED)
            if wd < 0:  # gone meanwhile, or the user's watches are all taken
                os.close(fd)
                return None
            watched.setdefault(wd, []).append(folder)  # one folder named twice: one wd
        return cls(fd, watched)

    def changed(self) -> dict[str, set[str]] | None:
        """Folder -> the names changed in it since the last call (none: nothing), or
        ``None``: events may have been lost; look at everything and start a new watch."""
        if self._fd < 0 or os.getpid() != self._pid:
            return None
        names: dict[str, set[str]] = {}
        while True:
            try:
                chunk = os.read(self._fd, 65536)
            except BlockingIOError:
                return names
            except OSError:
                return None
            offset = 0
            while offset + _EVENT.size <= len(chunk):
                wd, mask, _cookie, length = _EVENT.unpack_from(chunk, offset)
                name = chunk[offset + _EVENT.size:offset + _EVENT.size + length]
                offset += _EVENT.size + length
                folders = self._folders.get(wd)
                if mask & _LOST or folders is None or not name:
                    return None  # (no name: the folder itself changed, its mode perhaps)
                for folder in folders:
                    names.setdefault(folder, set()).add(
                        os.fsdecode(name.split(b"\0", 1)[0]))

    def close(self) -> None:
        """Stop watching (in the process that started it; a child only forgets it)."""
        if self._fd >= 0 and os.getpid() == self._pid:
            os.close(self._fd)
        self._fd = -1


def file_system(folder: str) -> str | None:
    """The type of the file system ``folder`` is on (``/proc/self/mountinfo``), or
    ``None`` when it cannot be told."""
    found = os.stat(folder).st_dev
    device = f"{os.major(found)}:{os.minor(found)}"
    kinds = set()
    with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as mounts:
        for line in mounts:
            fields = line.split(" - ", 1)
            before = fields[0].split()
            if len(fields) == 2 and len(before) > 2 and before[2] == device:
                kinds.add(fields[1].split()[0])
    return kinds.pop() if len(kinds) == 1 else None
