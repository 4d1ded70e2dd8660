"""A repair killed between its renames (the database's -shm and -wal renamed, the
database not yet): the damaged database stayed at the path without its log and the copy
was a -wal and a -shm under a name no database had. The next command used the database
left at the path, said it had been set aside under that name, and ``health`` listed no
copy. The next open finishes the rename: the copy is whole under its name, listed, and
the new database is built from the session files. Real processes: the repair is killed.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from waymarks.service.app import Waymarks
from waymarks.service.recovery import damaged_copies

KILLED = """
import os, sys
from datetime import UTC, datetime
from pathlib import Path
from waymarks.service import recovery
from waymarks.store.integrity import ProjectionDamaged

real = os.replace

def replace(source, target):
    real(source, target)
    if str(source).endswith("-wal"):
        os._exit(9)  # killed between the log's rename and the database's

os.replace = replace
recovery.start_afresh(Path(sys.argv[1]), ProjectionDamaged("test"), datetime.now(UTC))
"""


def test_a_repair_killed_between_its_renames_is_finished_by_the_next_open(
        make_app: Callable[..., Waymarks], home: Path, project: Path) -> None:
    holder = make_app()  # a process holding the database: its log stays beside it
    holder.trust(str(project))
    holder.session_new()
    holder.pin("Always tag releases from main", scope="project")
    assert [v.text for v in holder.items("pin")] == ["Always tag releases from main"]
    db_path = home / "waymarks.db"
    done = subprocess.run([sys.executable, "-c", KILLED, str(db_path)], timeout=120,
                          check=False, capture_output=True, text=True)
    assert done.returncode == 9, done.stderr
    [log] = home.glob("waymarks.db.damaged-*-wal")
    aside = str(log)[:-len("-wal")]
    assert db_path.exists() and not Path(aside).exists()  # stopped between the renames
    again = make_app(session=holder.current_session().session_id)  # type: ignore[union-attr]
    assert [v.text for v in again.items("pin")] == ["Always tag releases from main"]
    assert again.recovered is not None and again.recovered["damaged"] == aside
    assert Path(aside).is_file()  # the copy the note names is there
    assert damaged_copies(db_path) == [aside]


def test_a_killed_repairs_log_left_alone_is_listed_to_be_deleted(
        make_app: Callable[..., Waymarks], home: Path, project: Path) -> None:
    """The same kill, then the person deletes ``waymarks.db`` to start over: the copy's
    -wal and -shm stay under a name no database has. They were listed nowhere (only a
    whole copy was), so ``health`` never named them for deleting; they are listed as the
    set-aside files they are."""
    holder = make_app()
    holder.trust(str(project))
    holder.session_new()
    holder.pin("Always tag releases from main", scope="project")
    db_path = home / "waymarks.db"
    done = subprocess.run([sys.executable, "-c", KILLED, str(db_path)], timeout=120,
                          check=False, capture_output=True, text=True)
    assert done.returncode == 9, done.stderr
    left = sorted(str(p) for p in home.glob("waymarks.db.damaged-*-[ws][ah][lm]"))
    assert left and all(p.endswith(("-wal", "-shm")) for p in left)
    db_path.unlink()
    again = make_app(session=holder.current_session().session_id)  # type: ignore[union-attr]
    assert [v.text for v in again.items("pin")] == ["Always tag releases from main"]
    assert damaged_copies(db_path) == left
    assert set(left) <= set(again.health()["damagedCopies"])
