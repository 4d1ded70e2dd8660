"""An I/O error SQLite reports is not always the disk's: SQLITE_IOERR_DELETE_NOENT (a file
SQLite meant to delete already gone) and SQLITE_IOERR_SHORT_READ (a file cut or renamed
under it) come of processes working on the same files; the person was told to check the
disk and file system for each. The message names SQLite's error and blames the disk only
for an error of reading, writing or syncing (EIO and its kin)."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from tests.opaque import content
from waymarks.service.recovery import database_error


def _ioerr(name: str) -> sqlite3.OperationalError:
    error = sqlite3.OperationalError("disk I/O error")  # SQLite's text for every one
    error.sqlite_errorname = name  # type: ignore[attr-defined]
    return error


@pytest.mark.parametrize("name", ["SQLITE_IOERR_DELETE_NOENT", "SQLITE_IOERR_SHORT_READ",
                                  "SQLITE_IOERR_LOCK", "SQLITE_IOERR_SHMOPEN"])
def test_an_io_error_of_processes_racing_does_not_blame_the_disk(tmp_path: Path,
                                                                  name: str) -> None:
    said = str(database_error(_ioerr(name), tmp_path / "waymarks.db"))
    assert name in said and str(tmp_path / "waymarks.db") in said, said
    # (the path masked: the temporary root's random name may hold "disk")
    assert "disk" not in content(said, str(tmp_path)).lower(), said
    assert "waymarks health" in said, said  # (what to do if it persists)


@pytest.mark.parametrize("error", [_ioerr("SQLITE_IOERR_WRITE"), _ioerr("SQLITE_IOERR_READ"),
                                   _ioerr("SQLITE_IOERR_FSYNC"), _ioerr("SQLITE_IOERR"),
                                   OSError(errno.EIO, "Input/output error")])
def test_an_error_reading_or_writing_the_disk_still_says_check_the_disk(
        tmp_path: Path, error: Exception) -> None:
    said = str(database_error(error, tmp_path / "waymarks.db"))
    assert f"Check the disk and file system holding {tmp_path}" in said, said


def test_a_database_path_longer_than_sqlite_opens_is_said_not_taken_for_permissions(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """SQLite opens no database whose path is more than 504 bytes (its pager adds 8 for a
    journal's name to a limit of 512): a home of ~500 characters failed every command
    with "cannot be opened for writing (SQLITE_CANTOPEN). Check that … are yours and
    writable", though every folder was; the person looked at modes, not at the path."""
    from waymarks.cli.main import main

    home = tmp_path.joinpath(*["d" * 60] * 9, "home")  # the database's path > 504 bytes
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    assert main(["--home", str(home), "pin", "Always tag releases from main"]) == 1
    said = capsys.readouterr().err
    assert "writable" not in said, said
    assert f"{len(str(home / 'waymarks.db'))} bytes" in said and "504" in said, said
    assert "shorter path" in said, said
