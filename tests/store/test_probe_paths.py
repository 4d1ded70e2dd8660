"""The read-only evolution probe in a home whose path holds URI characters.

The probe opened ``file:{path}?mode=ro``: a ``#`` in the home's path started a fragment
there, so SQLite opened the path cut at it, read-write, creating an empty file outside the
home, and the sound projection was reported unreadable."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from waymarks.store.evolution_probe import check_projection, known_sources


def test_the_probe_reads_a_home_whose_path_holds_uri_characters(tmp_path: Path) -> None:
    home = tmp_path / "work #1 ?50%"
    home.mkdir()
    db_path = home / "waymarks.db"
    db = sqlite3.connect(db_path)
    with db:
        db.execute("CREATE TABLE evo_sources (source_id TEXT)")
        db.execute("INSERT INTO evo_sources VALUES ('s1')")
        db.execute("CREATE TABLE schema_migrations (version INTEGER)")
    db.close()
    assert known_sources(db_path, ["s1", "s2"]) == {"s1"}
    assert check_projection(db_path)["readable"] is True
    assert sorted(p.name for p in tmp_path.iterdir()) == [home.name]  # nothing made beside
