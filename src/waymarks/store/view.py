"""The write decisions' view of the projection: :class:`~waymarks.core.rules.StateView`
over the ``items`` table, read inside the write's transaction."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Sequence
from itertools import islice
from typing import Any, Final

from waymarks.core.rules import ItemState
from waymarks.store.integrity import (
    ITEM_COLUMNS,
    ITEM_ID,
    ITEM_STATUS,
    ITEM_TEXT,
    SOURCE_FIELDS,
    count_group,
    groups_of,
    verify_item,
    verify_source,
)
from waymarks.store.rows import item_row, json_list, state_from_row

INSERT_ITEM: Final = f"INSERT INTO items ({ITEM_COLUMNS}) VALUES ({', '.join('?' * 23)})"


class SqliteView:
    """:class:`~waymarks.core.rules.StateView` over the ``items`` table (inside a transaction)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        #: the connection's change count when the claims' subject rows were last caught
        #: up inside the write transaction open now (:meth:`caught_up`), else ``None``
        self.caught_up_at: int | None = None
        #: the rows read inside the write transaction open now (:meth:`began`), by the
        #: read and its arguments, while this connection has changed nothing since
        #: (:meth:`_read`); ``None`` outside one
        self._reads: dict[Hashable, Any] | None = None
        self._reads_at = -1

    def began(self) -> None:
        """A write transaction (``BEGIN IMMEDIATE``) began: the rows read inside it may be
        kept until this connection changes one (:meth:`_read`)."""
        self._reads = {}
        self._reads_at = self.db.total_changes

    def _read(self, key: Hashable, read: Callable[[], Any]) -> Any:
        """``read()``, or what it gave earlier in this write transaction while this
        connection has changed nothing since: inside ``BEGIN IMMEDIATE`` no other
        connection writes, so the rows are still those. A write's decision asked for the
        same rows up to three times (its duplicate, key and contradiction checks)."""
        reads = self._reads
        if reads is None or not self.db.in_transaction:
            return read()
        if self._reads_at != self.db.total_changes:
            reads.clear()
            self._reads_at = self.db.total_changes
        if key not in reads:
            reads[key] = read()
        return reads[key]

    def caught_up(self, unsigned: list[str] | None = None) -> None:
        """The claims' subject rows caught up (inside a write transaction), once while
        this connection changes nothing: in a ``BEGIN IMMEDIATE`` transaction no other
        connection writes, so rows caught up at this change count still are. A claim's
        write caught them up for its check and then again for each of the two lookups of
        its check (the same rows read three times under the session lock). The
        transaction clears the mark when it ends (:meth:`forget_caught_up`).
        ``unsigned``: as :func:`~waymarks.store.claim_subjects.catch_up` takes it."""
        from waymarks.store import claim_subjects  # a write's: not on a recall's path

        if self.caught_up_at is not None and self.caught_up_at == self.db.total_changes \
                and self.db.in_transaction:
            return
        claim_subjects.catch_up(self.db, unsigned=unsigned)
        self.caught_up_at = self.db.total_changes if self.db.in_transaction else None

    def forget_caught_up(self) -> None:
        """The write transaction ended: its mark and its kept rows go."""
        self.caught_up_at = None
        self._reads = None

    def get(self, item_id: str) -> ItemState | None:
        found: ItemState | None = self._read(("get", item_id), lambda: self._get(item_id))
        return found

    def _get(self, item_id: str) -> ItemState | None:
        row = self.db.execute(f"SELECT {ITEM_COLUMNS} FROM items WHERE id = ?", (item_id,))
        found = row.fetchone()
        return state_from_row(found) if found else None

    def source_row(self, session_id: str) -> Sequence[Any] | None:
        """A session's checkpoint row (its ``SOURCE_FIELDS`` and checksum), verified, or
        ``None``; kept as item rows are (:meth:`_read`): a write read it three times."""
        row: Sequence[Any] | None = self._read(("source", session_id),
                                               lambda: self._source_row(session_id))
        return row

    def _source_row(self, session_id: str) -> Sequence[Any] | None:
        row = self.db.execute(f"SELECT {SOURCE_FIELDS}, checksum FROM sources"
                              " WHERE session_id = ?", (session_id,)).fetchone()
        if row is not None:
            verify_source(row)
        return row  # type: ignore[no-any-return]

    def active_matching(
        self, kind: str, partition: str, norm: str, key: str | None, polarity_base: str | None
    ) -> Sequence[ItemState]:
        found: Sequence[ItemState] = self._read(
            ("matching", kind, partition, norm, key, polarity_base),
            lambda: self._matching(kind, partition, norm, key, polarity_base))
        return found

    def _matching(
        self, kind: str, partition: str, norm: str, key: str | None, polarity_base: str | None
    ) -> Sequence[ItemState]:
        # one indexed lookup per facet: an OR across them would scan the whole partition.
        # Every status is read and judged on the verified row: a status filter in SQL (or
        # an index of active rows only) let a damaged status hide an active claim
        lookups = [(c, v) for c, v in (("norm", norm), ("key", key),
                                       ("polarity_base", polarity_base)) if v is not None]
        sql = " UNION ".join(
            f"SELECT rowid FROM items WHERE kind = ?1 AND partition = ?2 AND {column} = ?{n}"
            for n, (column, _value) in enumerate(lookups, start=3)
        )
        rows = self.db.execute(
            f"SELECT {ITEM_COLUMNS} FROM items WHERE rowid IN ({sql}) ORDER BY seq",
            (kind, partition, *(value for _column, value in lookups)),
        )
        return _active(rows)

    def active_with_norms(self, kind: str, partition: str, norms: Sequence[str]
                          ) -> Sequence[ItemState]:
        if not norms:
            return []
        found: Sequence[ItemState] = self._read(
            ("norms", kind, partition, tuple(norms)),
            lambda: self._with_norms(kind, partition, norms))
        return found

    def _with_norms(self, kind: str, partition: str, norms: Sequence[str]
                    ) -> Sequence[ItemState]:
        rows = self.db.execute(
            f"SELECT {ITEM_COLUMNS} FROM items WHERE kind = ? AND partition = ?"
            f" AND norm IN ({', '.join('?' * len(norms))}) ORDER BY seq",
            (kind, partition, *norms))
        return _active(rows)

    def active_conflicting(
        self, kind: str, partition: str, norm: str, key: str | None,
        polarity_base: str | None, polarity_sign: int, limit: int,
    ) -> Sequence[ItemState]:
        # each facet by its index, the same text left out in SQL (not row by row here);
        # the status judged on the verified row, and the limit counted after it
        lookups = []
        if key is not None:
            lookups.append("SELECT rowid FROM items WHERE kind = :kind"
                           " AND partition = :partition AND key = :key AND norm <> :norm")
        if polarity_base is not None:
            lookups.append("SELECT rowid FROM items WHERE kind = :kind"
                           " AND partition = :partition AND polarity_base = :base"
                           " AND polarity_sign = :sign AND norm <> :norm")
        if not lookups:
            return []
        rows = self.db.execute(
            f"SELECT {ITEM_COLUMNS} FROM items WHERE rowid IN ({' UNION '.join(lookups)})"
            " ORDER BY seq",
            {"kind": kind, "partition": partition, "norm": norm, "key": key,
             "base": polarity_base, "sign": -polarity_sign})
        return _active(rows, limit)

    def active_texts(self, partition: str, subject: frozenset[str] | None = None,
                     most: int | None = None) -> Sequence[tuple[str, str]]:
        if subject is not None:  # the claims that may share it (inside a write transaction)
            from waymarks.store import claim_subjects  # a write's: not on a recall's path

            if not subject:
                return []
            self.caught_up()
            # the terms' counts kept as rows are (a claim's check asks each term of its
            # subject again, alone: one statement a term and partition for counts read)
            counts: dict[str, int] = self._read(("term counts", partition), dict)
            return claim_subjects.sharing(self.db, partition, subject, most, counts)
        rows = self.db.execute(
            f"SELECT {ITEM_COLUMNS} FROM items WHERE kind = 'memory' AND partition = ?"
            " ORDER BY seq", (partition,))
        return [(str(row[ITEM_ID]), str(row[ITEM_TEXT])) for row in _verified_active(rows)]

    def active_texts_holding(self, partition: str, terms: Collection[str], most: int
                             ) -> Sequence[tuple[str, str]]:
        from waymarks.store import claim_subjects  # a write's: not on a recall's path

        if not terms:
            return []
        self.caught_up()
        counts: dict[str, int] = self._read(("term counts", partition), dict)
        return claim_subjects.holding(self.db, partition, terms, most, counts)

    def put(self, state: ItemState) -> None:
        row = item_row(state)
        updated = self.db.execute(
            "UPDATE items SET status = ?, reason = ?, superseded_by = ?, supersedes = ?, "
            "conflicts_with = ?, checksum = ? WHERE id = ?",
            (state.status, state.reason, state.superseded_by, state.supersedes,
             json_list(state.conflicts_with), row[-1], state.id),
        )
        if updated.rowcount:
            return
        self.db.execute(INSERT_ITEM, row)
        for kind, group in groups_of(state.kind, state.session_id, state.item.scope,
                                     state.item.project_path):
            count_group(self.db, kind, group)


def _verified_active(rows: Iterable[Sequence[Any]]) -> Iterator[Sequence[Any]]:
    """The active rows among ``rows``, each verified before its status is believed (a
    status filtered in SQL let a damaged one hide an active claim); nothing is decoded."""
    for row in rows:
        verify_item(row)
        if row[ITEM_STATUS] == "active":
            yield row


def _active(rows: Iterable[Sequence[Any]], limit: int | None = None
            ) -> tuple[ItemState, ...]:
    """The active items among ``rows``, verified; only those are decoded (a key's
    superseded chain is not). A tuple: a kept read is shared by its askers."""
    return tuple(state_from_row(row) for row in islice(_verified_active(rows), limit))
