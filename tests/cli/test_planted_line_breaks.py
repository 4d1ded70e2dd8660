"""IDs and entry types a session file holds are one line wherever the CLI prints them.

Anyone who can write a session file chooses its IDs and entry types. Their control
characters were escaped on the way out, but the last pass keeps line breaks (a body's lines
are its own), so an entry ID ``x\\nFORGED …`` printed a line of its own in ``session
show``'s branch, an entry type in ``health``'s anomalies, a pin ID in ``unpin``'s receipt,
a source entry's ID in ``memory show`` and a claim's ID in the refusal of a change to it: a
line a person reads as the tool's. They go through ``cell`` (``escaped``) now.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.inprocess import waymarks

NL = "\nFORGED line"


def _cli(home: Path, project: Path, *args: str) -> tuple[int, str]:
    done = waymarks(*args, env={"WAYMARKS_HOME": str(home), "HOME": str(home.parent / "user")},
                    cwd=project)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout + done.stderr


def _plant(home: Path, project: Path) -> None:
    assert _cli(home, project, "pin", "--", "seed")[0] == 0
    session = next((home / "sessions").glob("*/*.jsonl"))
    leaf = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])["id"]
    pin = {"type": "custom", "customType": "ds4-context-pin-v1",
           "data": {"schemaVersion": 1, "mutationId": "m2", "createdAt": 1, "operation": "add",
                    "item": {"id": "pinid" + NL, "scope": "session", "content": "Planted pin",
                             "createdAt": 1}},
           "timestamp": "2026-12-04T23:33:11.000Z", "id": "x" + NL, "parentId": leaf}
    odd = {"type": "custom", "customType": "ds4-context-pin-v1" + NL, "data": {},
           "timestamp": "2026-12-04T23:33:12.000Z", "id": "y1", "parentId": "x" + NL}
    memory = {"type": "custom", "customType": "ds4-context-memory-v1",
              "data": {"schemaVersion": 1, "mutationId": "m3", "createdAt": 2,
                       "operation": "add",
                       "item": {"id": "memid" + NL, "scope": "session", "claim": "Planted",
                                "key": "k", "createdAt": 2, "sourceEntryIds": ["x" + NL]}},
              "timestamp": "2026-12-04T23:33:14.000Z", "id": "w1", "parentId": "y1"}
    with session.open("a", encoding="utf-8") as out:
        out.write("".join(json.dumps(entry) + "\n" for entry in (pin, odd, memory)))


def test_planted_ids_and_entry_types_print_no_line_of_their_own(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    _plant(home, project)
    shown = [_cli(home, project, *args) for args in (
        ("session", "show"), ("health",), ("memory", "show", "memid"),
        ("memory", "invalidate", "memid", "wrong"), ("unpin", "pinid"))]
    shown.append(_cli(home, project, "memory", "supersede", "memid", "--", "Replaced"))
    assert [code for code, _ in shown] == [0, 0, 0, 0, 0, 2], shown
    for _code, out in shown:
        assert not [line for line in out.splitlines() if line.startswith("FORGED")], out
        assert "\\nFORGED line" in out, out


def test_a_planted_session_id_prints_no_line_of_its_own(tmp_path: Path) -> None:
    """A session file's header ID (a copy placed in the project's session folder) is a
    row's cell in ``session list`` and ``memory sources`` and the subject of ``memory
    exclude``'s receipt: one line each."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    assert _cli(home, project, "trust", str(project))[0] == 0
    assert _cli(home, project, "pin", "--scope", "project", "--", "seed")[0] == 0
    session = next((home / "sessions").glob("*/*.jsonl"))
    header = json.loads(session.read_text(encoding="utf-8").splitlines()[0])
    header.update(id="planted" + NL, timestamp="2026-12-01T00:00:00.000Z")
    (session.parent / "2026-12-01T00-00-00-000Z_planted.jsonl").write_text(
        json.dumps(header) + "\n", encoding="utf-8")
    shown = [_cli(home, project, *args) for args in (
        ("session", "list"), ("memory", "sources"), ("memory", "exclude", "planted"))]
    assert [code for code, _ in shown] == [0, 0, 0], shown
    for _code, out in shown:
        assert not [line for line in out.splitlines() if line.startswith("FORGED")], out
        assert "planted\\nFORGED line" in out, out


def test_memory_search_shows_a_planted_id_on_its_row(tmp_path: Path) -> None:
    """``memory search``'s ID column was the one listing cell of an item's ID not passed
    through ``cell``: a planted ID ``mem\\nFORGED`` split its row in two."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    _plant(home, project)
    session = next((home / "sessions").glob("*/*.jsonl"))
    text = session.read_text(encoding="utf-8").replace('"memid\\nFORGED line"',
                                                        '"mem\\nFORGED"')
    session.write_text(text, encoding="utf-8")
    assert _cli(home, project, "rebuild-index")[0] == 0
    code, out = _cli(home, project, "memory", "search", "Planted")
    assert code == 0, out
    assert not [line for line in out.splitlines() if line.startswith("FORGED")], out
    assert "mem\\nFORG" in out, out
