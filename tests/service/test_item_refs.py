"""An ID as typed is matched through the items' ID index, never by listing every item:
at 60k claims, ``memory show``, a refused status change and ``team share`` each listed
all of them (about 2 s of CPU) to match one reference."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CountingIds
from waymarks.commands.refs import explain_not_found, resolve
from waymarks.service import team_write
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, Rejected
from waymarks.store import queries


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The kinds of every listing of all visible items (not items read by ID)."""
    calls: list[str] = []
    real = queries.visible_items

    def recorded(db, kind, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(kind)
        return real(db, kind, *args, **kwargs)

    monkeypatch.setattr(queries, "visible_items", recorded)
    return calls


def test_a_reference_is_matched_without_listing_every_item(
        make_app: Callable[..., Waymarks], project: Path, listings: list[str]) -> None:
    app = make_app(ids=CountingIds(7))
    app.trust(str(project))
    made = [app.remember(f"The worker {n} drains queue q{n}", scope="project")
            for n in range(3)]
    pin = app.pin("Run the linter before pushing", scope="project")
    assert all(isinstance(m, Committed) for m in [*made, pin])
    ids = [m.id for m in made if isinstance(m, Committed)]
    listings.clear()
    assert resolve(app, "memory", ids[1]) == ids[1]
    assert resolve(app, "memory", ids[1].upper()) == ids[1]  # (as typed, else lower case)
    ambiguous = resolve(app, "memory", "00000007-0000")
    assert isinstance(ambiguous, Rejected) and ambiguous.code == "ambiguous"
    assert set(ambiguous.conflicts) == set(ids)
    missing = resolve(app, "memory", "zzzz1234")
    assert isinstance(missing, Rejected) and missing.code == "not_found"
    pin_id = pin.id if isinstance(pin, Committed) else ""
    wrong_kind = explain_not_found(app, "memory", pin_id,
                                   app.set_memory_status(pin_id, "expired", "r"))
    assert isinstance(wrong_kind, Rejected) and "is a pin, not a memory" in wrong_kind.message
    assert team_write._local_item(app, ids[2]).id == ids[2]
    assert team_write._local_item(app, pin_id.upper()).id == pin_id
    assert listings == []
