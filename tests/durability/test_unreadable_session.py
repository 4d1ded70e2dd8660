"""A session file that cannot be read (its permissions) was passed over as if absent:
`pins` listed nothing (exit 0), and a write started a NEW session, which then hid the
old one for good, its pins included. The newest session's file, or the project's session
folder, that cannot be read is now an error naming it (exit 1), and nothing is written.

Root reads any file, so the denial is stood in for where the file is read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import waymarks as run_waymarks
from waymarks.ledger import discovery
from waymarks.ledger.session_file import SessionFile


def _run(home: Path, project: Path, *args: str) -> tuple[int, str]:
    done = run_waymarks("--home", str(home), "--cwd", str(project), *args, cwd=project)
    return done.returncode, done.stdout + done.stderr


def test_an_unreadable_newest_session_is_an_error_not_a_new_session(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(home, project, "pin", "--", "Pin one.")[0] == 0
    [session] = list((home / "sessions").glob("*/*.jsonl"))
    real = SessionFile.read_header_line

    def denied(self: SessionFile) -> bytes | None:
        if self.path == session:
            raise PermissionError(13, "Permission denied", str(self.path))
        return real(self)

    monkeypatch.setattr(SessionFile, "read_header_line", denied)
    for args in (("pins",), ("memory", "add", "--", "Ledger test fact.")):
        code, said = _run(home, project, *args)
        assert code == 1, said
        assert f"{session}: cannot read it (Permission denied)" in said
    assert list((home / "sessions").glob("*/*.jsonl")) == [session]  # no new session
    monkeypatch.setattr(SessionFile, "read_header_line", real)
    code, said = _run(home, project, "--json", "pins")
    assert code == 0 and [i["text"] for i in json.loads(said)["items"]] == ["Pin one."]


def test_an_unlistable_session_folder_is_an_error(home: Path, project: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(home, project, "pin", "--", "Pin one.")[0] == 0
    folder = discovery.session_dir(home, str(project.resolve()))
    monkeypatch.setattr(discovery.os, "access", lambda path, mode: Path(path) != folder)
    code, said = _run(home, project, "memory", "add", "--", "Ledger test fact.")
    assert code == 1 and "cannot list this project's sessions" in said, said
