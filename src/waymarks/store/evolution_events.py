"""The evolution projection's event history: each folded record (``evo_events``), the
claims it changed (``evo_changes``) and the feedback receipts (``evo_receipts``), read by
``evolution history|show`` and ``undo``.

Split from :mod:`waymarks.store.evolution`: :class:`EventReads` is a base of its
:class:`~waymarks.store.evolution.EvolutionStore`, which re-exports :class:`EventRow`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Final

import msgspec

from waymarks.core.codec import INT64_MAX
from waymarks.core.evolution.rows import Change
from waymarks.store.evolution_rows import SqliteEvoView

EVENT_COLUMNS: Final = "seq, entry_id, op, subject, applied, reason, actor, at"


class EventRow(msgspec.Struct, frozen=True):
    """One folded record: what it was, whether it applied (and why not), who, when, and
    the claims it changed (before/after snapshots)."""

    seq: int
    entry_id: str
    op: str
    subject: str
    applied: bool
    reason: str
    actor: str
    at: str
    changes: tuple[Change, ...]


class EventReads:
    """The event-history reads of an evolution store's connection ``db`` and ``view``."""

    db: sqlite3.Connection
    view: SqliteEvoView

    def event(self, seq: int) -> EventRow | None:
        if not 0 < seq <= INT64_MAX:  # no such event; SQLite would refuse the number
            return None
        row = self.db.execute(f"SELECT {EVENT_COLUMNS} FROM evo_events WHERE seq = ?",
                              (seq,)).fetchone()
        return None if row is None else self._event_row(row)

    def undone_by(self, seq: int) -> int | None:
        """The event that undid event ``seq`` (its latest), if one did."""
        row = self.db.execute("SELECT max(seq) FROM evo_events WHERE op = 'undo' AND "
                              "applied = 1 AND subject = ?", (str(seq),)).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def history(self, limit: int = 10, claim_id: str | None = None,
                before: int | None = None) -> list[EventRow]:
        """Events that changed a claim (of ``claim_id`` when given), newest first."""
        sql = (f"SELECT {EVENT_COLUMNS} FROM evo_events WHERE seq IN (SELECT seq FROM"
               " evo_changes" + (" WHERE claim_id = ?" if claim_id else "") + ")")
        args: list[object] = [claim_id] if claim_id else []
        if before is not None:
            sql += " AND seq < ?"
            args.append(before)
        rows = self.db.execute(sql + " ORDER BY seq DESC LIMIT ?", [*args, limit]).fetchall()
        return [self._event_row(r) for r in rows]

    def _event_row(self, row: Sequence[object]) -> EventRow:
        seq, entry, op, subject, applied, reason, actor, at = row
        return EventRow(int(seq), str(entry), str(op), str(subject),  # type: ignore[call-overload]
                        bool(applied), str(reason), str(actor), str(at),
                        tuple(self.view.changes(int(seq))))  # type: ignore[call-overload]

    def receipts(self, claim_id: str) -> list[tuple[str, str, str, int]]:
        """(source, verdict, at, seq) of every feedback receipt on ``claim_id``."""
        return [(str(s), str(v), str(a), int(q)) for s, v, a, q in self.db.execute(
            "SELECT source_id, verdict, at, seq FROM evo_receipts WHERE claim_id = ?"
            " ORDER BY seq", (claim_id,))]
