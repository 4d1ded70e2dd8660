"""The SQLite files Waymarks creates hold every stored text (local-only items too): only
their owner may read them, as only the owner may read the session ledgers. A home that
Waymarks creates is private; a database an earlier release left readable by others is
narrowed when it is next opened. Checked through the real ``waymarks`` entry point under
the usual umask (022), which SQLite would otherwise apply."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from tests.inprocess import waymarks
from waymarks.store.jobs import JobStore


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _waymarks(home: Path, project: Path, *args: str) -> None:
    old = os.umask(0o022)
    try:
        done = waymarks(*args, env={"WAYMARKS_HOME": str(home)}, cwd=project)
    finally:
        os.umask(old)
    assert done.returncode == 0, (args, done.stdout, done.stderr)


def test_a_new_home_and_its_databases_are_private(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "new" / "home"
    _waymarks(home, project, "memory", "add", "--", "The staging password day is Tuesday.")
    assert _mode(home) == 0o700
    db = home / "waymarks.db"
    assert _mode(db) == 0o600
    # what SQLite creates beside it takes the database's permissions
    holder = sqlite3.connect(db)
    holder.execute("SELECT count(*) FROM items").fetchone()
    companions = [p for p in (home / "waymarks.db-wal", home / "waymarks.db-shm")
                  if p.exists()]
    assert companions and all(_mode(p) == 0o600 for p in companions)
    holder.close()
    trusted_home = tmp_path / "trusted-home"
    _waymarks(trusted_home, project, "trust", str(project))  # a home made by another path
    assert _mode(trusted_home) == 0o700


def test_a_readable_database_is_narrowed_when_opened(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    _waymarks(home, project, "pin", "--", "Run the tests first.")
    db = home / "waymarks.db"
    os.chmod(db, 0o644)
    _waymarks(home, project, "pins")
    assert _mode(db) == 0o600


def test_evolution_jobs_database_is_private_and_narrowed(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        store = JobStore.open(tmp_path / "home")
        path = store.path
        store.close()
        assert _mode(path) == 0o600
        os.chmod(path, 0o666)
        JobStore.open(tmp_path / "home").close()
        assert _mode(path) == 0o600
    finally:
        os.umask(old)


@pytest.mark.parametrize("command", [
    ("session", "new"),
    ("personal", "save", "--", "I prefer tabs."),
    ("notes", "add", "--", "Run migrations in one transaction"),
    ("claude-code", "install"),
], ids=lambda c: " ".join(c[:2]))
def test_a_home_made_by_any_first_command_is_private(tmp_path: Path, project: Path,
                                                     command: tuple[str, ...]) -> None:
    """docs/cli.md: "A home Waymarks creates is mode 0700". A first command that makes the
    home while creating something inside it (a session file, a personal entry, the Claude
    Code install lock) made it with the umask's 0755, readable by everyone."""
    home = tmp_path / "new" / "home"
    _waymarks(home, project, *command)
    assert _mode(home) == 0o700
