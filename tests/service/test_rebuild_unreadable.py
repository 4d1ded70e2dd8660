"""What ``rebuild-index`` says of a file in a session folder whose header is gone.

A session file whose first line was cut (a bad edit, a damaged disk) is left out of a
rebuild, and its pins and memory with it. The rebuild's note told the person to "pass a
session file or create one with `waymarks session new`", the reader's advice for
``--session``, which would leave every item of the file out for good; ``health`` names
the fix: move it aside, keep it, and rebuild once its header is back.
"""

from __future__ import annotations

from pathlib import Path

from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed


def test_a_session_file_without_its_header_gets_the_fix_health_gives(app: Waymarks) -> None:
    assert isinstance(app.remember("The cache is 5 GB."), Committed)
    session = app.current_session()
    assert session is not None
    path = Path(session.path)
    first, rest = path.read_text(encoding="utf-8").split("\n", 1)
    path.write_text(first[:40] + "\n" + rest, encoding="utf-8")
    report = app.rebuild_index()
    assert report["mutations"] == 0
    [note] = report["unreadable"]
    assert note.startswith(f"{path}: not a session file (its first line is not a session "
                           "header)")
    assert f"mv {path} {path}.aside" in note and "session new" not in note
    problems = [p for p in app.health()["problems"] if p.startswith(str(path))]
    assert problems == [note]  # one wording, one fix


def test_a_file_with_no_complete_first_line_is_said_to_hold_nothing(app: Waymarks) -> None:
    """An empty file, or one whose only line was cut before its end (what an interrupted
    creation leaves), holds no entry: ``health`` passes over it, and the rebuild told the
    person to move it aside and keep it, since "its entries are read again" once its header
    is back. It says now that there is nothing in it to read, and asks nothing."""
    assert isinstance(app.remember("The cache is 5 GB."), Committed)
    session = app.current_session()
    assert session is not None
    folder = Path(session.path).parent
    empty = folder / "2026-01-01T00-00-00-000Z_empty.jsonl"
    empty.write_bytes(b"")
    cut = folder / "2026-01-01T00-00-00-001Z_cut.jsonl"
    cut.write_bytes(b'{"type":"session","version":3,"id":"0000')
    report = app.rebuild_index()
    assert report["mutations"] == 1
    notes = sorted(report["unreadable"])
    assert notes == [f"{path}: no complete first line (empty, or cut before the end of its "
                     "header, as an interrupted creation leaves it): nothing in it to read"
                     for path in (empty, cut)]
    assert not [p for p in app.health()["problems"] if str(folder) in p]
