"""A file or folder of the home marked immutable (``chattr +i``: a backup tool's, an
administrator's lock): a write fails for every user, root too, whatever the mode. The
error said ``chmod u+rw`` (the database) or "check that it is yours and writable" (a
session file), which changed nothing; it now names the attribute and ``chattr -i``.

``chattr +i`` needs root (CAP_LINUX_IMMUTABLE) and a file system with attributes (ext4,
tmpfs on Linux 6): elsewhere the tests are skipped with the reason.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from waymarks.cli.main import main


@contextlib.contextmanager
def immutable(path: Path) -> Iterator[None]:
    """``path`` marked immutable while the block runs (skips where that cannot be done)."""
    if shutil.which("chattr") is None:
        pytest.skip("no chattr here")
    done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mark a file immutable here: {done.stderr.strip()}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def clearing(path: Path) -> str:
    """The command the refusal gives, ``path`` one shell word as it quotes it (a temporary
    folder with a space in its name: ``--basetemp``, ``TMPDIR``)."""
    return f"chattr -i {shlex.quote(str(path))}"


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The message of a command that must fail (exit 1) with ``--json``."""
    assert main(["--json", *argv]) == 1
    said = json.loads(capsys.readouterr().out)
    assert said["outcome"] == "error", said
    return str(said["message"])


@pytest.fixture
def pinned(tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str]) -> Path:
    """A home holding one pin, the working directory its project: the home."""
    home = tmp_path / "home"
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    assert main(["pin", "--", "Always tag releases"]) == 0
    capsys.readouterr()
    return home


@pytest.mark.parametrize("which", ["database", "home"])
def test_an_immutable_database_or_home_is_named_not_given_chmod(
        pinned: Path, capsys: pytest.CaptureFixture[str], which: str) -> None:
    target = pinned / "waymarks.db" if which == "database" else pinned
    with immutable(target):
        message = _refused(capsys, "pin", "--", "Never force-push")
    assert f"{target} is marked immutable" in message, message
    assert clearing(target) in message and "chmod" not in message, message
    assert main(["--json", "pin", "--", "Never force-push"]) == 0  # once cleared


def test_an_immutable_session_file_is_named_not_given_a_permission_check(
        pinned: Path, capsys: pytest.CaptureFixture[str]) -> None:
    [ledger] = (pinned / "sessions").rglob("*.jsonl")
    before = ledger.read_bytes()
    with immutable(ledger):
        message = _refused(capsys, "pin", "--", "Never force-push")
    assert f"{ledger} is marked immutable" in message and clearing(ledger) in message
    assert "yours and writable" not in message, message
    assert ledger.read_bytes() == before


def test_an_immutable_personal_memory_folder_is_named(
        pinned: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`personal save` into a memory folder marked immutable said only that its lock
    "cannot be opened … (Operation not permitted); nothing changed", no cause, no fix."""
    folder = pinned / "memory"
    folder.mkdir()
    with immutable(folder):
        assert main(["--json", "personal", "save", "--", "I like tea."]) == 2
        message = json.loads(capsys.readouterr().out)["message"]
    assert f"{folder} is marked immutable" in message and clearing(folder) in message, \
        message
    assert list(folder.iterdir()) == []
