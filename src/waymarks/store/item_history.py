"""What happened to items over time, read from the projection's mutations: when each was
last changed, and every applied or ignored mutation that named it (for ``memory show``,
and the "updated" date of lists).

Read-only, and only for IDs the caller already knows to be visible to the session.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from waymarks.core.codec import payload_digest

_CHUNK = 500  # SQLite's host-parameter limit is far above this; keeps statements small


def last_changed(db: sqlite3.Connection, ids: Sequence[str]) -> dict[str, int]:
    """For each item in ``ids``: the time (ms) of the newest applied mutation naming it
    (its creation, a status change, or a supersession that created it)."""
    found: dict[str, int] = {}
    unique = list(dict.fromkeys(ids))
    # each ID one seek in ``mutations_by_target`` (a long list once read every mutation)
    for start in range(0, len(unique), _CHUNK):
        chunk = unique[start:start + _CHUNK]
        rows = db.execute(
            "SELECT target_id, max(timestamp_ms) FROM mutations WHERE effect = 'applied'"
            f" AND target_id IN ({','.join('?' * len(chunk))}) GROUP BY target_id", chunk)
        found.update({str(target): int(when) for target, when in rows})
    return found


def mutations_of(db: sqlite3.Connection, item_id: str
                 ) -> list[tuple[int, str, str, str, str, str | None]]:
    """Every mutation naming ``item_id``, oldest first: (time ms, session ID, entry ID,
    operation, effect, note)."""
    return [(int(when), str(session), str(entry), str(op), str(effect), note)
            for when, session, entry, op, effect, note in db.execute(
                "SELECT timestamp_ms, session_id, entry_id, operation, effect, note"
                " FROM mutations WHERE target_id = ? ORDER BY timestamp_ms, seq", (item_id,))]


def stored_payloads(db: sqlite3.Connection, session_id: str) -> dict[str, bytes]:
    """Each stored mutation of a session: entry ID -> a digest of its payload as
    projected (:func:`~waymarks.core.codec.payload_digest`; digests, not payloads: a
    whole check of 100k mutations holds 16 bytes of each)."""
    return {str(entry): payload_digest(bytes(payload)) for entry, payload in db.execute(
        "SELECT entry_id, payload FROM mutations WHERE session_id = ?", (session_id,))}
