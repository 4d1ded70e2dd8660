"""A read-only probe of the evolution projection, for a host's hook path.

Capture asks one thing before it opens anything heavier: which of these sources are
already known? It opens ``waymarks.db`` read-only (no migration, no write, no ledger
read) and answers from ``evo_sources``. A projection that lags behind the ledger can
only under-report, and then capture appends a record the fold ignores as a duplicate
(first wins): harmless. A missing database or table means "none known".
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path


def known_sources(db_path: Path, ids: Sequence[str]) -> set[str]:
    if not ids or not db_path.is_file():
        return set()
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=1.0)
    except sqlite3.Error:
        return set()
    try:
        marks = ",".join("?" * len(ids))
        return {str(r[0]) for r in db.execute(
            f"SELECT source_id FROM evo_sources WHERE source_id IN ({marks})", list(ids))}
    except sqlite3.Error:
        return set()
    finally:
        db.close()
