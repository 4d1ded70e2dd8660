"""Detecting a damaged projection before it answers wrongly.

SQLite keeps no checksums of its pages: a flipped byte inside a text cell, an index key or
a record header is invisible to ``PRAGMA quick_check`` and often to every query, which then
answers with an item silently missing or changed. The database is only a projection, so
the cure is cheap (set it aside, rebuild from the ledgers); the work is noticing. Three
layers, by cost:

- **Every row read** (O(rows returned)): each ``items``, ``mutations``, ``recall_records``,
  ``sources`` (checkpoint) and ``entries`` (entry index, migration 19) row carries a
  CRC-32 of its canonical content (``checksum``), written with the row and checked
  whenever the row is read; the values the code branches on (kind, scope, status,
  classification) must be in their grammar; a recall candidate must hold the feature the
  full-text index found it by, and a posting without its record or item is damage, not a
  silent join miss. CRC-32 detects
  every burst of up to 32 flipped bits in the content and misses other damage with
  probability 2^-32; a 64-bit hash cost twice as much per row (3.5 against 1.5 us) for
  no practical gain.
- **Every full listing** (free: the rows are read anyway): ``item_groups`` counts, per
  kind, the items of each session and the project items of each project, updated in the
  same transaction as the rows. A listing reads the session side and the project side
  separately (two index range scans, merged in Python): each side must return exactly
  its count, each row must match the side's predicate, and no ID may come twice. So a row
  hidden by a flipped key (in the row or in an index entry) is noticed, not dropped. The
  newest-N window filters statuses in Python, after the checksum, for the same reason, and
  so do a write's duplicate and conflict lookups (``store.view``, ``store.claim_subjects``:
  indexes over every status, migration 18): a status filtered in SQL let a damaged status
  hide an active claim, and a contradicting write was accepted.
- **On open, while the database is small** (O(database)): ``PRAGMA integrity_check``
  (b-tree structure *and* index entries against table rows), every checksum and group
  count, the claims' subject-term counts against their rows, the meta values, in one read
  snapshot; then FTS5's own check of the recall index
  (a write statement, so under the writer lock). It closes the gaps the per-read checks
  leave, at a cost proportional to the database, so it runs only up to
  :data:`OPEN_CHECK_MAX_BYTES`; ``waymarks health`` runs it at any size.

Measured (benchmarks/damage_checks.py, a shared 2-core machine; p50): per read, the
newest 12 active claims 0.17 ms checked against 0.14 ms unchecked at 50 claims and
0.37 / 0.31 ms at 100,000, ten claims by ID 0.13 / 0.10 and 0.31 / 0.25 ms, a whole plan
+0.3 to +2.4 ms (3-8 %), a full listing +15-40 %; the whole-database check 1.8 ms at 50
claims (312 KiB), 20 ms at 1,000 (2 MiB), 300 ms at 10,000 and 3.4 s at 100,000 (against
``quick_check`` 0.15 ms / 1.3 ms / 30 ms / 310 ms). Opening a 312 KiB store costs 3.7 ms
with it and 1.3 ms without: paid once per process (the CLI, or once by a long-lived MCP
server, Pi bridge or Claude Code helper), never per plan. Rebuilds write checksums and
counts with the rows: +9 % at 100,000 mutations.

What the per-read checks cannot see in a database above the limit: a flipped key that
hides a row from a *bounded* read (the newest few active memories, a lookup by ID, the
recall index's full-text postings): there is no count to compare a window with. Health
finds it. (Byte-flip fuzzing with the open check switched off: 0 wrong answers in 600
flips of a small home; FTS-only flips: 2 of 400 changed a recall silently.)

Rejected: a checksum of the projection against the ledger on every open (replaying a
session's mutation IDs costs O(ledger) per command, and the ledger's own checkpoint
fingerprint already notices a changed ledger); ``quick_check`` on every open (O(database)
and blind to index contents and to flips inside cells); trusting the file's size and
mtime (bit rot changes neither, and every commit changes both).

Damage is reported as :class:`ProjectionDamaged`, a ``sqlite3.DatabaseError``, so every
handler that already treats SQLite's own corruption errors as damage treats it the same;
its message names tables and columns, never stored content.
"""

from __future__ import annotations

import os
import sqlite3
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from typing import Any, Final, Generic, TypeVar, get_args

import msgspec

from waymarks.core.model import CLASSIFICATIONS, PIN_SCOPES, Status

#: the columns of an item row, in the order every writer and reader uses (the checksum of
#: a row covers the ones before ``checksum``)
ITEM_COLUMNS: Final = (
    "id, kind, scope, partition, project_path, key, classification, text, norm, "
    "polarity_base, polarity_sign, status, reason, superseded_by, supersedes, "
    "conflicts_with, session_id, entry_id, branch_leaf_id, created_at, seq, record, checksum"
)

#: run the whole-database check on open up to this size (page count times page size)
OPEN_CHECK_MAX_BYTES = 512 << 10  # about 200 items: ~5 ms on open (see above)
KINDS: Final = frozenset({"pin", "memory"})
SCOPES: Final = frozenset(PIN_SCOPES)
STATUSES: Final = frozenset(get_args(Status))
CLASSIFICATION_VALUES: Final = frozenset({None, *CLASSIFICATIONS})
#: decoding errors that, raised from stored bytes, mean the bytes are damaged
DECODE_ERRORS: Final = (msgspec.DecodeError, UnicodeDecodeError, ValueError, TypeError,
                        KeyError, IndexError, RecursionError)
_ENCODER: Final = msgspec.json.Encoder()
#: positions in an items row (ITEM_COLUMNS order); the checksum follows the record
ITEM_ID, ITEM_KIND, ITEM_SCOPE, ITEM_PROJECT, ITEM_CLASS, ITEM_TEXT = 0, 1, 2, 4, 6, 7
ITEM_STATUS, ITEM_SESSION, ITEM_SEQ, _RECORD = 11, 16, 20, 21
ITEM_FIELDS: Final = 22


T = TypeVar("T")


def may_see(scope: str | None, project_path: str | None, owner: str | None,
            session_id: str | None, project: str | None) -> bool:
    """Whether session ``session_id`` (working in ``project``) may see an item: one of its
    project's, or its own."""
    if scope == "project":
        return project is not None and project_path == project
    return scope is not None and owner == session_id


class ProjectionDamaged(sqlite3.DatabaseError):
    """The database opened, but what it holds is not what was written (or not the schema
    its version claims). The message names the table and check, never stored content."""


class ProjectionReplaced(ProjectionDamaged):
    """The file at the projection's path is no longer the one this connection opened:
    another process found it damaged, set it aside and built a new one. Not damage to
    repair again: the cure is to reopen the path."""


class ProjectionForeign(ProjectionDamaged):
    """The file at the projection's path is a sound SQLite database that Waymarks did not
    write (tables, but no ``schema_migrations``): it is set aside untouched like a damaged
    one, never migrated in place (its tables would be mixed with the projection's)."""


#: what a database of no bytes beside its log says, for the person reading the repair
CUT_TO_NOTHING: Final = "the file was cut to zero bytes under its write-ahead log"


def cut_to_nothing(path: Path, size: int | None = None) -> bool:
    """Whether the database at ``path`` is a file of no bytes with a ``-wal`` or ``-shm``
    beside it: cut under its log (``: > waymarks.db``). SQLite writes a database's header
    before it makes either, so a crash before the first write leaves an empty file alone
    (filled as a new one). Opened, the cut file was an empty database in rollback mode, and
    switching it to WAL waited for the lock a process still holding it (a ui) never gave
    up: every other open failed as busy. ``size``: the file's, from a ``stat`` the caller
    just made (a request's check of its database makes one)."""
    if size is None:
        try:
            size = os.stat(path).st_size
        except OSError:
            return False  # missing: SQLite makes it (stale companions are dropped first)
    if size:
        return False
    return any(os.path.exists(f"{path}{suffix}") for suffix in ("-wal", "-shm"))


def refuse_cut_to_nothing(path: Path) -> None:
    """Raise :class:`ProjectionDamaged` before SQLite opens a database
    :func:`cut_to_nothing`: set aside, the new file at the path is one no holder's lock
    covers (and SQLite does not delete the holder's log as an empty database's)."""
    if cut_to_nothing(path):
        raise ProjectionDamaged(CUT_TO_NOTHING)


def refuse_foreign(db: sqlite3.Connection) -> None:
    """Raise :class:`ProjectionForeign` if ``db`` holds tables but not Waymarks' schema
    history. Read only: call it before anything writes, the journal mode included (WAL
    mode rewrites the file's header), so that the file set aside is byte for byte the one
    found."""
    names = {str(n) for (n,) in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    if names and "schema_migrations" not in names:
        raise ProjectionForeign(
            "it is an SQLite database Waymarks did not write (other tables, no Waymarks"
            " schema history), kept untouched")


def checksum(fields: Sequence[Any], blob: bytes = b"") -> int:
    """CRC-32 of the canonical encoding of a row's values (``blob``: its bytes column)."""
    return zlib.crc32(blob, zlib.crc32(_ENCODER.encode(fields)))


def item_checksum(row: Sequence[Any]) -> int:
    """Checksum of an ``items`` row: its first 22 columns, the record last."""
    return checksum(row[:_RECORD], row[_RECORD])


class VerifiedMemo(Generic[T]):
    """What was derived from rows already verified, keyed by the row's identity and kept
    with the row's exact values: a row read again with equal values (every column, the
    checksum included) is the row that passed, so its result is reused without checking
    or decoding it again; any change to any byte is a miss and is checked from scratch.

    Why: a long-lived process (the Claude Code helper, the MCP server, the Pi bridge) reads
    the same pins and the same popular memories on every prompt, and checking and decoding
    them was a third of a plan. Comparing a tuple is one C loop; a checksum is an encoding
    and two CRCs. Bounded: at ``size`` entries the least recently used quarter goes (a hit
    moves its entry to the end of the dict's order). Emptying it whole instead made a
    store larger than the memo miss most of the time: at 10k records, two thirds of the
    candidates of a warm helper's recall were decoded and checked again."""

    __slots__ = ("_entries", "_size")

    def __init__(self, size: int = 8192) -> None:
        self._entries: dict[Any, tuple[Sequence[Any], T]] = {}
        self._size = size

    def get(self, key: Any, row: Sequence[Any]) -> T | None:
        """What was kept for ``key`` if it was derived from a row equal to ``row``."""
        entries = self._entries
        found = entries.get(key)
        if found is not None and found[0] == row:
            entries.pop(key, None)  # now the most recently used (pop: another thread of a
            entries[key] = found  # server may have dropped it meanwhile)
            return found[1]
        return None

    def put(self, key: Any, row: Sequence[Any], value: T) -> None:
        entries = self._entries
        entries.pop(key, None)
        if len(entries) >= self._size:
            for stale in list(islice(entries, max(1, self._size // 4))):
                entries.pop(stale, None)
        entries[key] = (tuple(row), value)

    def clear(self) -> None:
        self._entries.clear()


#: ``items`` rows that passed :func:`verify_item`, by ID
_VERIFIED_ITEMS: Final = VerifiedMemo[bool]()


def verify_item(row: Sequence[Any]) -> None:
    """Raise :class:`ProjectionDamaged` unless ``row`` (22 columns and its checksum) is
    exactly as written (a row equal to one that passed before is not checked again)."""
    if len(row) == ITEM_FIELDS + 1 and _VERIFIED_ITEMS.get(row[0], row) is not None:
        return
    _verify_item(row)
    _VERIFIED_ITEMS.put(row[0], row, True)


def _verify_item(row: Sequence[Any]) -> None:
    if (len(row) != ITEM_FIELDS + 1 or not isinstance(row[_RECORD], bytes)
            or row[ITEM_FIELDS] != item_checksum(row)):
        raise ProjectionDamaged("an items row does not match its checksum")
    if (row[ITEM_KIND] not in KINDS or row[ITEM_SCOPE] not in SCOPES
            or row[ITEM_STATUS] not in STATUSES or row[ITEM_CLASS] not in CLASSIFICATION_VALUES):
        raise ProjectionDamaged("an items row holds a value outside its grammar")


def require(condition: bool, what: str) -> None:
    """Raise :class:`ProjectionDamaged` saying ``what`` unless ``condition`` holds."""
    if not condition:
        raise ProjectionDamaged(what)


def valid_status(value: object) -> str:
    require(value in STATUSES, "an items status is outside its grammar")
    return str(value)


def valid_scope(value: object) -> str:
    require(value in SCOPES, "an items scope is outside its grammar")
    return str(value)


class _ManifestBlock(msgspec.Struct):
    kind: str
    tokens: int


class _ManifestEntry(msgspec.Struct):
    id: str
    kind: str
    decision: str
    reason: str
    classification: str | None = None


class _Manifest(msgspec.Struct):
    """The shape of a stored plan manifest (``Plan.manifest_json``) that its readers
    rely on; other fields are kept as stored."""
    entries: list[_ManifestEntry]
    blocks: list[_ManifestBlock] = []
    provider: str | None = None
    fallback: str | None = None
    totalTokens: int = 0  # the stored JSON names
    fixedTokens: int = 0  # (older manifests: not said)
    modelLimit: int | None = None
    sharedEntries: int = 0  # (stored only: see ``SHARED_ENTRIES``)
    madeAt: str | None = None  # when its plan was made (older manifests: not said)


#: the stored manifest's count of its first entries kept in the ``manifest_head`` row
#: (the pins', the same plan after plan: written only when they change)
SHARED_ENTRIES = "sharedEntries"


def decode_manifest(raw: str | bytes, head: str | bytes | None = None) -> dict[str, Any]:
    """The stored last manifest, its shared first entries (the ``manifest_head`` row,
    ``head``) put back in front of its own; :class:`ProjectionDamaged` unless both decode
    to the shape their readers index (JSON that parses but is wrongly shaped is damage
    too, and so is a count of shared entries the head row does not hold)."""
    with decoding("meta last_manifest"):
        data = msgspec.json.decode(raw)
        msgspec.convert(data, _Manifest)  # the shape, checked on what was decoded once
        data = dict(data)
    shared = data.pop(SHARED_ENTRIES, 0)
    if not shared:
        return data
    require(head is not None, "meta last_manifest names a missing manifest_head")
    assert head is not None  # (for the type checker: require raised otherwise)
    with decoding("meta manifest_head"):
        entries = msgspec.json.decode(head)
        msgspec.convert(entries, list[_ManifestEntry])
    require(shared > 0 and len(entries) == shared,
            "meta manifest_head does not hold the entries meta last_manifest counts")
    data["entries"] = entries + data["entries"]
    return data


def stored_manifest(db: sqlite3.Connection) -> dict[str, Any] | None:
    """The last plan's manifest as stored (its two ``meta`` rows, read together), decoded
    by :func:`decode_manifest`; ``None`` when no plan was kept."""
    stored = dict(db.execute("SELECT name, value FROM meta"
                             " WHERE name IN ('last_manifest', 'manifest_head')"))
    if "last_manifest" not in stored:
        return None
    return decode_manifest(stored["last_manifest"], stored.get("manifest_head"))


@contextmanager
def decoding(what: str) -> Iterator[None]:
    """Turn a decoding error raised from stored bytes into :class:`ProjectionDamaged`."""
    try:
        yield
    except ProjectionDamaged:
        raise
    except DECODE_ERRORS as exc:
        raise ProjectionDamaged(f"{what} cannot be decoded ({type(exc).__name__})") from exc


def recall_fields(decode: Callable[[bytes | str], dict[str, list[str]]],
                  fields: bytes | str) -> dict[str, list[str]]:
    """A recall record's fields decoded, an error raised as :func:`decoding` raises it:
    without a context manager's cost (entering and leaving one was as much as the decoding,
    once for each of a recall's hundred records)."""
    try:
        return decode(fields)
    except DECODE_ERRORS as exc:
        raise ProjectionDamaged(
            f"a recall record cannot be decoded ({type(exc).__name__})") from exc


@contextmanager
def snapshot(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One read transaction, so that rows and their counts are compared at one instant
    (or the caller's transaction, if one is open). Without it a write committed by
    another process between two statements would look like damage."""
    if db.in_transaction:
        yield db
        return
    db.execute("BEGIN")
    try:
        yield db
    finally:
        if db.in_transaction:
            db.execute("COMMIT")


# -- item groups (what a full listing must return) --------------------------------------


def session_group(session_id: str) -> str:
    return f"s:{session_id}"


def project_group(project_path: str) -> str:
    return f"p:{project_path}"


def groups_of(kind: str, session_id: str, scope: str, project_path: str | None
              ) -> list[tuple[str, str]]:
    """The groups one item counts in: its session's, and its project's if project-scoped."""
    found = [(kind, session_group(session_id))]
    if scope == "project" and project_path is not None:
        found.append((kind, project_group(project_path)))
    return found


def count_group(db: sqlite3.Connection, kind: str, group: str) -> None:
    """One more item in ``group`` (inside the transaction that inserts it)."""
    db.execute("INSERT INTO item_groups (kind, grp, count) VALUES (?, ?, 1)"
               " ON CONFLICT (kind, grp) DO UPDATE SET count = count + 1", (kind, group))


def write_groups(db: sqlite3.Connection, counts: Counter[tuple[str, str]]) -> None:
    """Replace every group count (a rebuild)."""
    db.execute("DELETE FROM item_groups")
    db.executemany("INSERT INTO item_groups (kind, grp, count) VALUES (?, ?, ?)",
                   [(kind, group, n) for (kind, group), n in counts.items()])


def group_count(db: sqlite3.Connection, kind: str, group: str) -> int:
    row = db.execute("SELECT count FROM item_groups WHERE kind = ? AND grp = ?",
                     (kind, group)).fetchone()
    if row is None:
        return 0
    require(isinstance(row[0], int) and row[0] > 0, "an item_groups count is not a count")
    return int(row[0])


# -- other tables ------------------------------------------------------------------------

#: mutations columns covered by the checksum (seq is assigned by SQLite, so left out)
MUTATION_FIELDS: Final = ("session_id, entry_id, entry_index, timestamp_ms, mutation_id, kind,"
                          " operation, target_id, effect, note, parent_id, payload")
RECALL_FIELDS: Final = ("item_id, kind, status, origin, created_at, text, body_count,"
                        " evidence, source, fields")
#: sources columns covered by the checksum: where each session file was read to (a damaged
#: offset read a file from a negative position, or withdrew a healthy session as truncated)
#: and whose project it speaks for; status and file stamps change apart and are not covered
SOURCE_FIELDS: Final = "session_id, path, cwd, byte_offset, lines, entries, fingerprint, project"
_SOURCE_NUMBERS: Final = slice(3, 6)
#: entries (the entry index, store.entries) columns covered by the checksum
ENTRY_FIELDS: Final = "session_id, idx, id, parent_id, seg, compaction"


def verify_blob_row(row: Sequence[Any], table: str) -> None:
    """Check a row selected as (``*_FIELDS`` columns, checksum): the blob is the last field."""
    blob = row[-2]
    if not isinstance(blob, bytes) or checksum(row[:-2], blob) != row[-1]:
        raise ProjectionDamaged(f"a {table} row does not match its checksum")


def verify_source(row: Sequence[Any]) -> None:
    """Check a row selected as (:data:`SOURCE_FIELDS`, checksum): as written, and its
    checkpoint a position (no negative offset, line or entry count)."""
    fields = row[:-1]
    require(all(isinstance(n, int) and n >= 0 for n in fields[_SOURCE_NUMBERS])
            and checksum(fields) == row[-1], "a sources row does not match its checksum")


def integer_meta(db: sqlite3.Connection, name: str) -> int | None:
    """An integer kept in ``meta``, or ``None`` when absent."""
    row = db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
    if row is None:
        return None
    require(isinstance(row[0], str) and row[0].isascii() and row[0].isdigit(),
            f"meta {name} is not a number")
    return int(row[0])


# -- the whole database ------------------------------------------------------------------


def database_bytes(db: sqlite3.Connection) -> int:
    """Size of the database as SQLite sees it (main file plus committed WAL pages)."""
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    size = db.execute("PRAGMA page_size").fetchone()[0]
    return int(pages) * int(size)


def verify_all(db: sqlite3.Connection) -> list[str]:
    """Every check this module knows, in one read snapshot; the problems found (content
    free), empty when the database is sound. SQLite's own corruption errors propagate."""
    problems: list[str] = []
    with snapshot(db):
        structure = [str(r[0]) for r in db.execute("PRAGMA integrity_check(20)")]
        if structure != ["ok"]:
            return [f"integrity check: {len(structure)} problem(s)"]
        problems += _verify_items(db)
        problems += _verify_rows(db, "mutations", MUTATION_FIELDS)
        problems += _verify_rows(db, "recall_records", RECALL_FIELDS)
        problems += _verify_sources(db)
        problems += _verify_plain_rows(db, "entries", ENTRY_FIELDS)
        problems += _verify_claim_subjects(db)
        problems += _verify_meta(db)
    return problems


def _first_damage(rows: Iterable[Any], verify: Callable[[Any], object]) -> list[str]:
    """The first row ``verify`` finds damaged, as a problem (none: ``[]``)."""
    try:
        for row in rows:
            verify(row)
    except ProjectionDamaged as exc:
        return [str(exc)]
    return []


def _verify_items(db: sqlite3.Connection) -> list[str]:
    damaged = _first_damage(db.execute(f"SELECT {ITEM_COLUMNS} FROM items"), verify_item)
    if damaged:
        return damaged
    # every row is as written (and integrity_check matched the indexes to them), so the
    # counts SQLite computes are the true ones: compare them with the counts kept
    counted = set(db.execute(
        "SELECT kind, 's:' || session_id, count(*) FROM items GROUP BY kind, session_id"
        " UNION ALL SELECT kind, 'p:' || project_path, count(*) FROM items"
        " WHERE scope = 'project' AND project_path IS NOT NULL GROUP BY kind, project_path"))
    stored = set(db.execute("SELECT kind, grp, count FROM item_groups"))
    return [] if stored == counted else ["item_groups does not count the items"]


def _verify_rows(db: sqlite3.Connection, table: str, fields: str) -> list[str]:
    return _first_damage(db.execute(f"SELECT {fields}, checksum FROM {table}"),
                         lambda row: verify_blob_row(row, table))


def _verify_plain_rows(db: sqlite3.Connection, table: str, fields: str) -> list[str]:
    for row in db.execute(f"SELECT {fields}, checksum FROM {table}"):
        if checksum(row[:-1]) != row[-1]:
            return [f"a {table} row does not match its checksum"]
    return []


def _verify_claim_subjects(db: sqlite3.Connection) -> list[str]:
    """The claims' subject terms (store.claim_subjects, derived and caught up lazily): each
    term's count of claims is the number of its rows, and every row names a memory item.
    A damaged row or count hid a contradiction from a write, with health OK."""
    counted = set(db.execute(
        "SELECT partition, term, count(*) FROM claim_subjects GROUP BY partition, term"))
    stored = set(db.execute("SELECT partition, term, claims FROM claim_terms"))
    if stored != counted:
        return ["claim_terms does not count the claim_subjects rows"]
    (orphans,) = db.execute(
        "SELECT count(*) FROM claim_subjects s LEFT JOIN items i ON i.rowid = s.item"
        " WHERE i.rowid IS NULL OR i.kind != 'memory' OR i.partition != s.partition"
    ).fetchone()
    return ["a claim_subjects row names no memory item of its partition"] if orphans else []


def _verify_sources(db: sqlite3.Connection) -> list[str]:
    return _first_damage(db.execute(f"SELECT {SOURCE_FIELDS}, checksum FROM sources"),
                         verify_source)


#: the prefix of the meta names of the stored vectors' watermarks, one per model
#: (:mod:`waymarks.store.recall_vectors`): each is a recall record's row ID
VECTORS_DONE: Final = "vectors_done:"


def _verify_meta(db: sqlite3.Connection) -> list[str]:
    try:
        for name in ("recall_seq", "recall_generation", "recall_shortest"):
            integer_meta(db, name)
        records = db.execute("SELECT coalesce(max(rowid), 0) FROM recall_records").fetchone()[0]
        for (name,) in db.execute("SELECT name FROM meta WHERE substr(name, 1, ?) = ?",
                                  (len(VECTORS_DONE), VECTORS_DONE)).fetchall():
            done = integer_meta(db, name)
            require(done is not None and done <= records,
                    "a stored vectors' watermark is past the last recall record")
        seq = integer_meta(db, "recall_seq")
        top = db.execute("SELECT coalesce(max(seq), 0) FROM items WHERE kind = 'memory'"
                         ).fetchone()[0]
        require(seq is None or seq <= top, "meta recall_seq is past the last item")
        row = db.execute("SELECT value FROM meta WHERE name = 'last_order'").fetchone()
        if row is not None:
            with decoding("meta last_order"):
                msgspec.json.decode(row[0])
        stored_manifest(db)
    except ProjectionDamaged as exc:
        return [str(exc)]
    return []


def fts_problems(db: sqlite3.Connection, tables: Sequence[str]) -> list[str]:
    """FTS5's own consistency check of full-text indexes. It is an INSERT to SQLite, so
    it takes the write lock: call it inside a write transaction (or from ``health``)."""
    for table in tables:
        try:
            db.execute(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")
        except sqlite3.DatabaseError as exc:
            if not (getattr(exc, "sqlite_errorname", None) or "").startswith("SQLITE_CORRUPT"):
                raise
            return [f"full-text index {table} is inconsistent"]
    return []
