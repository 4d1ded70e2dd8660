"""A read-only probe of the evolution projection, for a host's hook path.

Capture asks one thing before it opens anything heavier: which of these sources are
already known? It opens ``waymarks.db`` read-only (no migration, no write, no ledger
read) and answers from ``evo_sources``. A projection that lags behind the ledger can
only under-report, and then capture appends a record the fold ignores as a duplicate
(first wins): harmless. A missing database or table means "none known".
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from waymarks.store.private import uri


def known_sources(db_path: Path, ids: Sequence[str]) -> set[str]:
    return _among(db_path, ids, "")


def settled_sources(db_path: Path, ids: Sequence[str]) -> set[str]:
    """Which of ``ids`` the projection holds settled, read-only (the queue's jobs heal from
    it: :meth:`~waymarks.store.jobs.JobStore.heal`)."""
    return _among(db_path, ids, " AND settled IS NOT NULL")


def _among(db_path: Path, ids: Sequence[str], where: str) -> set[str]:
    if not ids:
        return set()
    marks = ",".join("?" * len(ids))
    return _source_ids(db_path, f"SELECT source_id FROM evo_sources WHERE source_id IN "
                                f"({marks}){where}", list(ids))


def known_claims(db_path: Path, ids: Sequence[str]) -> set[str]:
    """Which of ``ids`` are the IDs of learned claims the projection holds (any state),
    read-only: a team item copying one is left out of plans (:mod:`.team_views`)."""
    if not ids:
        return set()
    return _source_ids(db_path, f"SELECT id FROM evo_claims WHERE id IN "
                                f"({','.join('?' * len(ids))})", list(ids))


def _source_ids(db_path: Path, sql: str, args: Sequence[str] = ()) -> set[str]:
    """The source IDs ``sql`` selects, read-only; none without a projection or its
    learned tables (a missing or unreadable database means "none known")."""
    if not db_path.is_file():
        return set()
    try:
        db = sqlite3.connect(uri(db_path, "mode=ro"), uri=True, timeout=1.0)
    except sqlite3.Error:
        return set()
    try:
        return {str(r[0]) for r in db.execute(sql, list(args))}
    except sqlite3.Error:
        return set()
    finally:
        db.close()


CLAIM_STATES = frozenset({"provisional", "conflicted", "superseded", "forgotten"})
_LIMIT_NAMED = 20


def unsettled_sources(db_path: Path) -> set[str]:
    """The captured sources the projection holds unsettled, read-only."""
    return _source_ids(db_path, "SELECT source_id FROM evo_sources WHERE settled IS NULL")


def every_settled_source(db_path: Path) -> set[str]:
    """Every source the projection holds settled, read-only (``evolution status`` counts
    those the queue never held a job for: a forget settles queued repeats itself)."""
    return _source_ids(db_path, "SELECT source_id FROM evo_sources WHERE settled IS NOT NULL")


def check_projection(db_path: Path) -> dict[str, object]:
    """Validate the evolution projection row by row, read-only (``evolution status``,
    EVOLUTION item 79): claims (well formed, ID = hash of origin/kind/content), sources,
    history (events and their change snapshots), feedback receipts and the schema marker.
    Returns IDs and counts only, never content. A damaged row is only named here; readers
    leave it out, and ``waymarks rebuild-index`` folds the ledger again (the projection is
    disposable)."""
    from waymarks.core.evolution.fold import EFFECT_OPS
    from waymarks.core.evolution.model import BASES, KINDS, VERDICTS, claim_id
    from waymarks.store.migrations import LATEST_VERSION

    report: dict[str, object] = {"exists": db_path.is_file()}
    if not db_path.is_file():
        return report
    try:
        db = sqlite3.connect(uri(db_path, "mode=ro"), uri=True, timeout=5.0)
    except sqlite3.Error:
        return {**report, "readable": False}
    bad: dict[str, list[str]] = {"claims": [], "sources": [], "history": [], "receipts": []}
    try:
        schema = db.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]
        report["schema"], report["expectedSchema"] = schema, LATEST_VERSION
        tables = {str(r[0]) for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'evo_%'")}
        if "evo_claims" not in tables:
            return {**report, "readable": True, "tables": False,
                    "ok": schema == LATEST_VERSION}
        folded = db.execute("SELECT value FROM evo_meta WHERE name = 'folded'").fetchone()
        report["marker"] = folded is None or str(folded[0]).isdigit()
        for cid, origin, kind, content, state, basis in db.execute(
                "SELECT id, origin, kind, content, state, basis FROM evo_claims"):
            if (kind not in KINDS or state not in CLAIM_STATES or basis not in BASES
                    or not isinstance(content, str) or not isinstance(origin, str)
                    or cid != claim_id(origin, kind, content)):
                bad["claims"].append(str(cid))
        for sid, origin, text, level, settled in db.execute(
                "SELECT source_id, origin, text, classification, settled FROM evo_sources"):
            if (not sid or not origin or not isinstance(text, str)
                    or level not in ("normal", "internal", "sensitive", "local-only")
                    or (settled is not None and not isinstance(settled, str))):
                bad["sources"].append(str(sid))
        for seq, op, applied, subject in db.execute(
                "SELECT seq, op, applied, subject FROM evo_events"):
            if op not in EFFECT_OPS or applied not in (0, 1) or not isinstance(subject, str):
                bad["history"].append(str(seq))
        for seq, claim, before, after in db.execute(
                "SELECT seq, claim_id, before, after FROM evo_changes"):
            if not _snapshot(after, False) or not _snapshot(before, True):
                bad["history"].append(f"{seq}:{claim}")
        for source, claim, _verdict in db.execute(
                "SELECT r.source_id, r.claim_id, r.verdict FROM evo_receipts r"
                " LEFT JOIN evo_claims c ON c.id = r.claim_id WHERE c.id IS NULL"
                " OR r.verdict NOT IN (" + ",".join("?" * len(VERDICTS)) + ")",
                sorted(VERDICTS)):
            bad["receipts"].append(f"{source}:{claim}")
    except sqlite3.Error:
        return {**report, "readable": False, "ok": False}
    finally:
        db.close()
    ok = (report.get("schema") == LATEST_VERSION and bool(report.get("marker"))
          and not any(bad.values()))
    return {**report, "readable": True, "tables": True, "ok": ok,
            "bad": {k: {"count": len(v), "ids": v[:_LIMIT_NAMED]} for k, v in bad.items()}}


def _snapshot(value: object, optional: bool) -> bool:
    if value is None:
        return optional
    try:
        return isinstance(json.loads(str(value)), dict)
    except ValueError:
        return False
