"""The evolution tables' rows: a learned claim and a source from and to their columns,
and the fold's view (:class:`~waymarks.core.evolution.fold.EvoView`) that reads and
writes them inside a sync's transaction (:mod:`waymarks.store.evolution` holds the store
that syncs and answers queries)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Final

import msgspec

from waymarks.core.evolution.fold import ClaimRow, SourceRow
from waymarks.core.evolution.rows import Change, Slot, suppression_key
from waymarks.core.text import normalize

TERMS_ENCODER: Final = msgspec.json.Encoder()  # (a list of words, as JSON)
_TERMS_DECODER: Final = msgspec.json.Decoder(list[str])
_SLOT_DECODER: Final = msgspec.json.Decoder(tuple[str, str, str] | None)
_SNAP_DECODER: Final = msgspec.json.Decoder(dict[str, object] | None)
#: the states of the claims a text may not be learned again beside
RETIRED_STATES: Final = ("forgotten", "superseded", "conflicted")

CLAIM_COLUMNS: Final = ("id, origin, kind, content, state, basis, method, source_id,"
                        " updated_at, seq, replaces, conflicts_with, superseded_by,"
                        " search_terms, reinforced_at, utility, accuracy, pinned")
SOURCE_COLUMNS: Final = ("source_id, origin, kind, basis, text, classification, captured_at,"
                         " session, seq, settled, settled_at")


def claim_row(row: Sequence[object]) -> ClaimRow:
    """A claim from its columns; raises ``msgspec.DecodeError``/``ValueError`` for a row
    that is not well formed (readers that must not fail use
    :meth:`~waymarks.store.evolution.EvolutionStore.readable_claims`)."""
    (cid, origin, kind, content, state, basis, method, source, updated, seq, replaces,
     conflicts, superseded, terms, reinforced, utility, accuracy, pinned) = row
    return ClaimRow(str(cid), str(origin), str(kind), str(content), str(state), str(basis),
                    str(method), str(source), str(updated), int(seq),  # type: ignore[call-overload]
                    _opt(replaces), _opt(conflicts), _opt(superseded),
                    tuple(_TERMS_DECODER.decode(str(terms))), str(reinforced or ""),
                    _slot(utility), _slot(accuracy), _pinned(pinned))


def _pinned(value: object) -> bool:
    if value not in (0, 1):
        raise ValueError("pinned is 0 or 1")
    return value == 1


def _slot(value: object) -> Slot | None:
    return None if value is None else _SLOT_DECODER.decode(str(value))


def _slot_json(slot: Slot | None) -> str | None:
    return None if slot is None else TERMS_ENCODER.encode(list(slot)).decode()


def source_row(row: Sequence[object]) -> SourceRow:
    (sid, origin, kind, basis, text, level, captured, session, seq, settled, at) = row
    return SourceRow(str(sid), str(origin), str(kind), str(basis), str(text), str(level),
                     str(captured), str(session), int(seq),  # type: ignore[call-overload]
                     _opt(settled), _opt(at))


def _opt(value: object) -> str | None:
    return None if value is None else str(value)


class SqliteEvoView:
    """:class:`~waymarks.core.evolution.fold.EvoView` over the tables (in a transaction)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def claim(self, claim_id: str) -> ClaimRow | None:
        row = self.db.execute(f"SELECT {CLAIM_COLUMNS} FROM evo_claims WHERE id = ?",
                              (claim_id,)).fetchone()
        return None if row is None else claim_row(row)

    def put_claim(self, row: ClaimRow) -> None:
        self.db.execute(
            f"INSERT OR REPLACE INTO evo_claims ({CLAIM_COLUMNS})"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row.id, row.origin, row.kind, row.content, row.state, row.basis, row.method,
             row.source_id, row.updated_at, row.seq, row.replaces, row.conflicts_with,
             row.superseded_by, TERMS_ENCODER.encode(list(row.search_terms)).decode(),
             row.reinforced_at, _slot_json(row.utility), _slot_json(row.accuracy),
             int(row.pinned)))

    def same_content(self, origin: str, content: str) -> list[ClaimRow]:
        return [claim_row(r) for r in self.db.execute(
            f"SELECT {CLAIM_COLUMNS} FROM evo_claims WHERE origin = ? AND content = ?"
            " ORDER BY seq", (origin, content))]

    def worded_index(self, origin: str, states: Sequence[str] = RETIRED_STATES
                     ) -> dict[str, list[str]]:
        """The IDs of the claims of ``origin`` in ``states`` (by default those out of the
        learned set: forgotten, superseded, conflicted) by their text as
        :func:`~waymarks.core.text.normalize` compares texts (case, spacing, closing
        punctuation aside): Waymarks' duplicates. A model says a sentence it was told of
        before with a full stop or a capital changed as often as verbatim. Only the texts
        are read (a whole row decoded per claim took 0.8 s a question at 20k superseded
        project states); a caller asking of many texts reads it once."""
        index: dict[str, list[str]] = {}
        marks = ", ".join("?" * len(states))
        for cid, text in self.db.execute(
                f"SELECT id, content FROM evo_claims WHERE origin = ? AND state IN ({marks})"
                " ORDER BY seq", (origin, *states)):
            index.setdefault(normalize(str(text)), []).append(str(cid))
        return index

    def worded(self, origin: str, content: str, states: Sequence[str] = RETIRED_STATES,
               index: dict[str, list[str]] | None = None) -> list[ClaimRow]:
        """The claims of :meth:`worded_index` (``index``, when read already) saying
        ``content``."""
        found = (self.worded_index(origin, states) if index is None else index).get(
            normalize(content), ())
        return [row for row in map(self.claim, found) if row is not None]

    def forgotten(self, origin: str, content: str,
                  index: dict[str, list[str]] | None = None) -> bool:
        """Whether ``content`` may not be learned in ``origin``: suppressed there (forgotten
        or corrected away), itself or as a duplicate of a claim whose text is (only the
        exact text was refused, and "the database port is 6543." came back after "The
        database port is 6543" was forgotten). ``index``: :meth:`worded_index`'s."""
        return self.suppressed(suppression_key(origin, content)) or any(
            self.suppressed(suppression_key(origin, row.content))
            for row in self.worded(origin, content, index=index))

    def changes(self, event: int) -> list[Change]:
        return [Change(str(cid), _SNAP_DECODER.decode(str(before)) if before else None,
                       _SNAP_DECODER.decode(str(after)) or {})
                for cid, before, after in self.db.execute(
                    "SELECT claim_id, before, after FROM evo_changes WHERE seq = ?"
                    " ORDER BY claim_id", (event,))]

    def receipt(self, source_id: str, claim_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM evo_receipts WHERE source_id = ? AND"
                               " claim_id = ?", (source_id, claim_id)).fetchone() is not None

    def put_receipt(self, source_id: str, claim_id: str, verdict: str, at: str,
                    seq: int) -> None:
        self.db.execute("INSERT OR IGNORE INTO evo_receipts (source_id, claim_id, verdict,"
                        " at, seq) VALUES (?, ?, ?, ?, ?)",
                        (source_id, claim_id, verdict, at, seq))

    def source(self, source_id: str) -> SourceRow | None:
        row = self.db.execute(f"SELECT {SOURCE_COLUMNS} FROM evo_sources WHERE source_id = ?",
                              (source_id,)).fetchone()
        return None if row is None else source_row(row)

    def put_source(self, row: SourceRow) -> None:
        self.db.execute(
            f"INSERT OR REPLACE INTO evo_sources ({SOURCE_COLUMNS})"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row.source_id, row.origin, row.kind, row.basis, row.text, row.classification,
             row.captured_at, row.session, row.seq, row.settled, row.settled_at))

    def suppressed(self, key: str) -> bool:
        return self.db.execute("SELECT 1 FROM evo_suppressed WHERE key = ?",
                               (key,)).fetchone() is not None

    def suppress(self, key: str) -> None:
        self.db.execute("INSERT OR IGNORE INTO evo_suppressed (key) VALUES (?)", (key,))
