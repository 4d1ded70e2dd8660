"""The session files of a project's session folders, with the stamp (size, mtime, ctime) of
each, as every read of :mod:`waymarks.service.sources` needs them: a read costs what
changed, not one ``stat`` per file of the folders.

A process lists a set of folders in full the first time (one ``scandir`` and one ``stat``
a file: all a one-shot command ever does). From its second listing of the same folders it
starts a :class:`~waymarks.files.watch.FolderWatch` *before* listing them in full again,
and from then on a listing looks only at the names the watch says were created, written,
touched, renamed or removed since (one ``stat`` each) and at each folder's own identity.

What must stay true: the answer is what a full listing made now would find. So a listing
is made in full again whenever the watch cannot vouch for it: it lost events, a folder
was removed, replaced (another device or inode at its path) or created, the watch could
not be had (not Linux, a network file system, inotify's limits), or a file is one the
watch does not see every write of (a symbolic link, whose target lives elsewhere, or a
file with more than one link, writable through a name in another folder). Such a set of
folders is listed in full on every read, as before. A name that is not text (bytes that
are not UTF-8) is no session file's here, listed in full or told by the watch. One case
is beyond any watch of a folder: a link made, after the file was last looked at, in
another folder, and a write through it; neither is told here (Linux tells a link to no
folder), so it is seen at the next write through the file's own name, or a full listing
(a new process, a lost watch).
"""

from __future__ import annotations

import _thread
import os
import stat
from collections.abc import Mapping, Sequence
from typing import Final, NamedTuple

from waymarks.files.watch import FolderWatch
from waymarks.ledger.discovery import text_name

Candidate = tuple[str, int, int, int]  # (path, size, mtime_ns, ctime_ns) of a session file


class Listed(NamedTuple):
    """What one read found in the folders."""

    newest: list[Candidate]  #: the newest files, as asked
    found: Mapping[str, Candidate]  #: every session file there, by path (see still_there)
SUFFIX: Final = ".jsonl"
_KEPT: Final = 8  # sets of folders one process keeps watched (their listings, kernel watches)


class _Listing:
    """What a full listing found, kept current by a watch."""

    def __init__(self, folders: tuple[str, ...], watch: FolderWatch,
                 identities: tuple[tuple[int, int] | None, ...]) -> None:
        self.folders = folders
        self.watch = watch
        self.identities = identities
        self.found: dict[str, Candidate] = {}
        #: (path left out, limit) -> the newest files: kept until a file it counts changes
        self.newest: dict[tuple[str | None, int], list[Candidate]] = {}


#: folders -> their listing kept by a watch (this process's; a forked child's watch
#: answers that it lost track, and the child starts its own)
_WATCHED: dict[tuple[str, ...], _Listing] = {}
#: (process, folders) listed in full once: the next listing starts a watch
_LISTED_ONCE: set[tuple[int, tuple[str, ...]]] = set()
#: folders no watch could vouch for at their last try -> full listings since
_UNWATCHED: dict[tuple[str, ...], int] = {}
RETRY: Final = 64
#: one thread at a time drains a watch and changes these (``_thread``: ``threading`` is
#: not loaded by a command otherwise, and every command reads sources)
_TURN = _thread.allocate_lock()


def _forget_in_child() -> None:
    """A forked child starts afresh: its parent's watches are the parent's (their queue
    shared), and the turn may have been held by a thread the child does not have."""
    global _TURN
    _TURN = _thread.allocate_lock()
    _WATCHED.clear()


os.register_at_fork(after_in_child=_forget_in_child)


def newest_sessions(folders: Sequence[str], leave_out: str | None, limit: int, *,
                    watch: bool = True) -> Listed:
    """The ``limit`` most recently modified regular ``*.jsonl`` files directly in
    ``folders`` (a symbolic link followed), but ``leave_out``, newest first (the same
    time: by path), with their stamps (see the module docstring). ``watch=False``: a
    listing that starts no watch and does not count as one (a write's, under the session
    lock: the watch is started by a listing outside it, and a one-shot write, which lists
    twice, starts none)."""
    with _TURN:
        return _newest_sessions(tuple(folders), leave_out, limit, watch)


def _newest_sessions(key: tuple[str, ...], leave_out: str | None, limit: int,
                     watch: bool = True) -> Listed:
    kept = _WATCHED.pop(key, None)
    if kept is not None:
        if _still_true(kept):
            _WATCHED[key] = kept
            newest = kept.newest.get((leave_out, limit))
            if newest is None:
                if len(kept.newest) >= 8:
                    kept.newest.clear()
                newest = kept.newest[(leave_out, limit)] = _newest(kept.found, leave_out, limit)
            return Listed(list(newest), kept.found)  # (a list: the caller's to keep)
        kept.watch.close()
    found: dict[str, Candidate] = {}
    if watch:
        found = _listed_in_full(key)
    else:
        _list(key, found)
    return Listed(_newest(found, leave_out, limit), found)


def still_there(listed: Listed, paths: Sequence[str]) -> set[str]:
    """Which of ``paths`` name something now: a session file the read's own listing
    holds (``listed``, just made or brought up to date) needs no look; any other path,
    one ``stat`` (with 2,000 sessions indexed over the months and the newest 100 listed,
    every read looked at the other 1,900)."""
    found = listed.found
    return {path for path in paths if path in found or os.path.exists(path)}


def _newest(found: dict[str, Candidate], leave_out: str | None, limit: int
            ) -> list[Candidate]:
    return sorted((c for c in found.values() if c[0] != leave_out),
                  key=lambda c: (-c[2], c[0]))[:limit]


def _listed_in_full(key: tuple[str, ...]) -> dict[str, Candidate]:
    """A full listing of ``key``, which starts a watch to keep it when it should."""
    found: dict[str, Candidate] = {}
    if not _watch_now(key):
        _list(key, found)
        return found
    identities = tuple(_identity(folder) for folder in key)
    watch = FolderWatch.start([f for f, i in zip(key, identities, strict=True) if i])
    watchable = _list(key, found)  # after the watch starts: a change meanwhile is told
    if watch is None or not watchable:
        if watch is not None:
            watch.close()
        _UNWATCHED[key] = 0  # tried again after RETRY listings in full
        return found
    _UNWATCHED.pop(key, None)
    while len(_WATCHED) >= _KEPT:  # the least recently read first (each read puts its own last)
        dropped = next(iter(_WATCHED))
        _WATCHED.pop(dropped).watch.close()
        # listed in full until tried again: more sets than kept, read in turn, each took a
        # watch back from the next to be read, and every read cost a listing and a watch
        _UNWATCHED[dropped] = 0
    listing = _WATCHED[key] = _Listing(key, watch, identities)
    listing.found = found
    return found


def _watch_now(key: tuple[str, ...]) -> bool:
    """Whether this full listing of ``key`` starts a watch: from the second in a process
    (a one-shot command lists once, and takes none of the user's inotify instances), and
    where one could not be had or used, or :data:`_KEPT` took it for another set, once in
    :data:`RETRY` listings."""
    if len(_UNWATCHED) >= 1024:
        _UNWATCHED.clear()
    if (os.getpid(), key) not in _LISTED_ONCE:
        if len(_LISTED_ONCE) >= 1024:
            _LISTED_ONCE.clear()
        _LISTED_ONCE.add((os.getpid(), key))
        return False
    tried = _UNWATCHED.get(key)
    if tried is None:
        return True
    _UNWATCHED[key] = tried + 1
    return tried + 1 >= RETRY


def _still_true(listing: _Listing) -> bool:
    """Bring ``listing`` up to date from its watch; ``False``: list the folders in full."""
    changed = listing.watch.changed()  # first: a change made after it is told next time
    if changed is None:
        return False
    if tuple(_identity(folder) for folder in listing.folders) != listing.identities:
        return False
    for folder, names in changed.items():
        for name in names:
            if not _session_name(name):
                continue
            path = os.path.join(folder, name)
            was = listing.found.get(path)
            if not _restat(listing.found, path):
                return False
            if listing.found.get(path) != was:  # only what counted it is sorted again
                listing.newest = {kept: newest for kept, newest in listing.newest.items()
                                  if kept[0] == path}
    return True


def _restat(found: dict[str, Candidate], path: str) -> bool:
    """Look at one changed name again; ``False``: it is a file the watch cannot vouch for."""
    try:
        info = os.lstat(path)
    except OSError:  # removed or renamed away (a folder made unreadable: a full listing
        found.pop(path, None)  # finds nothing there either)
        return True
    if stat.S_ISLNK(info.st_mode) or (stat.S_ISREG(info.st_mode) and info.st_nlink > 1):
        return False
    if stat.S_ISREG(info.st_mode):
        found[path] = (path, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    else:
        found.pop(path, None)
    return True


def _list(folders: tuple[str, ...], found: dict[str, Candidate]) -> bool:
    """Fill ``found`` from a full listing; returns whether a watch can keep it current."""
    watchable = True
    for folder in folders:
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if not _session_name(entry.name):
                        continue
                    try:
                        info = entry.stat()
                        regular = entry.is_file()
                        linked = entry.is_symlink()
                    except OSError:
                        continue
                    if regular:
                        watchable = watchable and not linked and info.st_nlink == 1
                        found.setdefault(entry.path, (entry.path, info.st_size,
                                                      info.st_mtime_ns, info.st_ctime_ns))
        except OSError:  # no such folder (yet), or unreadable: nothing to find there
            continue
    return watchable


def _session_name(name: str) -> bool:
    """Whether ``name`` may be a session file's: ``*.jsonl``, and text
    (:func:`~waymarks.ledger.discovery.text_name`: the sources table keeps paths as text)."""
    return name.endswith(SUFFIX) and text_name(name)


def _identity(folder: str) -> tuple[int, int] | None:
    """(device, inode) of the folder at ``folder`` now; ``None``: there is none."""
    try:
        info = os.stat(folder)
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode) else None
