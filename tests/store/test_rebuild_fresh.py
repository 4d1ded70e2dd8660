"""``rebuild-index`` writes a new file and puts it in the projection's place once whole
(:func:`waymarks.store.rebuild.rebuild_fresh`): the rows are a rebuild's, the local state
(source exclusions, stored vectors) is kept, other processes' readers go on, and a reader
holding an older snapshot has the new pages copied in instead of the file renamed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.store.test_rebuild import delete_db, snapshot
from waymarks.service.app import Waymarks
from waymarks.store.writer_lock import file_identity


def _home(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    with Waymarks(home, cwd=str(project)) as app:
        app.pin("Run the linters before merging.")
        for n in range(12):
            app.remember(f"the service {n} listens on port {6000 + n}")
    return home, project


def test_rebuild_index_renames_a_new_file_with_the_rows_and_the_local_state(
        tmp_path: Path) -> None:
    home, project = _home(tmp_path)
    db_path = home / "waymarks.db"
    before = snapshot(db_path)
    db = sqlite3.connect(db_path)
    with db:  # local state a rebuild must keep (a table it does not write)
        db.execute("INSERT INTO source_exclusions (session_id, reason, excluded_at)"
                   " VALUES ('some-session', 'kept', 1)")
        generation = int(db.execute("SELECT value FROM meta WHERE name = "
                                    "'recall_generation'").fetchone()[0])
    db.close()
    found = file_identity(db_path)
    with Waymarks(home, cwd=str(project)) as other:  # a reader open on the old file
        assert len(other.items("memory")) == 12
        with Waymarks(home, cwd=str(project)) as app:
            assert app.rebuild_index()["mutations"] == 13
            assert len(app.items("memory")) == 12  # open on the new file
        assert file_identity(db_path) != found  # a new file, renamed into place
        assert len(other.items("memory")) == 12  # reopened at its next request
    assert not Path(f"{db_path}.rebuilding").exists()
    assert snapshot(db_path) == before
    db = sqlite3.connect(db_path)
    try:
        assert db.execute("SELECT session_id, reason FROM source_exclusions").fetchall() == [
            ("some-session", "kept")]
        assert int(db.execute("SELECT value FROM meta WHERE name = 'recall_generation'"
                              ).fetchone()[0]) == generation + 1
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        db.close()
    delete_db(home)  # and the same rows as a database filled from nothing
    with Waymarks(home, cwd=str(project)) as app:
        assert len(app.items("memory")) == 12
    assert snapshot(db_path) == before


def test_a_reader_of_an_older_snapshot_has_the_new_pages_copied_in(tmp_path: Path) -> None:
    home, project = _home(tmp_path)
    db_path = home / "waymarks.db"
    found = file_identity(db_path)
    reader = sqlite3.connect(db_path, isolation_level=None)
    try:
        reader.execute("BEGIN")
        held = reader.execute("SELECT count(*) FROM items").fetchone()[0]
        with Waymarks(home, cwd=str(project)) as app:
            app.remember("the gateway times out after 30 seconds")  # (a log to copy)
            assert app.rebuild_index()["mutations"] == 14
            assert len(app.items("memory")) == 13
        # the reader still reads its snapshot; the file was not replaced
        assert reader.execute("SELECT count(*) FROM items").fetchone()[0] == held
        reader.execute("COMMIT")
        assert reader.execute("SELECT count(*) FROM items").fetchone()[0] == held + 1
    finally:
        reader.close()
    assert file_identity(db_path) == found
    assert not Path(f"{db_path}.rebuilding").exists()
    with Waymarks(home, cwd=str(project)) as app:
        assert app.health()["ok"] is True
