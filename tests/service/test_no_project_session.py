"""A session of no project (a header whose ``cwd`` is empty, as a host may write) may change
no project's items: its records were of "unknown project", which the replay rule leaves
unrestricted, so after a rebuild such a file unpinned a trusted project's confirmed pin.
Real session files, a real rebuild."""

from __future__ import annotations

import json
from pathlib import Path

from waymarks.ledger.discovery import session_dir, session_file_name
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed


def test_a_session_of_no_project_cannot_unpin_a_projects_pin(home: Path,
                                                              project: Path) -> None:
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        written = app.pin("Run the tests before every commit.", scope="project")
        assert isinstance(written, Committed)
        session = app.current_session()
        assert session is not None
    sid = "0badc0de-0000-4000-8000-000000000009"
    at = "2030-03-17T17:46:40.000Z"
    unpin = {"schemaVersion": 1, "mutationId": "m-x", "createdAt": 1_900_000_001_000,
             "operation": "status", "pinId": written.id, "status": "deleted"}
    lines = [{"type": "session", "version": 3, "id": sid, "timestamp": at, "cwd": ""},
             {"type": "custom", "customType": "ds4-context-pin-v1", "data": unpin,
              "id": "e1", "parentId": None, "timestamp": "2030-03-17T17:46:41.000Z"}]
    folder = session_dir(home, "")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / session_file_name(at, sid)).write_text(
        "".join(json.dumps(line) + "\n" for line in lines))
    with Waymarks(home, cwd=str(project), session=str(session.path)) as app:
        app.rebuild_index()
        assert [(v.id, v.status) for v in app.items("pin")] == [(written.id, "active")]
