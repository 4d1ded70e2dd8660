"""A listing checks each ``items`` row once: ``queries.visible_items`` verifies every row
as it reads it, and decoding it into an item (``rows.state_from_row``) does not check it
again. Past the memo of rows already checked (8,192), the second check was a whole one
for each row: ``waymarks --json pins`` of fresh_start.py's 24,814 pins checked ~41,000."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.store import integrity, queries, rows


def test_each_listed_row_is_checked_once(make_app: Callable[..., Waymarks],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app()
    texts = [f"Run the linters before committing to service {n}" for n in range(5)]
    for text in texts:
        assert isinstance(app.pin(text), Committed)
    session = app.current_session()
    assert session is not None
    checked: list[str] = []
    check = integrity._verify_item

    def counted(row: Sequence[Any]) -> None:
        checked.append(str(row[0]))
        check(row)

    # no memo to lean on (as for a listing longer than it): every check is a whole one
    monkeypatch.setattr(integrity, "_VERIFIED_ITEMS", integrity.VerifiedMemo(1))
    monkeypatch.setattr(rows, "_STATES", integrity.VerifiedMemo(1))
    monkeypatch.setattr(integrity, "_verify_item", counted)
    for listing in ({}, {"recent": 3}):
        checked.clear()
        integrity._VERIFIED_ITEMS.clear()  # (the write's last row is kept in it)
        states = queries.visible_items(app.projection.db, "pin", session.session_id,
                                       app.cwd, **listing)  # type: ignore[arg-type]
        assert len(states) == listing.get("recent", 5)
        assert sorted(checked) == sorted(s.id for s in states)  # each once
    checked.clear()
    integrity._VERIFIED_ITEMS.clear()
    wanted = [states[0].id]
    assert [s.id for s in queries.visible_items(app.projection.db, "pin", session.session_id,
                                                app.cwd, ids=wanted)] == wanted
    assert checked == wanted


def test_a_row_damaged_after_it_was_read_is_still_refused(
        make_app: Callable[..., Waymarks]) -> None:
    """Decoding a row nobody checked (``verified`` not given) still checks it."""
    app = make_app()
    assert isinstance(app.pin("Keep billing changes small"), Committed)
    session = app.current_session()
    assert session is not None
    (state,) = queries.visible_items(app.projection.db, "pin", session.session_id, app.cwd)
    row = list(app.projection.db.execute(
        f"SELECT {integrity.ITEM_COLUMNS} FROM items WHERE id = ?", (state.id,)).fetchone())
    row[integrity.ITEM_STATUS] = "deleted"  # (its checksum no longer matches)
    with pytest.raises(integrity.ProjectionDamaged):
        rows.state_from_row(tuple(row))
