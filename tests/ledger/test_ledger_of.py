"""Finding a session's ledger by its ID: in the project's own session directory first, then
in any project's (one session, one ledger, whichever directory holds it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from waymarks.ledger.discovery import ledger_of, session_dir

SID = "0f8e2a6c-1111-4222-8333-944455556666"


def _ledger(home: Path, cwd: str, sid: str = SID) -> Path:
    path = session_dir(home, cwd) / f"2026-01-01T00-00-00-000Z_{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}\n")
    return path


def test_the_own_directory_is_enough_when_it_holds_the_ledger(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    for n in range(40):  # a person's other projects, each with a session of its own
        _ledger(home, f"/work/other-{n}", f"0f8e2a6c-1111-4222-8333-{n:012d}")
    mine = _ledger(home, "/work/mine")
    listed: list[str] = []
    glob = Path.glob

    def counting(self: Path, pattern: str):  # type: ignore[no-untyped-def]
        listed.append(pattern)
        return glob(self, pattern)

    monkeypatch.setattr(Path, "glob", counting)
    assert ledger_of(home, SID, "/work/mine") == mine
    assert listed == [f"*_{SID}.jsonl"]  # one directory listed, not every project's
    assert ledger_of(home, SID) == mine  # without a project: found across all of them


def test_a_ledger_in_another_project_directory_is_still_found(tmp_path: Path) -> None:
    home = tmp_path / "home"
    elsewhere = _ledger(home, "/work/started-here")
    assert ledger_of(home, SID, "/work/moved-there") == elsewhere
    assert ledger_of(home, "0f8e2a6c-1111-4222-8333-000000000000", "/work/x") is None
    assert ledger_of(tmp_path / "no-home", SID, "/work/x") is None
