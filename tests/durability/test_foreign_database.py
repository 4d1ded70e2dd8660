"""A sound SQLite database that Waymarks did not write, found at the projection's path, is
set aside untouched (renamed, byte for byte the same) with a note, and a fresh projection
is rebuilt from the session files. Before, it was adopted: Waymarks' tables were created
and migrated in place beside the other program's, and the file left in WAL mode."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from tests.inprocess import Ran, waymarks


def _cli(home: Path, project: Path, *args: str) -> Ran:
    return waymarks("--home", str(home), "--cwd", str(project), *args)


def _foreign(path: Path) -> str:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    db.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT)")  # a shared name
    db.executemany("INSERT INTO customers (name) VALUES (?)", [("Ann",), ("Bo",)])
    db.commit()
    db.close()
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("first", [("pins",), ("--json", "pins"), ("health",),
                                   ("recall", "tests")])
def test_a_foreign_database_is_set_aside_untouched_and_the_projection_rebuilt(
        tmp_path: Path, first: tuple[str, ...]) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    assert _cli(home, project, "pin", "Run the tests first").returncode == 0
    for path in home.glob("waymarks.db*"):
        if path.name != "waymarks.db.lock":
            path.unlink()
    digest = _foreign(home / "waymarks.db")
    done = _cli(home, project, *first)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    aside = [p for p in home.glob("waymarks.db.damaged-*") if not p.name.endswith(
        ("-wal", "-shm"))]
    assert len(aside) == 1, sorted(p.name for p in home.iterdir())
    assert hashlib.sha256(aside[0].read_bytes()).hexdigest() == digest  # bytes unchanged
    said = done.stdout + done.stderr
    assert "Waymarks did not write" in said and str(aside[0]) in said
    if "--json" not in first:  # the note says what happened, not that it was damaged
        [note] = [line for line in said.splitlines() if str(aside[0]) in line]
        assert "could not be used" in note and "damaged" not in note.replace(str(aside[0]), "")
    # the projection is Waymarks' own again, with no trace of the other program's tables
    db = sqlite3.connect(home / "waymarks.db")
    tables = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    db.close()
    assert "customers" not in tables and "schema_migrations" in tables
    pins = json.loads(_cli(home, project, "--json", "pins").stdout)["items"]
    assert [p["text"] for p in pins] == ["Run the tests first"]
    health = json.loads(_cli(home, project, "--json", "health").stdout)
    assert health["ok"], health


def test_an_empty_database_file_is_still_made_the_projection(tmp_path: Path) -> None:
    # no tables at all: a file created for the projection, not another program's
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    home.mkdir()
    (home / "waymarks.db").write_bytes(b"")
    assert _cli(home, project, "pin", "Run the tests first").returncode == 0
    assert not list(home.glob("waymarks.db.damaged-*"))


def test_the_learned_memory_store_refuses_a_foreign_database_before_writing(
        tmp_path: Path) -> None:
    from waymarks.store.evolution import EvolutionStore
    from waymarks.store.integrity import ProjectionDamaged, ProjectionForeign

    path = tmp_path / "waymarks.db"
    digest = _foreign(path)
    with pytest.raises(ProjectionForeign) as raised:
        EvolutionStore(path, 0)
    assert isinstance(raised.value, ProjectionDamaged)  # so it is set aside and rebuilt
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
