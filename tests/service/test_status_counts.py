"""`status` counts the memory `memory` lists and the inspector's overview counts: a
session used from another project's directory included; counted cheaply, damage still found."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CountingIds
from tests.store.test_integrity import damage
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.service.provenance import visible_count
from waymarks.store import integrity, queries


def test_status_counts_a_cross_project_sessions_own_project_claims(
        make_app: Callable[..., Waymarks], tmp_path: Path, project: Path) -> None:
    # status left out the session's own project claims of its first project: it said 2
    # stored where `memory` listed 5 and the overview counted 5
    first = tmp_path / "first"
    first.mkdir()
    there = make_app(cwd=str(first), ids=CountingIds(5))
    there.trust(str(first))
    for claim, scope in (("The billing port is 5433.", "project"),
                         ("The release train leaves on Tuesdays.", "project"),
                         ("The session note is alpha.", None)):
        assert isinstance(there.remember(claim, scope=scope), Committed)
    old = there.remember("The cache size is 64 MB.", scope="project")
    assert isinstance(old, Committed)
    assert isinstance(there.set_memory_status(old.id, "expired"), Committed)  # not in effect
    session = there.current_session()
    assert session is not None
    here = make_app(ids=CountingIds(6))
    here.trust(str(project))
    assert isinstance(here.remember("The deploy window is 02:00.", scope="project"),
                      Committed)
    app = make_app(session=str(session.path), ids=CountingIds(7))
    listed = app.items("memory")
    with app.begin():
        counted = visible_count(app, "memory")
    memory = app.status()["memory"]
    assert len(listed) == counted == memory["total"] == 5
    assert memory["applies"] == sum(v.applies for v in listed) == 2
    assert memory["active"] == sum(v.status == "active" for v in listed) == 4


def test_status_reads_no_row_of_the_sessions_active_project_claims(
        make_app: Callable[..., Waymarks], project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the session's own active project claims of this project were read and verified one
    # by one (0.7 s at 100k, the recommended scope); they are counted as its session
    # claims are, and checked against the project's group count
    app = make_app(ids=CountingIds(21))
    app.trust(str(project))
    for n in range(20):
        assert isinstance(app.remember(f"Module {n} is owned by team {n}.", scope="project"),
                          Committed)
    read: list[object] = []
    checked = queries._checked

    def counting(*args: Any) -> Iterator[Any]:
        for row in checked(*args):
            read.append(row)
            yield row

    monkeypatch.setattr(queries, "_checked", counting)
    memory = app.status()["memory"]
    assert (memory["total"], memory["applies"]) == (20, 20)
    assert read == []


@pytest.mark.parametrize("statement", [
    # a project claim of the session read as a session claim: counted in SQL, one short
    # of the project's group count
    "UPDATE items SET scope = 'session' WHERE rowid = (SELECT min(rowid) FROM items"
    " WHERE scope = 'project')",
    "UPDATE items SET status = 'expired' WHERE rowid = (SELECT min(rowid) FROM items"
    " WHERE scope = 'project')",
])
def test_status_notices_a_damaged_project_claim_of_the_session(
        make_app: Callable[..., Waymarks], home: Path, project: Path,
        monkeypatch: pytest.MonkeyPatch, statement: str) -> None:
    monkeypatch.setattr(integrity, "OPEN_CHECK_MAX_BYTES", 0)  # no whole check on open
    app = make_app(ids=CountingIds(22))
    app.trust(str(project))
    for n in range(3):
        assert isinstance(app.remember(f"Module {n} is owned by team {n}.", scope="project"),
                          Committed)
    session = app.current_session()
    assert session is not None
    app.close()
    damage(home, (statement, ()))
    again = make_app(session=str(session.path), ids=CountingIds(23))
    assert again.status()["memory"]["applies"] == 3
    assert again.recovered is not None, "the damage went unnoticed"
