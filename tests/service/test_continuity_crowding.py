"""A plan whose prompt matches no memory falls back on the newest claims in effect: claims
that are listed but never in effect here (an untrusted project's, a cross-project
session's own project claims) may not crowd them out."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import CountingIds
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.service.planning import CONTINUITY_ITEMS, plan_request

NOTE = "The session note is alpha."


def _included(app: Waymarks) -> list[str]:
    plan = plan_request(app, "hello there", provider="remote")
    return [e.id for e in plan.manifest if e.kind == "memory" and e.decision == "included"]


def test_claims_not_in_effect_do_not_crowd_out_the_continuity(
        make_app: Callable[..., Waymarks], tmp_path: Path, project: Path) -> None:
    # with 12 newer project claims of an untrusted project (trusted when written), the
    # plan fell back on none: the session's own claim, in effect, was not among the 12
    # newest active claims it read
    mine = make_app(ids=CountingIds(11))
    mine.trust(str(project))
    note = mine.remember(NOTE)
    assert isinstance(note, Committed)
    session = mine.current_session()
    assert session is not None
    other = make_app(ids=CountingIds(12))
    for n in range(CONTINUITY_ITEMS * 4 + 1):
        assert isinstance(other.remember(f"Team fact number {n} is recorded.",
                                         scope="project"), Committed)
    other.untrust(str(project))
    app = make_app(session=str(session.path), ids=CountingIds(13))
    assert not app.project_trusted
    assert _included(app) == [note.id]
    # a session used from another project's directory: its own project claims are
    # listed there, in effect only in their project
    second = tmp_path / "second"
    second.mkdir()
    writer = make_app(cwd=str(second), ids=CountingIds(14))
    writer.trust(str(second))
    note = writer.remember(NOTE)
    assert isinstance(note, Committed)
    for n in range(CONTINUITY_ITEMS * 4 + 1):
        assert isinstance(writer.remember(f"Second fact number {n} is recorded.",
                                          scope="project"), Committed)
    used = writer.current_session()
    assert used is not None
    there = make_app(session=str(used.path), ids=CountingIds(15))
    assert _included(there) == [note.id]
