"""A read-only projection, or read-only files beside it: a clear message naming the file
and the fix, nothing changed, and the next command works once it is fixed.

Permissions mean nothing to root, so as root the CLI runs as ``nobody`` on a home that
``nobody`` owns; as anyone else it runs as that user.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import sqlite3
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import waymarks

LEDGER_LINE = "The session ledger still holds every acknowledged write"


def interpreter(uid: int, gid: int) -> tuple[str, dict[str, str]] | None:
    """A Python that ``uid`` may run, with what it needs to import Waymarks: this one, or
    (when it lives where that user cannot reach, e.g. under /root) the system's of the
    same version, given this environment's packages on its path."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    as_user = {"user": uid, "group": gid, "extra_groups": []} if os.geteuid() == 0 else {}
    packages = [sysconfig.get_paths()["purelib"], str(Path(waymarks.__file__).parents[1])]
    for python, extra in ((sys.executable, {}),
                          (shutil.which(f"python{sys.version_info[0]}.{sys.version_info[1]}",
                                        path="/usr/bin:/usr/local/bin") or "",
                           {"PYTHONPATH": os.pathsep.join(packages)})):
        if not python:
            continue
        try:
            done = subprocess.run([python, "-c", "import waymarks.cli.main"], env={
                **env, **extra}, capture_output=True, check=False, cwd="/",
                **as_user)  # type: ignore[call-overload]
        except OSError:
            continue
        if done.returncode == 0:
            return python, {**env, **extra}
    return None


@dataclass
class Home:
    root: Path
    uid: int
    gid: int
    exe: str
    env: dict[str, str]

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def db(self) -> Path:
        return self.home / "waymarks.db"

    def run(self, *command: str) -> subprocess.CompletedProcess[str]:
        as_user = {"user": self.uid, "group": self.gid, "extra_groups": []} if (
            os.geteuid() == 0) else {}
        return subprocess.run(
            [self.exe, "-m", "waymarks.cli.main", "--home", str(self.home),
             "--cwd", str(self.root / "project"), *command],
            capture_output=True, text=True, check=False, cwd=self.root,
            env=self.env, **as_user)  # type: ignore[call-overload]

    def json(self, *command: str, expect: int = 0) -> dict:  # type: ignore[type-arg]
        done = self.run("--json", *command)
        assert "Traceback" not in done.stderr, done.stderr
        assert done.returncode == expect, done.stdout + done.stderr
        return dict(json.loads(done.stdout))

    def python(self, code: str) -> None:
        """Run ``code`` as the home's user (to make SQLite create files as that user)."""
        as_user = {"user": self.uid, "group": self.gid, "extra_groups": []} if (
            os.geteuid() == 0) else {}
        subprocess.run([self.exe, "-c", code], check=True, cwd=self.root, env=self.env,
                       **as_user)  # type: ignore[call-overload]


def other_user() -> tuple[int, int, tuple[str, dict[str, str]]]:
    """Another user (``nobody`` under root, else this one) and a Python they may run that
    imports Waymarks (:func:`interpreter`); the test is skipped without one."""
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        uid, gid = nobody.pw_uid, nobody.pw_gid
    else:
        uid, gid = os.geteuid(), os.getegid()
    found = interpreter(uid, gid)
    if found is None:
        pytest.skip(f"no Python that uid {uid} may run can import Waymarks")
    return uid, gid, found


@pytest.fixture
def ro_home() -> Iterator[Home]:
    uid, gid, found = other_user()
    root = Path(tempfile.mkdtemp(prefix="waymarks-ro-"))  # pytest's tmp is closed to nobody
    try:
        root.chmod(0o755)
        (root / "project").mkdir()
        (root / "home").mkdir()
        if os.geteuid() == 0:
            for path in (root, root / "project", root / "home"):
                os.chown(path, uid, gid)
        home = Home(root, uid, gid, *found)
        home.json("pin", "--", "Written while everything was writable")
        yield home
    finally:
        shutil.rmtree(root, ignore_errors=True)


def pins(home: Home) -> list[str]:
    return [item["text"] for item in home.json("pins")["items"]]


@pytest.mark.slow
def test_a_read_only_database_is_explained_and_works_again_after_chmod(ro_home: Home) -> None:
    session = next((ro_home.home / "sessions").glob("*/*.jsonl"))
    ledger = session.read_bytes()
    ro_home.db.chmod(0o444)
    for command in (("pins",), ("pin", "--", "Written while read-only")):
        error = ro_home.json(*command, expect=1)
        assert error["code"] == "database_error"
        message = error["message"]
        assert f"{ro_home.db} is read-only" in message and f"chmod u+rw {ro_home.db}" in message
        assert LEDGER_LINE in message and "disk space" not in message
    assert session.read_bytes() == ledger  # nothing was appended for the refused write
    # SQLite never got to create its companions read-only
    assert not Path(f"{ro_home.db}-wal").exists() and not Path(f"{ro_home.db}-shm").exists()
    ro_home.db.chmod(0o644)
    assert ro_home.json("pin", "--", "Written after chmod")["outcome"] == "committed"
    assert pins(ro_home) == ["Written while everything was writable", "Written after chmod"]


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "said"), [(0o200, "cannot be read by"),
                                            (0o000, "can be neither read nor written by")])
def test_an_unreadable_database_says_which_permission_is_missing(
        ro_home: Home, mode: int, said: str) -> None:
    """Mode 000 (or write-only) was "read-only for this user ... chmod u+w", and after
    that chmod the same message came back."""
    ro_home.db.chmod(mode)
    try:
        error = ro_home.json("pins", expect=1)
    finally:
        ro_home.db.chmod(0o644)
    assert error["code"] == "database_error"
    assert f"{ro_home.db} {said} this user" in error["message"], error["message"]
    assert f"chmod u+rw {ro_home.db}" in error["message"] and "read-only" not in \
        error["message"] and LEDGER_LINE in error["message"]
    assert pins(ro_home) == ["Written while everything was writable"]


@pytest.mark.slow
def test_read_only_wal_and_shm_left_by_sqlite_are_repaired(ro_home: Home) -> None:
    # What an older release left behind: SQLite opened the read-only database and created
    # -wal and -shm read-only too (simulated by a process that dies holding them)
    ro_home.db.chmod(0o444)
    ro_home.python(
        "import os, sqlite3\n"
        f"db = sqlite3.connect({str(ro_home.db)!r})\n"
        "db.execute('SELECT count(*) FROM items').fetchall()\n"
        "os._exit(0)\n")
    wal, shm = Path(f"{ro_home.db}-wal"), Path(f"{ro_home.db}-shm")
    assert wal.exists() and shm.exists()
    assert not (wal.stat().st_mode & 0o200) and not (shm.stat().st_mode & 0o200)
    ro_home.db.chmod(0o644)  # the person fixes what they can see
    assert ro_home.json("pin", "--", "Written after chmod")["outcome"] == "committed"
    assert pins(ro_home)[-1] == "Written after chmod"
    for companion in (wal, shm):
        assert not companion.exists() or companion.stat().st_mode & 0o200


@pytest.mark.skipif(os.geteuid() != 0, reason="needs a second user to own the file")
@pytest.mark.slow
def test_a_read_only_companion_of_another_user_is_named(ro_home: Home) -> None:
    wal = Path(f"{ro_home.db}-wal")
    wal.write_bytes(b"")  # owned by root, read-only for nobody
    wal.chmod(0o444)
    error = ro_home.json("pins", expect=1)
    assert f"{wal} is read-only" in error["message"] and f"chmod u+rw {wal}" in error["message"]
    assert LEDGER_LINE in error["message"]
    wal.unlink()
    assert pins(ro_home) == ["Written while everything was writable"]


@pytest.mark.slow
def test_a_read_only_home_directory_is_named(ro_home: Home) -> None:
    ro_home.home.chmod(0o555)
    try:
        error = ro_home.json("pins", expect=1)
    finally:
        ro_home.home.chmod(0o755)
    assert f"the home {ro_home.home} is not writable" in error["message"]
    assert f"chmod u+w {ro_home.home}" in error["message"] and LEDGER_LINE in error["message"]
    assert pins(ro_home) == ["Written while everything was writable"]


def test_advice_matches_the_cause() -> None:
    from waymarks.service.recovery import database_error, is_damage

    db = Path(tempfile.gettempdir()) / "no-such-home-for-waymarks" / "waymarks.db"
    full = sqlite3.OperationalError("database or disk is full")
    full.sqlite_errorname = "SQLITE_FULL"  # type: ignore[attr-defined]
    busy = sqlite3.OperationalError("database is locked")
    busy.sqlite_errorname = "SQLITE_BUSY"  # type: ignore[attr-defined]
    assert not is_damage(full) and not is_damage(busy)
    assert "is full" in str(database_error(full, db)) and "Free disk space" in str(
        database_error(full, db))
    assert "locked" in str(database_error(busy, db))
    assert "disk space" not in str(database_error(busy, db))
    for error in (full, busy):
        assert LEDGER_LINE in str(database_error(error, db))
        assert "nothing was written" not in str(database_error(error, db)).lower()


@pytest.mark.slow
def test_health_names_an_active_session_file_no_write_can_reach(ro_home: Home) -> None:
    """A session file this user may read but not write (copied from a backup with its
    mode, written once under sudo): every pin and memory write failed, and health said
    OK."""
    session = next((ro_home.home / "sessions").glob("*/*.jsonl"))
    session.chmod(0o444)
    try:
        assert ro_home.json("pin", "--", "Written to a read-only ledger", expect=1)[
            "code"] == "io_error"
        report = ro_home.json("health", expect=1)
    finally:
        session.chmod(0o644)
    assert report["code"] == "attention" and not report["ok"]
    assert [p for p in report["problems"] if str(session) in p and "not writable" in p
            and f"chmod u+w {session}" in p], report["problems"]
    assert ro_home.json("health")["ok"]
    assert pins(ro_home) == ["Written while everything was writable"]


@pytest.mark.slow
@pytest.mark.parametrize("closed", ["ledger", "folder"])
def test_a_learned_ledger_this_user_may_not_read_is_named_with_chmod(
        ro_home: Home, closed: str) -> None:
    """The learned ledger unreadable (mode 000) was damage to "move aside" (the only
    record of what was learned, set aside for a chmod); its folder closed (000) was no
    ledger at all: learned memory gone, and health OK."""
    ro_home.python("from pathlib import Path\n"
                   "from waymarks.service.evolution import Evolution\n"
                   f"with Evolution(Path({str(ro_home.home)!r})) as evo:\n"
                   "    assert evo.ledger.path.is_file()\n")
    ledger = ro_home.home / "evolution" / "ledger.jsonl"
    closing = ledger if closed == "ledger" else ledger.parent
    mode = closing.stat().st_mode
    closing.chmod(0)
    try:
        report = ro_home.json("health", expect=1)
    finally:
        closing.chmod(mode)
    [problem] = [p for p in report["problems"] if str(ledger) in p]
    assert "Permission denied" in problem and f"chmod u+rw {ledger}" in problem, problem
    assert "mv " not in problem
    assert ro_home.json("health")["ok"]
