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
    assert said["message"] == f"--cwd {user}/src/nothing: not a directory"
