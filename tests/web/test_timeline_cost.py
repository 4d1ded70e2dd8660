"""The timeline counts its changes in the store and reads only the newest: each request
read, verified and decoded every item of the store (3 s at 20k items, under the
inspector's one lock, every other page waiting behind it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_limited_listing import busy_sessions, rows_verified
from waymarks.service.app import Waymarks
from waymarks.service.provenance import updated_at
from waymarks.web import reads

SHOWN = 5


def _every_change(app: Waymarks, kind: str, scope: str, status: str) -> list[reads.Event]:
    """Every item change, as the timeline listed them when it read every item."""
    events = []
    with app.begin():
        for item_kind in ("pin", "memory"):
            if kind not in ("", item_kind):
                continue
            views = [v for v in app.items(item_kind)  # type: ignore[arg-type]
                     if scope in ("", v.scope) and status in ("", v.status)]
            changed = updated_at(app, views)
            for v in views:
                events.append(reads.Event(v.created_at, item_kind,
                                          "supersede" if v.supersedes else "add", v.id,
                                          v.scope))
                ended = {"invalid": "invalidate", "expired": "expire",
                         "deleted": "delete"}.get(v.status)  # (as it was written)
                if ended is not None:
                    events.append(reads.Event(changed[v.id], item_kind, ended, v.id,
                                              v.scope))
    return sorted(events, key=lambda e: (e.at, e.id))


@pytest.mark.parametrize(("kind", "scope", "status"), [
    ("", "", ""), ("memory", "", ""), ("pin", "", "deleted"), ("", "project", ""),
    ("memory", "session", "expired"), ("", "", "superseded")])
def test_the_timeline_is_every_changes_newest_and_reads_only_them(
        make_app: Callable[..., Waymarks], project: Path, monkeypatch: pytest.MonkeyPatch,
        kind: str, scope: str, status: str) -> None:
    app, _other = busy_sessions(make_app, project, 21)
    every = _every_change(app, kind, scope, status)
    assert every, (kind, scope, status)
    monkeypatch.setattr(reads, "TIMELINE_SHOWN", SHOWN)
    session = app.current_session().path  # type: ignore[union-attr]
    fresh = make_app(session=session)  # a fresh process: nothing kept from before
    read = rows_verified(monkeypatch)
    shown = reads.timeline(fresh, kind=kind, scope=scope, status=status)
    assert shown.events == every[-SHOWN:]
    assert shown.total == len(every)
    assert shown.days == reads.buckets(every)
    # the rows of the newest creations and ends of each kind, not every item
    assert read["rows"] <= 2 * 2 * SHOWN, read["rows"]
