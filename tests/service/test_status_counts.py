"""`status` counts the memory `memory` lists and the inspector's overview counts: a
session used from another project's directory included."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import CountingIds
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.service.provenance import visible_count


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
