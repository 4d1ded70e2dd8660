"""What ``health`` reports: is the projection complete, and what in the ledgers was not used.

``integrity`` is ``"ok"`` or the first problem the whole-database check found (structure,
index entries, every row's checksum, the item counts, the full-text indexes): health is
the one place that pays for it at any size (see :mod:`waymarks.store.integrity`).
"""

from __future__ import annotations

import os
from typing import Any

from waymarks.store.integrity import fts_problems, verify_all
from waymarks.store.migrations import current_version
from waymarks.store.projection import Projection

MAX_DETAILS = 20


def health_report(projection: Projection) -> dict[str, Any]:
    db = projection.db
    sources = []
    for session_id, path, offset, lines, entries in db.execute(
        "SELECT session_id, path, byte_offset, lines, entries FROM sources ORDER BY path"
    ):
        size = os.path.getsize(path) if os.path.isfile(path) else None
        sources.append({
            "sessionId": session_id, "path": path, "exists": size is not None,
            "checkpointOffset": offset, "fileSize": size, "lines": lines, "entries": entries,
            "unreadBytes": None if size is None else max(size - offset, 0),
        })
    anomaly_counts = dict.fromkeys(("skipped", "unknown", "malformed"), 0)
    for kind, count in db.execute("SELECT kind, count(*) FROM anomalies GROUP BY kind"):
        anomaly_counts[kind] = count
    anomalies = [
        {"sessionId": sid, "line": line, "entryId": entry_id, "kind": kind, "detail": detail}
        for sid, line, entry_id, kind, detail in db.execute(
            "SELECT session_id, line, entry_id, kind, detail FROM anomalies"
            " ORDER BY session_id, line LIMIT ?", (MAX_DETAILS,))
    ]
    ignored = [
        {"sessionId": sid, "entryId": entry_id, "note": note}
        for sid, entry_id, note in db.execute(
            "SELECT session_id, entry_id, note FROM mutations WHERE effect = 'ignored'"
            " ORDER BY seq LIMIT ?", (MAX_DETAILS,))
    ]
    ignored_total = db.execute(
        "SELECT count(*) FROM mutations WHERE effect = 'ignored'").fetchone()[0]
    mutations = db.execute("SELECT count(*) FROM mutations").fetchone()[0]
    problems = verify_all(db) or fts_problems(db, ("items_fts", "recall_terms"))
    integrity = problems[0] if problems else "ok"
    ok = integrity == "ok" and all(s["exists"] for s in sources)
    return {
        "ok": ok, "schemaVersion": current_version(db), "integrity": integrity,
        "mutations": mutations, "ignoredMutations": ignored_total, "ignored": ignored,
        "sources": sources, "anomalyCounts": anomaly_counts, "anomalies": anomalies,
    }

