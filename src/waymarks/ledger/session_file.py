"""Session ledgers stored as files: the Pi layout, ``flock`` for writers, ``fsync`` for durability.

A running Pi process keeps its session in memory and does not lock the file, so Waymarks
appends to a Pi session file directly only when no Pi process owns it; its own writers
exclude each other with an exclusive ``flock`` on the file. A new file appears under its
``.jsonl`` name only once its header is whole and durable (:func:`create_atomically`).
"""

from __future__ import annotations

import _thread
import errno
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from waymarks.core.model import MutationRecord
from waymarks.ledger.flock_wait import flock_within
from waymarks.ledger.flush_later import defer
from waymarks.ledger.log import (
    SESSION_VERSION,
    Anomaly,
    Entry,
    EntryIndex,
    ProgressFn,
    SessionFileError,
    SessionHeader,
    SessionLog,
    header_line,
)

__all__ = ["SESSION_VERSION", "Anomaly", "Entry", "SessionBusy", "SessionFile",
           "SessionFileError", "SessionHeader", "create_atomically", "no_session_file",
           "not_a_file"]


def not_a_file(path: Path) -> str | None:
    """What ``path`` is, if neither a regular file (through a link too) nor gone: a
    symbolic link whose target is missing, a directory, a FIFO, ... (never opened: a
    FIFO would wait for a writer). ``None`` too when it cannot be told here: reading it
    then says why."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "a symbolic link whose target is missing" if os.path.islink(path) else None
    except OSError as exc:  # (a link that loops was "no such session file", though there)
        return "a symbolic link that loops" if exc.errno == errno.ELOOP else None
    if stat.S_ISREG(mode):
        return None
    return ("a directory" if stat.S_ISDIR(mode) else "a FIFO (named pipe)"
            if stat.S_ISFIFO(mode) else "not a regular file")


def no_session_file(path: Path) -> SessionFileError:
    """Why ``path``, not a regular file, cannot be opened as a session: what it is, if
    anything (a FIFO read as missing sent a person looking for a file that is there)."""
    what = not_a_file(path)
    return SessionFileError(f"{path}: {what}, not a session file" if what is not None
                            else f"{path}: no such session file")


class SessionFile(SessionLog):
    """A session ledger in a file."""

    _fd: int | None = None
    _held: tuple[int, int] | None = None  # (thread, descriptor) inside reads_held
    _held_fp: tuple[int, str] | None = None  # (offset, fingerprint) read inside it
    _deferred: bool = False  # group commit: the lock's holder flushes after releasing it
    _dirty: bool = False

    @classmethod
    def open(cls, path: Path, progress: ProgressFn | None = None) -> SessionFile:
        """Read an existing session file; refuse one whose first line is not a header.

        ``progress(bytes_read, total)`` is called now and then while a large file loads.
        """
        if not path.is_file():
            raise no_session_file(path)
        session = cls(path)
        session._load(progress)
        return session

    @classmethod
    def unread(cls, path: Path) -> SessionFile:
        """A reader of ``path`` that has read nothing: for :meth:`fingerprint` of bytes a
        checkpoint vouches for, without reading the ledger."""
        return cls(path)

    @classmethod
    def open_at(cls, path: Path, offset: int, lines: int, entries: int, fingerprint: str,
                index: EntryIndex) -> SessionFile | None:
        """The active session read from a checkpoint the projection vouches for: the
        header, a fingerprint of the bytes before the checkpoint, then only what follows
        (a start costs what changed, not the ledger's length). ``None`` when the file is
        not what was indexed: open it whole instead."""
        if not path.is_file():
            raise no_session_file(path)
        session = cls(path)
        return session if session._open_at(offset, lines, entries, fingerprint,
                                           index) else None

    @classmethod
    def resume(cls, path: Path, offset: int, lines: int, entries: int) -> SessionFile:
        """A reader of ``path`` that reads its header and then only what follows the
        checkpoint (see :meth:`SessionLog._resume`)."""
        if not path.is_file():
            raise no_session_file(path)
        session = cls(path)
        session._resume(offset, lines, entries)
        return session

    @classmethod
    def create(cls, path: Path, session_id: str, timestamp: str, cwd: str) -> SessionFile:
        """Create a new file holding only the header, atomically and durably: ``path``
        either does not exist or holds the whole header (see :func:`create_atomically`).
        Raises ``FileExistsError`` if ``path`` exists (a concurrent creator won)."""
        create_atomically(path, header_line(session_id, timestamp, cwd))
        return cls.open(path)

    def reopen(self, progress: ProgressFn | None = None) -> SessionFile:
        return SessionFile.open(self.path, progress)

    def _size(self) -> int:
        return os.path.getsize(self.path)

    def _read_from(self, offset: int, limit: int) -> bytes:
        held = self._held
        if held is not None and held[0] == _thread.get_ident():
            return _read_at(held[1], offset, limit)
        with open(self.path, "rb") as handle:
            handle.seek(offset)
            return handle.read(limit)

    def fingerprint(self, offset: int) -> str:
        """Inside :meth:`reads_held`, the bytes before ``offset`` read and hashed once: a
        request's refresh asks whether the file still holds what was indexed and whether
        this reader's own bytes were written again, both at the checkpoint's offset when
        nothing was appended (read twice a plan, hashed twice)."""
        held = self._held
        if held is None or held[0] != _thread.get_ident():
            return super().fingerprint(offset)
        known = self._held_fp
        if known is None or known[0] != offset:
            known = self._held_fp = (offset, super().fingerprint(offset))
        return known[1]

    @contextmanager
    def reads_held(self) -> Iterator[None]:
        """The file opened once for this thread's reads inside it (positioned reads: no
        other reader's offset moves). A file replaced meanwhile is the next request's to
        notice, as one replaced right after a read was; one that cannot be opened is
        opened by each read, which says why."""
        if self._held is not None:
            yield
            return
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
        except OSError:
            yield
            return
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # (a FIFO put there: read as before)
                os.close(fd)
                fd = -1
                yield
                return
            self._held = (_thread.get_ident(), fd)
            yield
        finally:
            self._held = self._held_fp = None
            if fd >= 0:
                os.close(fd)

    @contextmanager
    def _exclusive(self, group_commit: bool = False) -> Iterator[None]:
        import fcntl  # (an extension module: a write's, not a read's)

        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        try:
            if not flock_within(fd, self.lock_wait_s):
                raise SessionBusy(errno.EWOULDBLOCK, "another process has held the session "
                                  f"file for {self.lock_wait_s:g} s (a writer stopped with "
                                  "Ctrl-Z, or hung): let it finish or stop it, then retry",
                                  str(self.path))
            self._fd, self._deferred, self._dirty = fd, group_commit, False
            yield
        finally:
            self._fd = None
            try:
                # even when the body failed: its lines may be reported. Put off inside
                # flush_later.flushes_deferred (a warm helper's answer goes out first)
                if self._dirty and not defer(self.path):
                    fcntl.flock(fd, fcntl.LOCK_UN)  # the next writer appends meanwhile
                    with _naming(self.path):
                        os.fsync(fd)  # the whole file: every line before ours too
            finally:
                self._deferred = self._dirty = False
                os.close(fd)  # closing releases the lock

    def _write_durably(self, data: bytes) -> None:
        assert self._fd is not None, "write outside the lock"
        with _naming(self.path):
            _write_all(self._fd, data)
            if self._deferred:
                self._dirty = True
            elif not defer(self.path):  # (else flushed once a warm helper has answered)
                os.fsync(self._fd)


class _Rereading(SessionFile):
    """A reader that hands each mutation record on as it reads it and keeps none (the
    entries, which duplicate IDs are told by, stay)."""

    visit: Callable[[MutationRecord], None]

    def _consume(self, data: bytes) -> int:
        count = super()._consume(data)
        for record in self.records:
            self.visit(record)
        self.records.clear()
        return count


def reread_records(path: Path, visit: Callable[[MutationRecord], None]) -> None:
    """Read a session file again from its start, handing each mutation record to
    ``visit`` as it is read rather than keeping them all (``health``'s whole check of a
    large ledger: kept, 100k records took 140 MB)."""
    reader = _Rereading(path)
    reader.visit = visit
    reader._load(None)


def _read_at(fd: int, offset: int, limit: int) -> bytes:
    """Up to ``limit`` bytes of ``fd`` from ``offset`` (fewer only at its end), as a
    file object's ``read`` gives them."""
    parts = []
    while limit > 0:
        part = os.pread(fd, min(limit, 1 << 30), offset)
        if not part:
            break
        parts.append(part)
        offset += len(part)
        limit -= len(part)
    return b"".join(parts)


class SessionBusy(TimeoutError):
    """Another writer held the session file's lock past :attr:`SessionLog.lock_wait_s`
    (an environment problem: reported like any I/O error, nothing acknowledged)."""


def create_atomically(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Create ``path`` holding exactly ``data``, or fail leaving no ``path``.

    A kill or a full disk while a session file is created must not leave an empty or
    half-written ``.jsonl`` that then counts as the newest session. So the bytes go to a
    temporary name in the same directory (hidden, not ``*.jsonl``: no picker lists it),
    are fsynced, and the file is then *linked* to ``path``: ``link`` fails if ``path``
    exists, so a concurrent creator is never replaced (``rename`` would replace it). The
    directory is fsynced last, so the name is durable before the caller writes to it.
    """
    directory = path.parent
    directory.mkdir(parents=True, exist_ok=True)
    import secrets  # only when a session is created: not on every start

    temp = directory / f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)  # less the umask
    try:
        try:
            with _naming(path):  # a full disk said "No space left on device (file)"
                _write_all(fd, data)
                os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temp, path)
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
                raise  # FileExistsError among them: someone else created it first
            _create_directly(path, data, mode)  # a file system without hard links
    finally:
        with suppress(FileNotFoundError):
            os.unlink(temp)
    _fsync_dir(directory)


def _create_directly(path: Path, data: bytes, mode: int) -> None:
    """Exclusive create and write in place, for file systems without hard links; a crash
    here can leave a short file, which pickers skip (no complete header line)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, mode)
    try:
        with _naming(path):
            _write_all(fd, data)
            os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def _naming(path: Path) -> Iterator[None]:
    """An error on a descriptor names no file (a full disk said "(file)"): name ``path``."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
