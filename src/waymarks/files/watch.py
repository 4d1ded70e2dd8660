"""Which names in a few folders changed since the last look, without looking at each file.

A long-lived process (a Pi bridge, the MCP server, the inspector) reads a project's session
folders on every request; with thousands of files there, one ``stat`` each was most of a
plan. :class:`FolderWatch` asks Linux (``inotify``) to queue the name of every entry of the
folders that is created, written, truncated, has its times or mode changed, is renamed or
removed, and answers, without blocking, the names queued since the last call. A process
has one inotify instance, whatever it watches (a user has 128, all processes together).

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

import contextlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import ctypes

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


class _Queue:
    """The process's one inotify instance (a user has 128 of them, all processes
    together), shared by every :class:`FolderWatch`: its events go to each watch of the
    folder they name."""

    def __init__(self, libc: ctypes.CDLL, fd: int) -> None:
        self.libc, self.fd, self.pid = libc, fd, os.getpid()
        self.listeners: dict[int, list[tuple[FolderWatch, str]]] = {}  # wd -> (watch, name)
        import struct  # (here, as ctypes)

        self.event = struct.Struct("iIII")  # wd, mask, cookie, len (then len bytes of name)

    def drain(self) -> None:
        """Hand every queued event to the watches of its folder."""
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                self._lose_all()
                return
            offset = 0
            size = self.event.size
            while offset + size <= len(chunk):
                wd, mask, _cookie, length = self.event.unpack_from(chunk, offset)
                name = chunk[offset + size:offset + size + length]
                offset += size + length
                if mask & _IN_Q_OVERFLOW:
                    self._lose_all()
                    continue
                for watch, folder in self.listeners.get(wd, ()):  # (none: a closed watch's)
                    if mask & _LOST or not name:  # (no name: the folder itself changed)
                        watch.lost = True
                    else:
                        watch.pending.setdefault(folder, set()).add(
                            os.fsdecode(name.split(b"\0", 1)[0]))

    def _lose_all(self) -> None:
        for listeners in self.listeners.values():
            for watch, _folder in listeners:
                watch.lost = True


_QUEUE: list[_Queue] = []  # (at most one: this process's)


def _drop_in_child() -> None:
    """A forked child never reads its parent's queue (it would take the parent's events):
    it lets go of its copy of the descriptor, which kept the instance, and the events its
    watches queue, for as long as the child ran. It starts its own on first use."""
    for queue in _QUEUE:
        with contextlib.suppress(OSError):
            os.close(queue.fd)
    _QUEUE.clear()


os.register_at_fork(after_in_child=_drop_in_child)


def _queue() -> _Queue | None:
    """This process's queue, started on first use (``None``: inotify cannot be had)."""
    if _QUEUE and _QUEUE[0].pid == os.getpid():
        return _QUEUE[0]
    _QUEUE.clear()  # (a forked child's copy of its parent's: dropped at the fork)
    import ctypes  # (here: a one-shot command never watches, and this costs 2 ms to load)

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
    except (OSError, AttributeError):
        return None
    if fd < 0:
        return None
    _QUEUE.append(_Queue(libc, fd))
    return _QUEUE[0]


class FolderWatch:
    """The names changed in some folders since the last :meth:`changed` (see the module
    docstring). Belongs to the process that started it: after a ``fork`` it answers
    ``None`` in the child, which starts its own."""

    def __init__(self, queue: _Queue) -> None:
        self._queue = queue
        self._wds: list[int] = []
        self.pending: dict[str, set[str]] = {}  # folder -> names, handed by the queue
        self.lost = False

    @classmethod
    def start(cls, folders: Sequence[str]) -> FolderWatch | None:
        """A watch of ``folders`` (each an existing folder on a local file system), or
        ``None`` where one cannot be trusted or had."""
        if not sys.platform.startswith("linux") or not folders:
            return None
        try:
            if not all(file_system(folder) in LOCAL_FILE_SYSTEMS for folder in folders):
                return None
        except OSError:
            return None
        queue = _queue()
        if queue is None:
            return None
        queue.drain()  # what happened before it started is not its to tell
        watch = cls(queue)
        for folder in folders:
            wd = queue.libc.inotify_add_watch(queue.fd, os.fsencode(folder), _WATCHED)
            if wd < 0:  # gone meanwhile, or the user's watches are all taken
                watch.close()
                return None
            watch._wds.append(wd)  # one folder named twice (a link): one wd, two names
            queue.listeners.setdefault(wd, []).append((watch, folder))
        return watch

    def changed(self) -> dict[str, set[str]] | None:
        """Folder -> the names changed in it since the last call (none: nothing), or
        ``None``: events may have been lost; look at everything and start a new watch."""
        if self._queue.pid != os.getpid() or not self._wds:
            return None
        self._queue.drain()
        if self.lost:
            return None
        names, self.pending = self.pending, {}
        return names

    def close(self) -> None:
        """Stop watching (in the process that started it; a child only forgets it)."""
        queue, wds, self._wds = self._queue, self._wds, []
        if queue.pid != os.getpid():
            return
        for wd in dict.fromkeys(wds):
            listeners = [kept for kept in queue.listeners.get(wd, ()) if kept[0] is not self]
            if listeners:
                queue.listeners[wd] = listeners
            else:  # no other watch of that folder: the kernel's goes too
                queue.listeners.pop(wd, None)
                queue.libc.inotify_rm_watch(queue.fd, wd)


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
