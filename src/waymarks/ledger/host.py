"""A session ledger owned by a host process (Pi): Waymarks reads it, the host writes it.

Pi keeps its session in memory and writes the file itself (lazily: nothing reaches the
disk before the first assistant message), so Waymarks must never append to that file.
Instead the host sends the session's entries as it has them (:meth:`feed`), and an
append is performed *by the host* (``appender``: for Pi, ``pi.appendEntry``), which
returns the entry as it stored it; the ledger then reads that entry like any other.

The host also says which entry is its leaf (:meth:`set_leaf`): after tree navigation the
active branch need not end at the last entry, and it may be empty (Pi's ``resetLeaf``,
``/tree`` to the first user message: the host's leaf is null, its next entry a new root).

What must stay true (the shared ledger contract, ``tests/ledger/test_contract.py``):

- the host appends at its own leaf, so an entry that names another parent (a branch) is
  refused before the host is asked: branching is the host's to do (Pi's ``/tree``);
- readers from :meth:`reopen` read the same host session: they share the bytes the host
  sent, the writers' lock and the host's leaf, so each sees what the others took in.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from waymarks.ledger.branch import EntryIndex
from waymarks.ledger.discovery import read_header
from waymarks.ledger.entries import Message, bodies
from waymarks.ledger.log import Entry, ProgressFn, SessionFileError, SessionLog

HostAppender = Callable[[dict[str, Any]], dict[str, Any]]
#: where a store's projection of a host session stopped: offset, lines, entries, the
#: fingerprint of the bytes before the offset, and its index of the entries before it
Checkpoint = tuple[int, int, int, str, EntryIndex]
_ENCODER = msgspec.json.Encoder()
#: how much of a session file's end :meth:`HostSessionLog.unsaved` reads for the host's
#: newest entry (entries are one line each; a long tool result fits)
_TAIL_BYTES = 1 << 20


@dataclass(slots=True)
class _HostSession:
    """What every reader of one host session shares."""

    #: the session's lines as the host sent them
    buffer: bytearray = field(default_factory=bytearray)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: the host's leaf when it is not the last entry (after tree navigation)
    leaf: str | None = None
    #: the host said its leaf is null: the active branch is empty until its next entry
    reset: bool = False
    #: the host writes the session's file only at some point (Pi: once it holds a reply):
    #: an entry appended before then may never reach it
    saves_later: bool = False
    #: the host's entries were seen to hold a reply (an assistant message)
    replied: bool = False


class HostSessionLog(SessionLog):
    def __init__(self, path: Path, appender: HostAppender | None = None,
                 shared: _HostSession | None = None) -> None:
        super().__init__(path)
        self.appender = appender
        self._shared = shared if shared is not None else _HostSession()
        self.buffer = self._shared.buffer

    @classmethod
    def from_entries(cls, path: Path, header: dict[str, Any], entries: Iterable[dict[str, Any]],
                     appender: HostAppender | None = None) -> HostSessionLog:
        log = cls.sent(path, header, entries, appender)
        log.start()
        return log

    @classmethod
    def sent(cls, path: Path, header: dict[str, Any], entries: Iterable[dict[str, Any]],
             appender: HostAppender | None = None) -> HostSessionLog:
        """The session the host sent, not read yet (:meth:`start`)."""
        log = cls(path, appender)
        log.buffer.extend(_line(header))
        log.buffer.extend(b"".join(_line(e) for e in entries if isinstance(e, dict)))
        return log

    def start(self, checkpoint: Checkpoint | None = None) -> None:
        """Read what the host sent: only what follows ``checkpoint`` (where a store's
        projection of it stopped) when the bytes before it are the ones indexed
        (:meth:`resumes_at`), else all of it; one read already (a damaged database set
        aside as the checkpoint was looked for: :meth:`drop_index`) reads what follows."""
        if self.header is not None or checkpoint is None or not self.resumes_at(*checkpoint):
            self.refresh()
        if self.header is None:
            raise SessionFileError(f"{self.path}: the host sent no session header")

    def resumes_at(self, offset: int, lines: int, entries: int, fingerprint: str,
                   index: EntryIndex) -> bool:
        """Read only what follows a checkpoint (a start costs what changed since the
        last, not the session's length) if the bytes before it are the ones indexed: it
        ends a line, as many lines lie before it, and the fingerprint of the bytes just
        before it is the one kept; else ``False``, nothing read (read it whole)."""
        if not 0 < offset <= len(self.buffer) or self.buffer[offset - 1] != 0x0A \
                or self.buffer.count(b"\n", 0, offset) != lines:
            return False
        return self._open_at(offset, lines, entries, fingerprint, index)

    def feed(self, entries: Iterable[dict[str, Any]], leaf: str | None = None) -> None:
        """Take entries the host has and this ledger has not (known IDs are skipped)."""
        self.refresh()  # another reader of this session may have taken some in already
        for entry in entries:  # (known: also before a checkpoint, without reading there)
            if isinstance(entry, dict) and not self._known(entry.get("id")):
                self.buffer.extend(_line(entry))
        self.refresh()
        if leaf is not None:
            self.set_leaf(leaf)

    def set_leaf(self, leaf: str | None) -> None:
        """The host's leaf: an entry's ID, or ``None`` when the host's leaf is null (an
        empty active branch). An ID this ledger does not hold says nothing: the leaf is
        the last entry's, as for a file."""
        self._shared.reset = leaf is None
        self._shared.leaf = leaf if self._known(leaf) else None

    @property
    def leaf_id(self) -> str | None:
        leaf = self._shared.leaf
        if leaf is not None and self._known(leaf):
            return leaf
        if self._shared.reset:
            return None
        return self.last_id

    @property
    def last_id(self) -> str | None:
        """The last entry's ID (of a reader opened at a checkpoint too, unread)."""
        return super().leaf_id

    def _known(self, entry_id: object) -> bool:
        return isinstance(entry_id, str) and self.has_entry(entry_id)

    def saves_later(self) -> None:
        """The host writes this session's file only once its conversation has a reply
        (:meth:`unsaved`)."""
        self._shared.saves_later = True

    def unsaved(self) -> str | None:
        """Why an entry appended now might never be stored: the host may not write it yet
        (it holds entries in memory until then, and drops them if the session ends
        first); ``None`` when it does, or writes each entry at once.

        Pi 0.73 writes nothing of a session to its file before the session holds an
        assistant message, even to a file that exists (a session Waymarks made, used with
        ``pi --session``; a ``touch``ed file); Pi 1.x writes from the first message, and
        at once to a file that exists. So it is saved once its file exists and either the
        host's entries hold a reply or the file holds the host's newest entry (Pi has
        written what it has: the 0.73 rule alone refused Pi 1.x's saved sessions)."""
        if not self._shared.saves_later or (self.path.exists() and (
                self._replied() or self._newest_written())):
            return None
        return (f"The host has not saved this session yet: Pi writes what is recorded in "
                f"it to its file ({self.path}) only once the conversation has a reply (Pi "
                "0.73: its first assistant message, even when the file exists, as a "
                "session Waymarks made and Pi opened does; Pi 1.x: its first message), and "
                "what is recorded before that is lost if the session ends first. Nothing "
                "was written; send a message and let it answer, then run this again")

    def _newest_written(self) -> bool:
        """Whether the file's end holds the host's newest entry (its ID as Pi writes it)."""
        if self.last_id is None:
            return False
        try:
            with open(self.path, "rb") as file:
                file.seek(max(0, file.seek(0, os.SEEK_END) - _TAIL_BYTES))
                tail = file.read()
        except OSError:
            return False
        return f'"id":"{self.last_id}"'.encode() in tail

    def file_problem(self, offset: int) -> str | None:
        """Why the file the host writes no longer holds this session as the host sent it,
        or ``None``; ``offset``: the bytes of this ledger already projected. The host goes
        on appending to whatever is at its path, so what is recorded meanwhile is lost
        when it ends (the file no longer opens as this session, or lacks the entries its
        new ones follow). Cheap enough for every request: a ``stat`` and the first line;
        the file's start and end only when it is shorter than what was projected.

        - another session's header on its first line (another session's file copied
          over it), whether or not the host saved the session yet;
        - once the host saved it (:meth:`unsaved`): no session header, or fewer bytes
          than were projected and without the session's first or newest entry (cut
          short, or an older copy restored over it). The host never shortens its file:
          Pi rewrites it only whole, and Pi 0.73 writes a session's lines again, so it
          only grows; its JSON is the bytes of this ledger's lines."""
        try:
            info = os.stat(self.path)
        except OSError:  # not written yet (Pi writes once it holds a reply), or gone
            return None
        if not stat.S_ISREG(info.st_mode) or info.st_size == 0:  # (empty: nothing written)
            return None
        header = read_header(self.path)
        if header is not None and header.id != self.session_id:
            return (f"{self.path}: indexed as session {self.session_id}, it now holds "
                    f"session {header.id} (replaced by another session's file)")
        if self.unsaved() is not None:
            return None
        if header is None:
            return (f"{self.path}: it has no session header now (emptied or overwritten "
                    "since Pi saved the session)")
        if info.st_size >= offset or self.last_id is None:
            return None
        missing = self._first_entry_other() or (
            None if self._newest_written() else f"its newest entry {self.last_id}")
        if missing is None:
            return None
        return (f"{self.path}: {info.st_size} bytes, shorter than the {offset} bytes "
                f"projected from it, and without {missing} (the file cut short, or an older "
                "copy restored over it)")

    def _first_entry_other(self) -> str | None:
        """``its first entry ID`` when the file's first entry (past the header lines: Pi
        0.73 writes the header again) is another one, else ``None`` (the same, or not
        within the file's first ``_TAIL_BYTES``)."""
        try:
            with open(self.path, "rb") as file:
                start = file.read(_TAIL_BYTES)
        except OSError:
            return None
        for line in start.split(b"\n")[:-1]:
            try:
                entry = msgspec.json.decode(line)
            except msgspec.DecodeError:
                return None
            if isinstance(entry, dict) and entry.get("type") == "session":
                continue
            found = entry.get("id") if isinstance(entry, dict) else None
            return None if found == self.entries[0].id else f"its first entry {self.entries[0].id}"
        return None

    def _replied(self) -> bool:
        if not self._shared.replied:
            self._shared.replied = any(isinstance(b, Message) and b.role == "assistant"
                                       for b in bodies(self, ("message",)))
        return self._shared.replied

    def append(self, entry: dict[str, Any], new_id: Callable[[], str]) -> Entry:
        """Have the host append ``entry`` (as a child of its leaf) and read it back."""
        if not self._locked:
            raise RuntimeError("append must be called inside locked()")
        if self.appender is None:
            raise SessionFileError(f"{self.path}: this host session cannot be appended to")
        if entry.get("parentId", self.leaf_id) != self.leaf_id:
            raise SessionFileError(f"{self.path}: the host appends only at its leaf; start a "
                                   "branch in the host itself (in Pi: /tree)")
        plain = msgspec.json.decode(_ENCODER.encode(entry))
        written = self.appender(plain)
        entry_id = written.get("id") if isinstance(written, dict) else None
        if not isinstance(entry_id, str):
            raise SessionFileError(f"{self.path}: the host did not return the appended entry")
        if any(written.get(k) != plain.get(k) for k in ("type", "customType", "data")):
            # what the host stored is not what was asked: the caller must not report it
            # as committed (it becomes indeterminate; the projection reads what is there)
            self.feed([written], leaf=entry_id)
            raise SessionFileError(f"{self.path}: the host stored something other than the "
                                   f"entry it was asked to append ({entry_id})")
        self.feed([written], leaf=entry_id)
        read = self._by_id.get(entry_id) or (self.by_id.get(entry_id)
                                             if self._known(entry_id) else None)
        if read is None:
            raise SessionFileError(f"{self.path}: appended entry {entry_id} did not read back")
        return read

    def reopen(self, progress: ProgressFn | None = None) -> HostSessionLog:
        log = HostSessionLog(self.path, self.appender, self._shared)
        log._load(progress)
        return log

    def _size(self) -> int:
        return len(self.buffer)

    def _read_from(self, offset: int, limit: int) -> bytes:
        return bytes(self.buffer[offset:offset + limit])

    def _write_durably(self, data: bytes) -> None:
        raise SessionFileError(f"{self.path}: the host owns this session file")

    @contextmanager
    def _exclusive(self, group_commit: bool = False) -> Iterator[None]:
        with self._shared.lock:
            yield


def _line(entry: dict[str, Any]) -> bytes:
    """One ledger line of what the host sent. Its JSON may have carried half of a
    surrogate pair (JavaScript writes a string cut inside an emoji so), which Python
    reads but msgspec will not encode: the stdlib writes it back as ``JSON.stringify``
    does (compact, other text as it is, the half pair escaped: ``\\ud83d``), so the line
    has the bytes of Pi's file and the checkpoints after it match them (written with
    ASCII escapes and spaces, the line was longer than Pi's, and ``health`` called the
    file rewritten). The one decoder of ledger lines reads it as a file reader does
    (U+FFFD)."""
    try:
        return _ENCODER.encode(entry) + b"\n"
    except UnicodeEncodeError:
        import json  # the rare path

        text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
        return text.encode("utf-8", "backslashreplace") + b"\n"
