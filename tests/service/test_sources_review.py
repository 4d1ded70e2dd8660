"""Defects a review of cross-session project memory and replay reproduced with the real
CLI, pinned here in process; each test failed before its fix."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from tests.conftest import CountingIds, StepClock
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed

AHEAD = datetime(2026, 1, 2, tzinfo=UTC)  # the sibling's clock: a day ahead of this one's


def test_items_from_a_session_whose_clock_runs_ahead_can_be_changed_now(
        make_app: Callable[..., Waymarks], project: Path) -> None:
    """Replay orders by the entries' times: an unpin, invalidate or supersede written now
    of an item a sibling session (a synced machine whose clock runs a day ahead) made
    "tomorrow" replayed before the item existed. Unpin and invalidate were refused (``no
    pin P``, with the pin listed active), and a supersede was reported committed while
    the new claim was stored invalid and the old one still sent to the model."""
    ahead = make_app(ids=CountingIds(1), clock=StepClock(AHEAD))
    ahead.trust(str(project))
    ahead.session_new()
    pin = ahead.pin("Deploy straight to production.", scope="project")
    old = ahead.remember("The staging host is db-old.internal.", scope="project")
    doubt = ahead.remember("The cache TTL is 90 seconds.", scope="project")
    assert isinstance(pin, Committed) and isinstance(old, Committed)
    assert isinstance(doubt, Committed)
    here = make_app(ids=CountingIds(2))
    here.session_new()
    assert isinstance(here.unpin(pin.id, "wrong"), Committed)
    assert isinstance(here.set_memory_status(doubt.id, "invalid", "wrong"), Committed)
    new = here.supersede_memory(old.id, "The staging host is db-new.internal.")
    assert isinstance(new, Committed), new
    applies = {item.id: (item.status, item.applies) for item in
               [*here.items("pin"), *here.items("memory")]}
    assert applies[pin.id][0] == "deleted" and applies[doubt.id][0] == "invalid"
    assert applies[old.id][0] == "superseded" and applies[new.id] == ("active", True)
    # and a change of the new claim, written now, replays after it too
    assert isinstance(here.set_memory_status(new.id, "expired", "moved"), Committed)
    rebuilt = make_app(ids=CountingIds(3))
    rebuilt.rebuild_index()
    assert {i.id: i.status for i in rebuilt.items("memory")} == {
        old.id: "superseded", doubt.id: "invalid", new.id: "expired"}


def test_a_write_stored_invalid_is_not_reported_committed(app: Waymarks) -> None:
    """Replay stores a supersede of an item it cannot find as an ``invalid`` item, an
    effect that "applied": the write check took it as committed. It now also looks at
    the item the write made."""
    from waymarks.core.codec import custom_type_of
    from waymarks.core.model import MemoryItem, MemoryMutation
    from waymarks.service.ports import iso
    from waymarks.service.session_checks import not_applied

    app.remember("The staging host is db-old.internal.")
    session = app.current_session()
    assert session is not None
    mutation = MemoryMutation(1, "m-1", 1, "supersede", MemoryItem(
        "aaaaaaaa-0000-4000-8000-000000000001", "session", "The staging host is db-new.",
        1, ()), previous_id="bbbbbbbb-0000-4000-8000-000000000009")
    with session.locked():
        entry = session.append({"type": "custom", "customType": custom_type_of(mutation),
                                "data": mutation, "timestamp": iso(app.clock.now())},
                               app.ids.entry_id)
    app.projection.sync(session, 2)
    refused = not_applied(app.projection, session, entry.id, mutation)
    assert refused is not None and refused.code == "not_applied"
    assert "stored invalid: supersedes unknown memory" in refused.message
