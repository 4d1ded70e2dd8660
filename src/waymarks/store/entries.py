"""The entry index: each session's entry tree, so a process can open the active session
at its checkpoint instead of reading the whole ledger again (issue 15: "a start costs
what changed").

Table ``entries``: one row per entry of a ledger read so far, ``(session_id, idx)`` its
position in file order, with its ID, its parent's ID, ``seg`` and ``compaction``:

- ``seg`` is the position of the first entry of its *run*: a maximal stretch of entries
  each of which is the child of the one just before it (an ordinary conversation is one
  run; a branch starts a new one). An entry ``x`` is an ancestor of ``y`` exactly when
  walking ``y``'s runs upward reaches ``x``'s run at or after ``x``: the walk costs one
  step per run on the path, not one per entry (:meth:`EntryIndex.on_branch`).
- ``compaction`` marks compaction entries (historical retrieval asks for them).

What must stay true: the rows of a session are exactly its entries ``0 .. n-1`` for some
``n`` (contiguous from the start), written in the same transaction as the checkpoint
that covers them; :func:`indexed` is that ``n``. A reader opened at a checkpoint uses the
index only when ``n`` covers the checkpoint; rows past it (another process went on) are
never consulted, because every query is bounded by the count the reader was opened at.
It is a projection like the rest: a rebuild writes it again from the ledgers. Every row
carries a checksum of its columns (migration 19), checked wherever a row is read and by
the whole-database check: a damaged parent or run put an entry on the wrong branch (a pin
of another branch applied, one of this branch did not), with health OK.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Final

from waymarks.ledger.log import Entry, SessionLog
from waymarks.store.integrity import ENTRY_FIELDS, checksum, require

SCHEMA: Final = (
    "CREATE TABLE entries ("
    " session_id TEXT NOT NULL, idx INTEGER NOT NULL, id TEXT NOT NULL, parent_id TEXT,"
    " seg INTEGER NOT NULL, compaction INTEGER NOT NULL DEFAULT 0,"
    " PRIMARY KEY (session_id, idx)) WITHOUT ROWID",
    "CREATE UNIQUE INDEX entries_by_id ON entries (session_id, id)",
)
#: branches whose runs are kept at once (a reader asks about one or two leaves)
_KEPT_BRANCHES: Final = 8
#: the columns a row's checksum covers, in order
FIELDS: Final = ENTRY_FIELDS
_INSERT: Final = (f"INSERT OR REPLACE INTO entries ({FIELDS}, checksum)"
                  " VALUES (?, ?, ?, ?, ?, ?, ?)")


def verify(row: tuple[object, ...] | None) -> None:
    """Check a row selected as (:data:`FIELDS`, checksum) (``None``: no row, nothing to
    check)."""
    if row is not None:
        require(checksum(row[:-1]) == row[-1], "an entries row does not match its checksum")


def create_table(db: sqlite3.Connection) -> None:
    for statement in SCHEMA:
        db.execute(statement)


def indexed(db: sqlite3.Connection, session_id: str) -> int:
    """How many of the session's entries (from the first) the index holds."""
    row = db.execute("SELECT max(idx) FROM entries WHERE session_id = ?",
                     (session_id,)).fetchone()
    return 0 if row is None or row[0] is None else int(row[0]) + 1


def record(db: sqlite3.Connection, session: SessionLog, upto: int | None = None) -> None:
    """Index what ``session`` read past what the index holds, up to entry ``upto`` (its
    checkpoint; call in the transaction that moves it). A reader that did not read from
    where the index stops (it resumed further on) adds nothing: the index stays
    contiguous."""
    sid = session.session_id
    # the last row, which says how many the index holds too: one statement under a
    # writer's session lock, where the count and then the row were two
    row = db.execute(f"SELECT {FIELDS}, checksum FROM entries WHERE session_id = ?"
                     " ORDER BY idx DESC LIMIT 1", (sid,)).fetchone()
    have = 0 if row is None else int(row[1]) + 1
    fresh = session.entries_from(have)
    if upto is not None:
        fresh = fresh[:max(0, upto - have)]
    if not fresh or fresh[0].index != have:
        return
    previous: tuple[str, int] | None = None
    if have:
        verify(row)
        previous = (str(row[2]), int(row[4])) if row else None
    db.executemany(_INSERT, _rows(sid, fresh, previous))


def _rows(sid: str, entries: Iterable[Entry], previous: tuple[str, int] | None
          ) -> Iterable[tuple[str, int, str, str | None, int, int, int]]:
    for entry in entries:
        seg = previous[1] if previous is not None and entry.parent_id == previous[0] \
            else entry.index
        row = (sid, entry.index, entry.id, entry.parent_id, seg,
               int(entry.type == "compaction"))
        yield (*row, checksum(row))
        previous = (entry.id, seg)


@contextmanager
def bulk(db: sqlite3.Connection) -> Iterator[None]:
    """Index many sessions from empty (a rebuild): the lookup by ID is dropped while the
    rows go in and built once after them (a sort, not a random B-tree insert per entry:
    entry IDs are random). Inside the caller's transaction; on error it rolls back whole."""
    db.execute("DROP INDEX IF EXISTS entries_by_id")
    yield
    db.execute(SCHEMA[1])


def forget(db: sqlite3.Connection, session_id: str | None = None) -> None:
    """Drop the index of one session (its file was replaced), or of every session."""
    if session_id is None:
        db.execute("DELETE FROM entries")
    else:
        db.execute("DELETE FROM entries WHERE session_id = ?", (session_id,))


class EntryIndex:
    """The entries ``0 .. limit-1`` of one session, as :class:`waymarks.ledger.log.
    EntryIndex` asks for them (each answer is one or a few indexed lookups)."""

    def __init__(self, db: sqlite3.Connection, session_id: str, limit: int) -> None:
        self.db, self.session_id, self.limit = db, session_id, limit
        #: the branches asked about: leaf -> {run's first position: branch's last in it}
        #: (the rows before ``limit`` never change while this index is in use)
        self._runs: dict[str, dict[int, int]] = {}

    def _row(self, entry_id: str) -> tuple[int, int, str | None] | None:
        row = self.db.execute(
            f"SELECT {FIELDS}, checksum FROM entries WHERE session_id = ? AND id = ?"
            " AND idx < ?", (self.session_id, entry_id, self.limit)).fetchone()
        verify(row)
        require(row is None or row[2] == entry_id, "the entries ID index does not match")
        return None if row is None else (int(row[1]), int(row[4]), row[3])

    def contains(self, entry_id: str) -> bool:
        return self._row(entry_id) is not None

    def last(self) -> str | None:
        row = self.db.execute(f"SELECT {FIELDS}, checksum FROM entries WHERE session_id = ?"
                              " AND idx = ?", (self.session_id, self.limit - 1)).fetchone()
        verify(row)
        return None if row is None else str(row[2])

    def on_branch(self, leaf_id: str, entry_id: str) -> bool:
        target = self._row(entry_id)
        if target is None:
            return False
        runs = self._runs.get(leaf_id)
        if runs is None:
            if len(self._runs) >= _KEPT_BRANCHES:
                self._runs.clear()
            runs = self._runs[leaf_id] = self._branch_runs(leaf_id)
        last = runs.get(target[1])  # the branch's last position in the entry's run
        return last is not None and target[0] <= last

    def _branch_runs(self, leaf_id: str) -> dict[int, int]:
        """Each run the branch to ``leaf_id`` passes through (by its first position), with
        the branch's last position in it: walked once per leaf, one step per run, so that
        a membership test is one lookup (walking the runs for every test made a ledger of
        two interleaved chains, every entry its own run, take seconds per plan). A parent
        that is not earlier than its run ends the branch (a cycle)."""
        runs: dict[int, int] = {}
        current = self._row(leaf_id)
        while current is not None and current[1] not in runs:
            position, run, _parent = current
            runs[run] = position
            first = self.db.execute(
                f"SELECT {FIELDS}, checksum FROM entries WHERE session_id = ? AND idx = ?",
                (self.session_id, run)).fetchone()
            verify(first)
            if first is None or first[3] is None:
                break
            parent = self._row(str(first[3]))
            if parent is not None and parent[0] >= run:
                break  # a parent that is not earlier ends the branch
            current = parent
        return runs

    def compactions(self) -> list[str]:
        rows = self.db.execute(
            # its own index: the plan read every entry of the session once the row (for its
            # checksum) was wanted whole
            f"SELECT {FIELDS}, checksum FROM entries INDEXED BY entries_compactions"
            " WHERE session_id = ? AND compaction = 1 AND idx < ? ORDER BY idx",
            (self.session_id, self.limit)).fetchall()
        for row in rows:
            verify(row)
        return [str(row[2]) for row in rows]
