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
