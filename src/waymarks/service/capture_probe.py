"""The hook path's first question: which of these captures are new? (cheap; see
:mod:`waymarks.store.evolution_probe`). Only what is new opens the evolution ledger."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from waymarks.core.evolution.cues import source_id
from waymarks.store.evolution_probe import known_sources

DB_NAME = "waymarks.db"


def unknown(home: Path, origin: str, session: str,
            items: Sequence[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """The (kind, key, text) items whose source is not in the projection yet."""
    if not items:
        return []
    ids = [source_id(origin, kind, session, key) for kind, key, _ in items]
    known = known_sources(home / DB_NAME, ids)
    return [item for item, sid in zip(items, ids, strict=True) if sid not in known]
