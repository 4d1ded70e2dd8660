"""``--cwd ~/src/app`` (``--cwd``'s own help example) given where no shell expands ``~``
(``waymarks context "…"``, a host's slash command, a quoted script argument) was
"--cwd ~/src/app: not a directory", while ``--home ~/…`` and ``--session ~/…`` are
expanded: ``--cwd`` is too."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from waymarks.service.app import Waymarks


def test_a_cwd_with_a_tilde_is_the_folder_under_home(tmp_path: Path, run_main: Any,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    user, home = tmp_path / "user", tmp_path / "wm"
    project = user / "src" / "app"
    project.mkdir(parents=True)
    with Waymarks(home, cwd=str(project)) as app:
        app.pin("Run the tests before every commit.")
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.setitem(os.environ, "WAYMARKS_CLI_HELPER", "off")
    monkeypatch.chdir(tmp_path)
    for args in (["--cwd", "~/src/app", "pins"], ["context", "--cwd ~/src/app pins"]):
        listed = run_main("--home", str(home), *args)
        assert [p["text"] for p in listed["items"]] == ["Run the tests before every commit."]
    said = run_main("--home", str(home), "--cwd", "~/src/nothing", "pins", expect=2)
    assert said["message"].startswith(f"--cwd {user}/src/nothing: no such directory; ")


def test_a_cwd_that_is_no_directory_names_the_fix(tmp_path: Path, run_main: Any) -> None:
    """`--cwd /nonexistent` said only "not a directory" (of a path that is not there at
    all), an empty `--cwd ''` "a directory", a file "not a directory": none said what to
    do. Each names the fix now; exit 2, nothing created."""
    home, missing = tmp_path / "home", tmp_path / "no such" / "app"
    said = run_main("--home", str(home), "--cwd", str(missing), "pins", expect=2)
    assert said["code"] == "invalid_argument"
    assert said["message"] == (
        f"--cwd {missing}: no such directory; give an existing project directory (a new "
        f"project: create it first, mkdir -p '{missing}'), or leave --cwd out to act in the "
        "current directory"), said["message"]
    empty = run_main("--home", str(home), "--cwd", "", "pins", expect=2)["message"]
    assert empty == ("--cwd is empty; give the project's directory, or leave --cwd out to "
                     "act in the current directory"), empty
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x\n")
    named = run_main("--home", str(home), "--cwd", str(a_file), "pins", expect=2)["message"]
    assert named.endswith(f"not a directory (a file); give the project's directory, the "
                          f"file's own folder perhaps: --cwd {tmp_path}"), named
    assert not home.exists() and not missing.parent.exists()


def test_trusting_a_missing_folder_says_it_is_missing(tmp_path: Path, run_main: Any) -> None:
    """`waymarks trust /nonexistent` said "not a directory", as of a file; it says the
    folder is not there, and how to trust the right one. Nothing is trusted."""
    home, missing = tmp_path / "home", tmp_path / "no-such-app"
    said = run_main("--home", str(home), "trust", str(missing), expect=2)["message"]
    assert said == (f"{missing}: no such directory; trust the project's root folder, an "
                    "existing one (`waymarks trust .` in it)"), said
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x\n")
    said = run_main("--home", str(home), "trust", str(a_file), expect=2)["message"]
    assert said.startswith(f"{a_file}: not a directory; "), said
    assert run_main("--home", str(home), "trust", "--list")["projects"] == []
