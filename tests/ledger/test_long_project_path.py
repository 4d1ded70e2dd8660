"""A project whose path makes a session folder name longer than a file name may be: the
folder is named by a shortened name (a readable start, then a hash of the whole name),
and a short one keeps Pi's exact name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from waymarks.ledger.discovery import pointer_path, session_dir

#: the longest file name Linux's and macOS's file systems take, in bytes
NAME_MAX = 255


def _long(root: Path, last: str = "b") -> Path:
    """A project path of ~250 bytes past ``root`` (the reviewer's: 120 and 130 letters)."""
    return root / ("a" * 120) / (last * 130)


def test_a_long_project_path_has_a_session_folder_that_fits(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folders = {session_dir(home, str(_long(tmp_path, last))) for last in ("b", "c")}
    assert len(folders) == 2  # a hash of the whole name: the ends differ
    for folder in folders:
        assert len(os.fsencode(folder.name)) <= NAME_MAX
        assert folder.name.startswith("--" + str(tmp_path)[1:].replace("/", "-") + "-aaa")
        assert folder.name.endswith("--")
        folder.mkdir(parents=True)  # a name the file system takes
    pointer = pointer_path(home, str(_long(tmp_path)))
    assert len(os.fsencode(pointer.name)) <= NAME_MAX and pointer.name.endswith(".session")
    pointer.parent.mkdir(parents=True)
    pointer.write_text("")


def test_a_name_that_fits_is_pis_and_a_cut_keeps_whole_characters(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert session_dir(home, "/work/my:project").name == "--work-my-project--"
    exact = "/" + "x" * (NAME_MAX - 4)  # --<254 - 3 bytes>-- is 255 bytes: fits
    assert session_dir(home, exact).name == f"--{exact[1:]}--"
    assert session_dir(home, exact + "y").name != f"--{exact[1:]}y--"
    wide = session_dir(home, "/" + "é" * 200).name  # two bytes each
    assert len(os.fsencode(wide)) <= NAME_MAX
    assert os.fsencode(wide).decode("utf-8").startswith("--éé")  # no cut character


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_a_project_of_a_long_path_pins_and_reads(tmp_path: Path) -> None:
    """``waymarks pin`` (even ``status``) failed with "File name too long" on the session
    folder, and nothing could be stored."""
    project = _long(tmp_path)
    project.mkdir(parents=True)
    env = {**os.environ, "WAYMARKS_HOME": str(tmp_path / "home"), "HOME": str(tmp_path),
           "WAYMARKS_CLI_HELPER": "off", "WAYMARKS_SEMANTIC": "off"}

    def waymarks(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "waymarks.cli.main", *args],
                              cwd=project, env=env, capture_output=True, text=True,
                              timeout=120)

    pinned = waymarks("pin", "--", "use tabs")
    assert pinned.returncode == 0, pinned.stderr
    listed = waymarks("pins")
    assert listed.returncode == 0 and "use tabs" in listed.stdout, listed.stderr
    assert waymarks("status").returncode == 0
    [folder] = (tmp_path / "home" / "sessions").iterdir()
    assert folder == session_dir(tmp_path / "home", str(project))
