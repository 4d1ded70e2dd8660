"""The database cut to nothing (``: > waymarks.db``) while another process holds it open.

The holder (a ``waymarks ui``, an MCP server) keeps SQLite's shared lock on the file, the
same file after a truncation. Every other process opening it found an empty database in
rollback mode, asked for the exclusive lock that switching it to WAL needs, and waited out
its busy timeout for a lock the idle holder never gave up: each command and each prompt's
hook failed 'another process kept waymarks.db locked for too long' until the holder was
stopped. A database of no bytes beside a write-ahead log or its index is one cut under
its log (SQLite writes the header before it makes either), so it is damage: set aside,
the new file at the path is one the holder's lock does not cover, and the holder, which
sees the same file at the path, notices the truncation itself and reopens.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.durability.test_replaced_reads import cli
from waymarks.service.app import Waymarks
from waymarks.service.recovery import open_job_store
from waymarks.store.integrity import ProjectionDamaged
from waymarks.store.projection import Projection

HOLDER = """
import sys
from pathlib import Path
from waymarks.store.projection import Projection
held = Projection(Path(sys.argv[1]), 0)
held.db.execute("SELECT count(*) FROM items").fetchone()
print("ready", flush=True)
sys.stdin.read()  # idle, its connection open (a ui between two pages)
"""

QUEUE_HOLDER = """
import sys
from pathlib import Path
from waymarks.store.jobs import JobStore
held = JobStore.open(Path(sys.argv[1]))
held.open_jobs()
print("ready", flush=True)
sys.stdin.read()  # a learning worker, or the ui's evolution page, between two reads
"""

OPENER = """
import sys
from pathlib import Path
from waymarks.store.projection import Projection
Projection(Path(sys.argv[1]), 0, busy_timeout_ms=2000).close()
"""


def _holder(make_app: Callable[..., Waymarks], project: Path) -> tuple[Waymarks, str]:
    holder = make_app()
    holder.trust(str(project))
    holder.session_new()
    holder.pin("Always tag releases from main", scope="project")
    session = holder.current_session()
    assert session is not None
    assert _pins(holder) == ["Always tag releases from main"]  # a read, as the ui's page
    return holder, session.session_id


def _pins(app: Waymarks) -> list[str]:
    return [v.text for v in app.items("pin") if v.applies]


def test_another_process_opens_a_database_cut_to_nothing_under_a_holder(
        make_app: Callable[..., Waymarks], home: Path, project: Path) -> None:
    writer, session = _holder(make_app, project)
    writer.close()
    db_path = home / "waymarks.db"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db_path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "ready\n"
        db_path.write_bytes(b"")  # the same file, cut to nothing, the holder's lock on it
        listed = cli(home, project, session, "pins")
    finally:
        holder.communicate("", timeout=60)
    assert [p["text"] for p in listed["items"]] == ["Always tag releases from main"]
    copies = [c for c in home.glob("waymarks.db.damaged-*")
              if not c.name.endswith(("-wal", "-shm", "-journal"))]
    assert [c.stat().st_size for c in copies] == [0]  # the cut file, kept


def test_the_holder_notices_its_database_cut_to_nothing(
        make_app: Callable[..., Waymarks], home: Path, project: Path) -> None:
    holder, _ = _holder(make_app, project)
    db_path = home / "waymarks.db"
    db_path.write_bytes(b"")
    assert _pins(holder) == ["Always tag releases from main"]
    assert holder.recovered is not None  # said, as any repair
    # and the file it made is one another process opens at once
    subprocess.run([sys.executable, "-c", OPENER, str(db_path)], check=True, timeout=60)


def test_a_database_left_empty_before_its_first_write_is_just_filled(tmp_path: Path) -> None:
    db_path = tmp_path / "waymarks.db"
    db_path.write_bytes(b"")  # a crash after the file was made, before SQLite wrote it
    Path(f"{db_path}-journal").write_bytes(b"")  # (a rollback journal's leftover too)
    Projection(db_path, 0).close()
    assert db_path.stat().st_size > 0  # filled, not set aside
    assert not list(tmp_path.glob("*.damaged-*"))
    cut = tmp_path / "cut.db"
    cut.write_bytes(b"")
    Path(f"{cut}-shm").write_bytes(b"")  # a log's index: the file was cut under its log
    with pytest.raises(ProjectionDamaged, match="cut to zero bytes"):
        Projection(cut, 0)
    assert Path(f"{cut}-shm").exists()  # not SQLite's to delete: the holder's


def test_the_learning_queue_cut_to_nothing_under_a_holder_is_made_anew(home: Path) -> None:
    home.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", QUEUE_HOLDER, str(home)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "ready\n"
        (home / "evolution.db").write_bytes(b"")
        store = open_job_store(home, datetime.now(UTC))  # was: locked for too long, 30 s
        assert store.open_jobs() == 0
        store.close()
    finally:
        holder.communicate("", timeout=60)
    copies = [c for c in home.glob("evolution.db.damaged-*")
              if not c.name.endswith(("-wal", "-shm", "-journal"))]
    assert [c.stat().st_size for c in copies] == [0]
