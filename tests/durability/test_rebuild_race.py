"""``rebuild-index`` reads the ledgers before it takes the writer's turn, so writes can
commit between its read and its commit; it then puts the checkpoint back where it read.
A process whose reader of the session had resumed past that point (one opened, or a
long-lived one refreshed, after those writes: an MCP server, the Pi bridge, a command
started meanwhile) synced from the older checkpoint with records only from where it
began: the writes in between were never projected again, the checkpoint moved past
them, and ``health`` said OK. Found by a soak (concurrent writers, kills, rebuilds):
an acknowledged pin and an unpin missing until the next ``rebuild-index``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from waymarks.service import rebuilding
from waymarks.service.app import Waymarks


def test_a_write_committed_during_a_rebuild_is_kept_by_a_reader_resumed_past_it(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Waymarks(home, cwd=str(project)) as first:
        first.pin("Run the first checks.")
        session = str(first.current_session().path)  # type: ignore[union-attr]
    server = Waymarks(home, cwd=str(project), session=session)  # a long-lived process
    read = rebuilding.ledgers

    def then_a_write(app: Waymarks, *args: Any, **kwargs: Any) -> Any:
        found = read(app, *args, **kwargs)  # what the rebuild will replay
        monkeypatch.setattr(rebuilding, "ledgers", read)
        with Waymarks(home, cwd=str(project), session=session) as writer:
            assert writer.pin("Run the second checks.").outcome == "committed"
        assert len(server.items("pin")) == 2  # its reader resumes past the second pin
        return found

    monkeypatch.setattr(rebuilding, "ledgers", then_a_write)
    with Waymarks(home, cwd=str(project), session=session) as maintenance:
        assert maintenance.rebuild_index()["mutations"] == 1
    assert server.pin("Run the third checks.").outcome == "committed"
    server.close()
    with Waymarks(home, cwd=str(project), session=session) as fresh:
        assert sorted(view.text for view in fresh.items("pin")) == [
            "Run the first checks.", "Run the second checks.", "Run the third checks."]
        assert fresh.health()["ok"] is True
