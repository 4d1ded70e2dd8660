"""A process opening the database while a repair sets it aside.

The repair renames the database and its ``-wal``/``-shm`` one at a time, under the
writer's turn, which a reader's open does not take. A process whose open fell after the
database's rename and before its log's found no file at the path, made an empty one, and
SQLite deletes the log it finds beside an empty database: the log of the copy being set
aside, which held every commit since its last checkpoint (the copy then failed with a disk
I/O error, and the source exclusions a repair takes over from it were lost). The
companions go first now, the database last: an opener meanwhile meets the old database,
whole or without its log, never a new one beside the old log. Real SQLite, the opener a
real process at every step.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from waymarks import Waymarks
from waymarks.service import recovery
from waymarks.store.integrity import ProjectionDamaged

OPENER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
try:
    db.execute("SELECT count(*) FROM sqlite_master").fetchone()
except sqlite3.Error:
    pass  # (the old database without its log may read as damaged: its own business)
db.close()
"""


READER = """
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
try:
    print(db.execute("PRAGMA integrity_check").fetchone()[0],
          db.execute("SELECT count(*) FROM items").fetchone()[0])
except sqlite3.Error as exc:
    print(exc)
"""


def _copy_read(path: Path) -> str:
    """The copy's integrity and item count, as another process reads it (the holder, in
    this one, would read it through its own connection)."""
    return subprocess.run([sys.executable, "-c", READER, str(path)], capture_output=True,
                          text=True, check=True, timeout=60).stdout.strip()


def test_an_opener_between_the_renames_leaves_the_copy_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, project = tmp_path / "home", tmp_path / "p"
    project.mkdir()
    db_path = home / "waymarks.db"
    holder = Waymarks(home=home, cwd=project)  # a process still holding it (the ui)
    for n in range(3):
        holder.pin(f"rule number {n}")
    assert Path(f"{db_path}-wal").stat().st_size > 0  # the commits are in the log

    renamed: list[str] = []
    real_replace = os.replace

    def replace_then_open(source: str | Path, target: str | Path) -> None:
        real_replace(source, target)
        if Path(source).name.startswith(db_path.name):  # (not the pending list's temp)
            renamed.append(Path(source).name)
            subprocess.run([sys.executable, "-c", OPENER, str(db_path)], check=True,
                           timeout=60)

    monkeypatch.setattr(recovery.os, "replace", replace_then_open)
    projection, note = recovery.start_afresh(db_path, ProjectionDamaged("test"),
                                             datetime.now(UTC))
    monkeypatch.undo()
    projection.close()
    assert _copy_read(Path(note["damaged"])) == "ok 3"  # its log went along
    holder.close()
    assert {"waymarks.db", "waymarks.db-wal"} <= set(renamed)  # an opener at each step
    with Waymarks(home=home, cwd=project) as app:  # the new one fills from the ledger
        assert len(app.items("pin")) == 3
