"""Source exclusions across a repair of a damaged database: a repair that stops before the
new database holds them (a full disk, a kill) must not forget them (the next command
takes them over from the copy set aside), and a copy that cannot say what it held is a
loss that is said, never taken for "nothing was excluded"."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CountingIds
from tests.durability.test_disk_full import fill, small_fs
from tests.service.test_cross_session import assert_loss_said, claims
from tests.service.test_cross_session import excluded_then_damaged as excluded_then_damaged_in
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import ServiceError
from waymarks.service.recovery import damaged_copies
from waymarks.service.sources import list_sources

SECRET_MEMORY = "Experimental flag FOO is enabled"


def changed_cell(db: Path) -> None:
    """Damage one row: its checksum no longer matches."""
    con = sqlite3.connect(db)
    assert con.execute("UPDATE mutations SET note = 'x'").rowcount
    con.commit()
    con.close()


def excluded_then_damaged(two_sessions: Callable[[], tuple[Waymarks, Waymarks]],
                          home: Path) -> tuple[str, str]:
    """A session holding a project memory, excluded from another; the database damaged.
    Returns (the excluded session's ID, the other's)."""
    return excluded_then_damaged_in(two_sessions, home, SECRET_MEMORY, changed_cell)


def assert_still_excluded(app: Waymarks, excluded: str) -> None:
    assert claims(app) == []
    assert [s.excluded for s in list_sources(app) if s.session_id == excluded] == [True]
    report = app.health()
    assert report["ok"], report["problems"]


__all__ = ["small_fs"]  # the fixture, used here


@pytest.fixture
def home(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """On the small file system for a test that asks for it (needs root)."""
    if "small_fs" in request.fixturenames:
        return Path(request.getfixturevalue("small_fs")) / "home"
    return tmp_path / "home"


def test_a_repair_the_full_disk_stopped_keeps_the_exclusions(
        make_app: Callable[..., Waymarks], home: Path, small_fs: Path,
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]]) -> None:
    # the damaged file was renamed aside, the new one could not be built, and the next
    # command found a fresh database that never read the copy: the excluded session's
    # memory applied again and health said OK
    excluded, session = excluded_then_damaged(two_sessions, home)
    filler = fill(small_fs)
    os.truncate(filler, filler.stat().st_size - 16 * 4096)  # room to set it aside only
    failing = make_app(ids=CountingIds(3), session=session)
    with pytest.raises(ServiceError, match="full"):
        claims(failing)
    failing.close()
    assert damaged_copies(home / "waymarks.db")  # stopped after setting it aside
    filler.unlink()
    again = make_app(ids=CountingIds(4), session=session)
    assert_still_excluded(again, excluded)
    assert not (home / "waymarks.db.exclusions-pending").exists()


KILLED_REPAIR = textwrap.dedent("""
    import glob, os, signal, sys
    from pathlib import Path
    from waymarks.service.app import Waymarks

    home, cwd, session = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    db = str(home / "waymarks.db")

    def hook(event, args):
        # killed as the repair opens the new database: the damaged one is renamed aside
        if event == "sqlite3.connect" and str(args[0]) == db and glob.glob(db + ".dam*"):
            os.kill(os.getpid(), signal.SIGKILL)

    sys.addaudithook(hook)
    Waymarks(home, cwd=cwd, session=session).items("memory")
    print("not killed")
""")


def killed_repair(home: Path, project: Path, session: str) -> str:
    """Run a command that finds the database damaged, killed once it is set aside;
    the copy's path."""
    done = subprocess.run([sys.executable, "-c", KILLED_REPAIR, str(home), str(project),
                           session], capture_output=True, text=True, check=False)
    assert done.returncode == -9, (done.stdout, done.stderr)
    [aside] = damaged_copies(home / "waymarks.db")
    return aside


def test_a_repair_killed_after_setting_the_database_aside_keeps_the_exclusions(
        make_app: Callable[..., Waymarks], home: Path, project: Path,
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]]) -> None:
    excluded, session = excluded_then_damaged(two_sessions, home)
    aside = killed_repair(home, project, session)
    assert (home / "waymarks.db.exclusions-pending").read_text() == f"{Path(aside).name}\n"
    again = make_app(ids=CountingIds(4), session=session)
    assert_still_excluded(again, excluded)
    assert again.recovered is not None and again.recovered["damaged"] == aside
    assert "stopped before it took over the source exclusions" in again.recovered["problem"]
    assert damaged_copies(home / "waymarks.db") == [aside]  # nothing set aside twice
    assert not (home / "waymarks.db.exclusions-pending").exists()


def test_a_long_pending_list_is_still_taken_over(
        make_app: Callable[..., Waymarks], home: Path, project: Path,
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]]) -> None:
    """A re-read: the list was read only up to 1 MiB (a FIFO in its place had hung every
    command), and a longer one was taken for none and deleted: the excluded session's
    memory applied again, and nothing said so."""
    excluded, session = excluded_then_damaged(two_sessions, home)
    aside = killed_repair(home, project, session)
    pending = home / "waymarks.db.exclusions-pending"
    pending.write_text(f"{Path(aside).name}\n" + "\n" * (1 << 20))
    again = make_app(ids=CountingIds(4), session=session)
    assert_still_excluded(again, excluded)
    assert not pending.exists()


def test_a_copy_gone_before_its_exclusions_were_taken_over_is_a_health_problem(
        make_app: Callable[..., Waymarks], home: Path, project: Path,
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]]) -> None:
    _excluded, session = excluded_then_damaged(two_sessions, home)
    Path(killed_repair(home, project, session)).unlink()
    again = make_app(ids=CountingIds(4), session=session)
    assert claims(again) == [SECRET_MEMORY]  # counted again: said so
    assert_loss_said(again, "is gone")
    assert "could not all be read" in again.recovered["caveats"][0]  # type: ignore[index]


def test_a_copy_without_its_exclusions_table_is_a_loss_not_none_excluded(
        make_app: Callable[..., Waymarks], home: Path,
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]]) -> None:
    # a missing table read as "nothing was ever excluded": the excluded memory applied
    # again, the repair's note had no caveat and health said OK
    _excluded, session = excluded_then_damaged(two_sessions, home)
    con = sqlite3.connect(home / "waymarks.db")
    con.execute("DROP TABLE source_exclusions")
    con.commit()
    con.close()
    again = make_app(ids=CountingIds(4), session=session)
    assert claims(again) == [SECRET_MEMORY]
    assert_loss_said(again, "source_exclusions")
    assert len(again.recovered["caveats"]) == 1  # type: ignore[index]
    assert "could not all be read" in again.recovered["caveats"][0]  # type: ignore[index]


def test_a_copy_from_before_exclusions_existed_held_none(tmp_path: Path) -> None:
    from waymarks.store.salvage import read_exclusions

    old = tmp_path / "waymarks.db.damaged-20260101T000000000000Z"
    con = sqlite3.connect(old)
    con.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT,"
                " applied_at INTEGER)")
    con.executemany("INSERT INTO schema_migrations VALUES (?, 'step', 0)",
                    [(v,) for v in range(1, 5)])  # the table came with step 5
    con.commit()
    con.close()
    assert read_exclusions(old, "exclusions_lost") == ([], None)
