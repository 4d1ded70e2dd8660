"""``pins --limit N`` and ``memory list --limit N`` read the N newest items, not all.

A listing limited and otherwise unfiltered read and checked every item of the session and
its project to print the newest N (100k items: 2.4 s and 157 MB for ``--limit 1``); it
now reads N rows and counts the rest in SQL, and prints exactly what it printed before:
the reference here is the same listing through the full read (a filter that keeps every
item takes that path).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CountingIds
from waymarks.commands.items import _listing
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.store import queries

EVERY_SCOPE = ("session", "branch", "project")


def committed(outcome: object) -> str:
    assert isinstance(outcome, Committed), outcome
    return outcome.id


def busy_sessions(make_app: Callable[..., Waymarks], project: Path, count: int = 12
                  ) -> tuple[Waymarks, Waymarks]:
    """A session with pins and claims of every scope and status, some its project's,
    beside another session of the project with items of its own."""
    other = make_app(ids=CountingIds(1))
    other.trust(str(project))
    other.session_new()
    other_pin = committed(other.pin("Other session: use pnpm", scope="project"))
    committed(other.pin("Other session only: tabs"))
    committed(other.remember("Other session: the queue is Kafka.", scope="project"))
    committed(other.remember("Other session only: the cache is warm."))
    mine = make_app(ids=CountingIds(2))
    mine.session_new()
    for n in range(count):
        pin = committed(mine.pin(f"Rule {n}: run the linter \x1b[2J before merging",
                                 scope=("session", "branch", "project")[n % 3]))
        claim = committed(mine.remember(f"Service {n} listens on port {8000 + n}.",
                                        scope="project" if n % 4 == 0 else "session"))
        if n % 5 == 1:
            mine.unpin(pin)
            committed(mine.supersede_memory(claim, f"Service {n} listens on {9000 + n}."))
        if n % 5 == 2:
            mine.set_memory_status(claim, "expired")
    mine.unpin(other_pin)  # the project's, unpinned here
    return mine, other


def rows_verified(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """A count of the item rows read and verified from now on (``["rows"]``)."""
    read = {"rows": 0}
    verify = queries.verify_item

    def counted(row: Any) -> None:
        read["rows"] += 1
        verify(row)

    monkeypatch.setattr(queries, "verify_item", counted)
    return read


@pytest.fixture
def apps(make_app: Callable[..., Waymarks], project: Path) -> tuple[Waymarks, Waymarks]:
    return busy_sessions(make_app, project)


@pytest.mark.parametrize("kind", ["pin", "memory"])
def test_a_limited_listing_is_the_full_listings_newest_and_reads_only_them(
        apps: tuple[Waymarks, Waymarks], make_app: Callable[..., Waymarks],
        monkeypatch: pytest.MonkeyPatch, kind: Any) -> None:
    mine, _other = apps
    read = rows_verified(monkeypatch)
    everything = _listing(mine, kind, scopes=EVERY_SCOPE)
    total = len(everything.data["items"])
    assert total > 12 and read["rows"] >= total
    session = mine.current_session().path  # type: ignore[union-attr]
    for limit in (1, 3, total - 1, total, total + 5):
        for json_only in (False, True):
            full = _listing(mine, kind, scopes=EVERY_SCOPE, limit=limit, json_only=json_only)
            again = _listing(mine, kind, limit=limit, json_only=json_only)
            # a fresh process (nothing kept from a listing before) reads only the newest
            fresh = make_app(session=session)
            read["rows"] = 0
            limited = _listing(fresh, kind, limit=limit, json_only=json_only)
            for one in (again, limited):
                assert one.data == full.data and one.text == full.text
                assert one.table == full.table
            assert read["rows"] <= 2 * limit + 2, (limit, read["rows"])
            if limit <= 3:
                assert read["rows"] < total
        omitted = _listing(mine, kind, limit=limit).data.get("omitted", 0)
        assert omitted == max(0, total - limit)

