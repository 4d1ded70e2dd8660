"""Pi v3 session ledgers: tolerant reading and safe appending, independent of storage.

A session is JSON Lines: a header ``{"type":"session","version":3,"id",
"timestamp","cwd"}`` then entries ``{"type","id","parentId","timestamp",...}`` that form a
tree. The leaf is the last entry in file order; the active branch is the path from the
leaf to the root. :class:`SessionLog` holds everything about reading and appending;
subclasses supply only the bytes: a file (:class:`~waymarks.ledger.session_file.SessionFile`)
or memory (:class:`~waymarks.ledger.memory.MemorySessionLog`, for tests and hosts that
keep their own file).

Invariants:
- nothing already written is ever rewritten; an append only adds one whole line;
- a line that is not a valid entry (bad JSON, invalid UTF-8, wrong field types, a
  duplicate ID) is skipped and counted, never fatal; an unterminated last line is left
  unread until it is completed (a live writer) or ended by our next write (a crash);
- an append holds the ledger's exclusive lock, re-reads what other writers appended,
  links the new entry to the true leaf, and returns only once the line is durable.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Set
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

import msgspec

from waymarks.core.codec import (
    DecodedPayload,
    MalformedPayload,
    UnknownPayload,
    checked_payload,
    decode_payload,
    iso_to_ms,
)
from waymarks.core.digests import blake2b
from waymarks.core.model import (
    CUSTOM_TYPE_FAMILY_PREFIX,
    MutationRecord,
)
from waymarks.ledger.branch import Branch, Grown, grown_from, walk_to_root
from waymarks.ledger.branch import EntryIndex as EntryIndex
from waymarks.ledger.entries import BLANK_LINE, EntryLine, decode_entry
from waymarks.ledger.header import SESSION_VERSION as SESSION_VERSION
from waymarks.ledger.header import SessionHeader as SessionHeader
from waymarks.ledger.header import first_line, header_at
from waymarks.ledger.header import header_line as header_line
from waymarks.ledger.header import parse_header as parse_header
from waymarks.ledger.identity import canonical_project_path
from waymarks.ledger.log_values import FAST_PATHS
from waymarks.ledger.log_values import Anomaly as Anomaly
from waymarks.ledger.log_values import Entry as Entry
from waymarks.ledger.log_values import SessionFileError as SessionFileError

MAX_ID_ATTEMPTS: Final = 100
PROGRESS_EVERY_LINES: Final = 50_000
BULK_BYTES: Final = 1 << 20  # reads larger than this pause the cyclic GC
FINGERPRINT_BYTES: Final = 256
READ_CHUNK: Final = 16 << 20  # large ledgers are read in pieces, not all at once
ProgressFn = Callable[[int, int], None]


_DECODER: Final = decode_entry  # the one decoder of ledger lines (``ledger.entries``)
_ENCODER: Final = msgspec.json.Encoder()


class SessionLog(ABC):
    """A session ledger read up to its last complete line; subclasses provide the bytes.

    A reader opened at a checkpoint (:meth:`_open_at`) holds only the entries after it and
    asks the store's :class:`EntryIndex` about the ones before; anything that needs them
    all (``entries``, ``by_id``, ``branch_ids``) reads the whole ledger first, once."""

    lock_wait_s: float = 30.0  #: how long a writer waits for the lock, then gives up

    def __init__(self, path: Path) -> None:
        self.path = path
        self.header: SessionHeader | None = None
        self._entries: list[Entry] = []
        self._by_id: dict[str, Entry] = {}
        self._index: EntryIndex | None = None  # the entries before a checkpoint
        self.records: list[MutationRecord] = []
        self.anomalies: list[Anomaly] = []
        self.offset = 0
        self.lines = 0
        self.partial_tail = 0
        #: this reader's offset and the fingerprint of the bytes before it, as it read them
        self._read_fp: tuple[int, str] | None = None
        self._branch_cache: tuple[str | None, Grown] = (None, Grown())
        self._resumed_branch: Branch | None = None  # the same, for a reader at a checkpoint
        self._project = ""  # canonical project identity of the header's cwd
        self._compactions: list[str] = []  # IDs of compaction entries, in file order
        self._progress: ProgressFn | None = None
        self._progress_total = 0
        self._locked = False
        self._entry_base = 0  # entries before the first one read (a reader resumed mid-file)
        self.header_bytes = b""  # the header line as read, to notice it being replaced
        #: the message lines the last bounded read of the conversation decoded, by their
        #: bytes (:func:`waymarks.ledger.entries.recent_messages`: read again next time)
        self.messages_read: dict[bytes, object] = {}

    # -- storage, supplied by subclasses ---------------------------------------------

    @abstractmethod
    def _read_from(self, offset: int, limit: int) -> bytes:
        """Up to ``limit`` bytes from ``offset`` (fewer only at the current end)."""

    @abstractmethod
    def _size(self) -> int:
        """How many bytes the ledger holds now (for progress reports)."""

    def reads_held(self) -> contextlib.AbstractContextManager[None]:
        """Inside it, this thread's reads of the ledger may share one open of its storage
        (a request's refresh reads its header, the fingerprint before its offset and what
        follows: a file opened each time, four times a plan). Here: nothing to hold."""
        return contextlib.nullcontext()

    @abstractmethod
    def _write_durably(self, data: bytes) -> None:
        """Append ``data`` (call holding the lock); it is durable when this returns, or,
        under a group-commit lock, when the lock's context ends."""

    @abstractmethod
    def _exclusive(self, group_commit: bool = False) -> contextlib.AbstractContextManager[None]:
        """Exclude every other writer, in this process and others (``group_commit``: see
        :meth:`locked`)."""

    @abstractmethod
    def reopen(self, progress: ProgressFn | None = None) -> SessionLog:
        """A fresh reader of the same ledger, read from the start."""

    def fingerprint(self, offset: int) -> str:
        """A hash of the bytes just before ``offset``: if a checkpoint's fingerprint no
        longer matches, the file was replaced or rewritten and must be read again."""
        start = max(0, offset - FINGERPRINT_BYTES)
        return _digest(self._read_from(start, offset - start))

    def fingerprint_as_read(self, offset: int) -> str:
        """:meth:`fingerprint` of the bytes this reader read before ``offset`` when its
        last read ended there (what it indexed, not read again: a write made ~10 reads of
        the file under its lock, 7 of them fingerprints), else of the bytes on disk now."""
        seen = self._read_fp
        return seen[1] if seen is not None and seen[0] == offset else self.fingerprint(offset)

    def tail_bytes(self, limit: int, skip: int = 0) -> bytes:
        """The last ``limit`` bytes of complete lines read so far, less the last ``skip``
        of them (a reader going further back reads only the bytes it has not)."""
        start = max(0, self.offset - limit)
        end = max(start, self.offset - skip)
        return self._read_from(start, end - start)

    def bytes_between(self, start: int, end: int) -> bytes:
        """The bytes from ``start`` to ``end`` as they are on disk now (offsets a
        checkpoint vouches for: this reader need not have read them)."""
        return self._read_from(start, max(0, end - start))

    def read_all(self) -> bytes:
        """Every byte of the ledger as it is now (for readers of entry bodies)."""
        return self._read_from(0, self._size())

    def read_header_line(self) -> bytes | None:
        """The first line of the ledger as it is on disk now (``None``: no complete line)."""
        return first_line(self._read_from)

    def _resume(self, offset: int, lines: int, entries: int,
                fingerprint: str | None = None) -> None:
        """Read the header, then only what lies past a checkpoint (``offset`` bytes,
        ``lines`` lines, ``entries`` entries): appended lines without re-reading the file.

        Entries before the checkpoint are not known to this reader, so it cannot see a
        duplicate of one of their IDs, nor walk a branch through them; it is for indexing
        another session's mutations, whose order (entry index) it keeps exact."""
        header = self.read_header_line()
        if header is not None:
            self.lines = 1
            self._read_line(header)
        if self.header is None:
            raise SessionFileError(f"{self.path}: first line is not a Pi session header")
        self.anomalies.clear()  # line 1 is the header: nothing before the checkpoint counts
        self.offset, self.lines, self._entry_base = offset, lines, entries
        # as if read (see rewritten_under): the bytes there are the ones just checked
        self._read_fp = (offset, fingerprint or self.fingerprint(offset))
        self._read_on()

    def _open_at(self, offset: int, lines: int, entries: int, fingerprint: str,
                 index: EntryIndex) -> bool:
        """Read the header and what follows a checkpoint the store vouches for; the
        entries before it are the ``index``'s. ``False`` (nothing kept) when the bytes
        before the checkpoint are not the ones indexed: read the whole ledger instead."""
        if entries <= 0 or self.fingerprint(offset) != fingerprint:
            return False
        self._index = index
        self._resume(offset, lines, entries, fingerprint)
        return True

    def file_problem(self, offset: int) -> str | None:
        """Why the file another program writes for this ledger no longer holds it, the
        first ``offset`` bytes having been projected (a host's ledger: see
        :meth:`.host.HostSessionLog.file_problem`); ``None`` for one whose file it is."""
        return None

    def drop_index(self) -> None:
        """Read the whole ledger again from its start, keeping this object (requests and
        snapshots hold it): the store's index of the entries before the checkpoint is
        gone (its database was set aside), or the bytes before this reader's offset
        changed (a line written again otherwise: the offset no longer starts a line)."""
        self._materialize(again=True)

    def _materialize(self, *, again: bool = False) -> None:
        """Read the whole ledger once (a reader opened at a checkpoint was asked for
        something only the whole ledger answers), or ``again``."""
        if self._index is None and not again:
            return
        header = self.header_bytes
        self._index = None
        self.header, self._entries, self._by_id = None, [], {}
        self.records, self.anomalies, self._compactions = [], [], []
        self.offset = self.lines = self._entry_base = 0
        self._branch_cache = (None, Grown())
        self._resumed_branch = None
        self.refresh()
        if header and self.header_bytes != header:  # (a reader not read yet has none)
            raise SessionFileError(f"{self.path}: the session header changed while reading")

    def _load(self, progress: ProgressFn | None) -> None:
        self._progress = progress
        try:
            self.refresh()
        finally:
            self._progress = None
        if self.header is None:
            raise SessionFileError(f"{self.path}: first line is not a Pi session header "
                                   '({"type":"session","id":...}); pass a session file or '
                                   "create one with `waymarks session new`")

    # -- reading --------------------------------------------------------------------

    @property
    def entries(self) -> list[Entry]:
        """Every entry in file order (reads the whole ledger if not read yet)."""
        self._materialize()
        return self._entries

    @property
    def by_id(self) -> dict[str, Entry]:
        """Every entry by ID (reads the whole ledger if not read yet)."""
        self._materialize()
        return self._by_id

    @property
    def compactions(self) -> list[str]:
        """IDs of compaction entries, in file order."""
        before = self._index.compactions() if self._index is not None else []
        return [*before, *self._compactions]

    def entries_from(self, index: int) -> list[Entry]:
        """The entries read whose index is ``index`` or later (a reader opened at a
        checkpoint holds only those after it: asking for earlier ones gives those it
        has, whose first index says where they start)."""
        return self._entries[max(0, index - self._entry_base):]

    def read_since(self, index: int) -> None:
        """Hold the records from entry ``index`` on, reading the whole ledger again if
        this reader began after it (the projection's checkpoint went back: a rebuild
        that read the ledger before writes that committed while it waited for its turn):
        the records in between were otherwise never projected again."""
        if index < self._entry_base:
            self.drop_index()

    def has_entry(self, entry_id: str) -> bool:
        """Whether the ledger holds an entry with this ID (without reading it all)."""
        return entry_id in self._by_id or (
            self._index is not None and self._index.contains(entry_id))

    @property
    def session_id(self) -> str:
        if self.header is None:
            raise SessionFileError(f"{self.path}: no session header")
        return self.header.id

    @property
    def entry_count(self) -> int:
        """Entries in the ledger up to the last line read (also for a resumed reader)."""
        return self._entry_base + len(self._entries)

    @property
    def project(self) -> str:
        """The canonical project identity of the header's ``cwd``."""
        return self._project

    @property
    def leaf_id(self) -> str | None:
        if self._entries:
            return self._entries[-1].id
        return self._index.last() if self._index is not None else None

    def branch_set(self) -> Set[str]:
        """IDs on the active branch, cached: appends along the branch extend a copy of it
        (:class:`~waymarks.ledger.branch.Grown`: about log n IDs copied, not n). A reader
        opened at a checkpoint answers membership without reading the ledger."""
        if self._index is not None:
            previous = self._resumed_branch
            if previous is not None and previous.leaf == self.leaf_id:
                return previous
            self._resumed_branch = Branch(self, previous)
            return self._resumed_branch
        leaf = self.leaf_id
        cached_leaf, cached = self._branch_cache
        if leaf == cached_leaf:
            return cached
        grown = grown_from(self._by_id, cached_leaf, cached, leaf)
        branch = grown if grown is not None else Grown().union(self.branch_ids())
        self._branch_cache = (leaf, branch)
        return branch

    def branch_ids(self, leaf_id: str | None = None) -> list[str]:
        """Entry IDs from the root to ``leaf_id`` (default: the leaf), root first
        (:func:`~waymarks.ledger.branch.walk_to_root`)."""
        return walk_to_root(self.by_id, leaf_id if leaf_id is not None else self.leaf_id)

    def refresh(self) -> int:
        """Read lines appended since the last read; returns how many complete lines were read.
        A reader whose bytes were written again otherwise under it (same header) reads the
        whole ledger again: from its old offset, a later entry was skipped and lost."""
        if self.rewritten_under() and self.read_header_line() == self.header_bytes:
            self._materialize(again=True)
            return self.lines
        return self._read_on()

    def _read_on(self) -> int:
        self._progress_total = self._size() if self._progress is not None else 0
        start = self.offset
        first = self._read_from(start, READ_CHUNK)
        # a large read pauses the cyclic GC for the whole of it, not chunk by chunk: between
        # chunks a full collection would rescan every entry read so far
        if len(first) < BULK_BYTES:  # (a recall: the few lines appended since)
            count = self._consume_all(first)
        else:
            from waymarks.core.bulk import gc_paused
            with gc_paused():
                count = self._consume_all(first)
        if count:  # of the bytes just read when they hold it (not read again, nor
            # taken from bytes written over them meanwhile: the next check notices those)
            begin = max(0, self.offset - FINGERPRINT_BYTES)
            self._read_fp = (self.offset, _digest(first[begin - start:self.offset - start])
                             if begin >= start and self.offset - start <= len(first)
                             else self.fingerprint(self.offset))
        return count

    def rewritten_under(self) -> bool:
        """Whether the bytes before this reader's offset are no longer those it read (the
        file written again otherwise: its offset may fall inside a line)."""
        seen = self._read_fp
        return seen is not None and seen[0] == self.offset and \
            self.fingerprint(self.offset) != seen[1]

    def _consume_all(self, data: bytes) -> int:
        count, limit = 0, READ_CHUNK
        while True:
            read = self._consume(data)
            count += read
            if len(data) < limit:
                return count
            if not read:  # one line longer than the chunk: read more at once
                limit *= 2
            data = self._read_from(self.offset, limit)

    def _consume(self, data: bytes) -> int:
        end = data.rfind(b"\n")
        self.partial_tail = len(data) - (end + 1)
        if end < 0:
            return 0
        start = 0
        count = 0
        progress = self._progress
        while start <= end:
            stop = data.index(b"\n", start)
            self.lines += 1
            count += 1
            self._read_line(data[start:stop])
            start = stop + 1
            if progress is not None and not count % PROGRESS_EVERY_LINES:
                progress(self.offset + start, self._progress_total)
        self.offset += end + 1
        return count

    def _read_line(self, line: bytes) -> None:
        line_no = self.lines
        if self.header is not None and self._read_fast(line_no, line):
            return
        if not line.strip():
            self._anomaly(line_no, None, "skipped", BLANK_LINE)
            return
        try:
            raw = _DECODER(line)
        except msgspec.DecodeError as exc:
            self._anomaly(line_no, None, "skipped", f"not a valid entry: {exc}")
            return
        except RecursionError:
            self._anomaly(line_no, None, "skipped", "not a valid entry: nested too deeply")
            return
        if raw.type == "session":
            self._read_header(line_no, raw, line)
            return
        if self.header is None:
            self._anomaly(line_no, raw.id, "skipped", "entry before the session header")
            return
        if raw.id is None or raw.timestamp is None:
            self._anomaly(line_no, raw.id, "skipped", "entry without id or timestamp")
            return
        if self.has_entry(raw.id):
            self._anomaly(line_no, raw.id, "skipped", f"duplicate entry id {raw.id}")
            return
        entry = Entry(raw.id, raw.parentId, raw.type, self._entry_base + len(self._entries),
                      raw.timestamp)
        self._entries.append(entry)
        self._by_id[entry.id] = entry
        if raw.type == "compaction":
            self._compactions.append(entry.id)
        custom_type = raw.customType or ""
        if raw.type == "custom" and custom_type.startswith(CUSTOM_TYPE_FAMILY_PREFIX):
            self._read_mutation(line_no, entry, custom_type, raw.data)

    def _read_fast(self, line_no: int, line: bytes) -> bool:
        """Read a well-formed DS4 mutation line in one decode; ``False`` if it is not one."""
        for mark, custom_type, decoder in FAST_PATHS:
            if mark not in line:
                continue
            try:
                fast = decoder.decode(line)
            except (msgspec.DecodeError, RecursionError):
                return False
            if fast.type != "custom" or fast.customType != custom_type or self.has_entry(
                    fast.id):
                return False
            entry = Entry(fast.id, fast.parentId, "custom",
                          self._entry_base + len(self._entries), fast.timestamp)
            self._entries.append(entry)
            self._by_id[entry.id] = entry
            self._accept_payload(line_no, entry, custom_type,
                                 checked_payload(custom_type, fast.data))
            return True
        return False

    def _read_header(self, line_no: int, raw: EntryLine, line: bytes) -> None:
        header = header_at(line_no, raw, line, have_header=self.header is not None)
        if isinstance(header, str):
            self._anomaly(line_no, raw.id, "skipped", header)
            return
        self.header = header
        self.header_bytes = line
        self._project = canonical_project_path(header.cwd) if header.cwd else ""

    def _read_mutation(
        self, line_no: int, entry: Entry, custom_type: str, data: msgspec.Raw
    ) -> None:
        raw = bytes(data)
        payload = decode_payload(custom_type, None if raw == b"null" else raw)
        self._accept_payload(line_no, entry, custom_type, payload)

    def _accept_payload(
        self, line_no: int, entry: Entry, custom_type: str, payload: DecodedPayload
    ) -> None:
        if isinstance(payload, UnknownPayload):
            detail = f"{custom_type} schemaVersion={payload.schema_version!r}"
            self._anomaly(line_no, entry.id, "unknown", detail)
        elif isinstance(payload, MalformedPayload):
            self._anomaly(line_no, entry.id, "malformed", f"{custom_type}: {payload.problem}")
        elif payload.item is not None and payload.item.scope != "project" and \
                payload.item.project_path is not None:
            self._anomaly(line_no, entry.id, "malformed",
                          f"{custom_type}: a {payload.item.scope} item names a project")
        elif (payload.item is not None and payload.item.scope == "project"
              and payload.item.project_path != self._project):
            # A session can only speak for the project it ran in: a project item naming
            # another project would let any file opened once inject into a trusted project.
            self._anomaly(line_no, entry.id, "malformed",
                          f"{custom_type}: project item for a project other than the "
                          "session's own (header cwd)")
        else:
            timestamp = iso_to_ms(entry.timestamp)
            self.records.append(
                MutationRecord(
                    session_id=self.session_id,
                    entry_id=entry.id,
                    entry_index=entry.index,
                    timestamp_ms=timestamp if timestamp is not None else payload.created_at,
                    mutation=payload,
                    parent_id=entry.parent_id,
                    # "" for a session of no project: it may change no project's items
                    # (None, unrestricted, let such a file unpin any project's pins)
                    project=self._project,
                )
            )

    def _anomaly(self, line_no: int, entry_id: str | None, kind: str, detail: str) -> None:
        self.anomalies.append(Anomaly(line_no, entry_id, kind, detail[:300]))

    # -- appending ------------------------------------------------------------------

    @contextmanager
    def locked(self, *, group_commit: bool = False, wait_s: float | None = None
               ) -> Iterator[None]:
        """Hold the exclusive lock and read what others appended meanwhile; ``wait_s``:
        how long the lock is waited for (:attr:`lock_wait_s` unless given).

        ``group_commit``: what is appended under the lock is made durable right after the
        lock is released, before this context ends (so before the caller may report it),
        instead of before each append returns. Other writers append while this one waits
        for the disk, and one flush covers every line written before it. Only for callers
        whose other state may run ahead of the ledger after a power loss and notice it
        (the projection: an active file shorter than its checkpoint is a problem)."""
        self.lock_wait_s = self.lock_wait_s if wait_s is None else wait_s
        with self._exclusive(group_commit):
            self._locked = True
            try:
                self.refresh()
                yield
            finally:
                self._locked = False

    @property
    def holds_lock(self) -> bool:
        """Whether this reader is inside :meth:`locked` now."""
        return self._locked

    def end_partial_line(self) -> None:
        """End a last line a writer left without its newline (inside :meth:`locked`): it is
        read then, counted as unusable, or used if it was complete."""
        if self.partial_tail:
            self._write_durably(b"\n")
            self.refresh()

    def append(self, entry: dict[str, Any], new_id: Callable[[], str]) -> Entry:
        """Append one entry as a child of the leaf; call inside :meth:`locked`.

        ``entry`` holds ``type``, ``timestamp`` and the type's fields; the ledger adds a
        fresh ``id`` (unique in this session) and ``parentId`` unless ``entry`` sets it."""
        if not self._locked:
            raise RuntimeError("SessionLog.append must be called inside SessionLog.locked()")
        if not isinstance(entry.get("type"), str) or not isinstance(entry.get("timestamp"), str):
            raise ValueError("an entry needs a string 'type' and 'timestamp'")
        try:
            self.end_partial_line()  # a writer died mid-line: before we pick our parent
            entry_id = self._fresh_id(new_id)
            line = {"type": entry["type"], **entry, "id": entry_id}
            line.setdefault("parentId", self.leaf_id)
            self._write_durably(_ENCODER.encode(line) + b"\n")
        except OSError:
            self.refresh()  # learn how much of the line reached the ledger, if any
            raise
        self.refresh()
        if entry_id not in self._by_id:
            raise SessionFileError(f"{self.path}: appended entry {entry_id} did not read back")
        return self._by_id[entry_id]

    def _fresh_id(self, new_id: Callable[[], str]) -> str:
        for _ in range(MAX_ID_ATTEMPTS):
            candidate = new_id()
            if not self.has_entry(candidate):
                return candidate
        raise SessionFileError(f"{self.path}: could not find a free entry id")


def _digest(data: bytes) -> str:
    """The fingerprint of the bytes before an offset (:meth:`SessionLog.fingerprint`)."""
    return blake2b(data, digest_size=8).hexdigest()
