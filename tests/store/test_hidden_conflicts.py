"""A write's conflict lookups read every row under the key, whatever its status, and
judge the status on the verified row: a damaged status (or an index entry the status
decided) can no longer hide an active claim from the write that contradicts it.

``per-read-only`` stands for a database above the whole-database check's size limit
(512 KiB), where only the checks made on every read run.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CountingIds
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, Rejected
from waymarks.store import integrity


@pytest.fixture(params=["open-check", "per-read-only"])
def check_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "per-read-only":
        monkeypatch.setattr(integrity, "OPEN_CHECK_MAX_BYTES", 0)
    return str(request.param)


def _damage(home: Path, sql: str, args: tuple[object, ...]) -> None:
    db = sqlite3.connect(home / "waymarks.db", isolation_level=None)
    try:
        db.execute(sql, args)
    finally:
        db.close()


@pytest.mark.parametrize("status", ["superseded", "retired", "invalid"])
def test_a_damaged_status_does_not_hide_a_conflict(
        make_app: Callable[..., Waymarks], home: Path, project: Path, check_mode: str,
        status: str) -> None:
    app = make_app()
    first = app.remember("Deploy target is staging", key="deploy target")
    assert isinstance(first, Committed)
    session = app.current_session()
    assert session is not None
    app.close()
    # the row's status changed behind the projection's back (its checksum not updated)
    _damage(home, "UPDATE items SET status = ? WHERE id = ?", (status, first.id))
    again = make_app(session=str(session.path), ids=CountingIds(1))
    second = again.remember("Deploy target is production", key="deploy target")
    assert isinstance(second, Rejected), second
    assert first.id in second.conflicts
    assert again.recovered is not None, "the damage went unnoticed"
    assert [v.status for v in again.items("memory") if v.id == first.id] == ["active"]


def test_a_superseded_claim_under_the_key_does_not_conflict(
        make_app: Callable[..., Waymarks]) -> None:
    # the status is judged in Python now: a claim no longer active must still not count
    app = make_app()
    first = app.remember("Deploy target is staging", key="deploy target")
    assert isinstance(first, Committed)
    second = app.supersede_memory(first.id, "Deploy target is production")
    assert isinstance(second, Committed), second
    third = app.remember("Deploy target is canary", key="deploy target")
    assert isinstance(third, Rejected)
    assert third.conflicts == (second.id,)
    assert app.recovered is None


def test_the_subject_lookup_does_not_filter_on_an_unverified_status(tmp_path: Path) -> None:
    # the write-time contradiction check's candidates (store.claim_subjects)
    from waymarks.core.contradiction import signature
    from waymarks.store.integrity import ITEM_COLUMNS, ProjectionDamaged, item_checksum
    from waymarks.store.projection import Projection

    projection = Projection(tmp_path / "w.db", 0)
    text = "The billing api port is 5."
    row = ("m0", "memory", "session", "p", None, None, None, text, text.lower(), None, 0,
           "active", None, None, None, None, "s", "e0", None, 0, 1, b"{}")
    with projection.transaction():
        projection.db.execute(f"INSERT INTO items ({ITEM_COLUMNS}) VALUES"
                              f" ({', '.join('?' * 23)})", (*row, item_checksum(row)))
    mine = signature("The billing api port is 6.")
    assert mine is not None
    with projection.transaction():
        assert projection.view.active_texts("p", mine.subject) == [("m0", text)]
    projection.db.execute("UPDATE items SET status = 'retired'")
    # a damaged status does not drop the candidate; its row is verified where it is cited
    with projection.transaction():
        assert projection.view.active_texts("p", mine.subject) == [("m0", text)]
    with pytest.raises(ProjectionDamaged):
        projection.view.get("m0")
    with pytest.raises(ProjectionDamaged):
        projection.view.active_texts("p")
    projection.close()
