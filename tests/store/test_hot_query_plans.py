"""Every statement the hot requests run on the projection's large tables (``items``,
``mutations``, ``entries``, ``recall_records``) reads them through an index: a recall, a
plan, a listing of pins and memory, and ``status``. A schema change that drops or narrows
an index (a rebuild builds every one of them: most of its SQLite time) must not leave one
of these reading a whole table, which costs nothing at the handful of rows a test holds
and seconds at a million. The plans are SQLite's own (``EXPLAIN QUERY PLAN``) for the very
statements traced, their values bound; the plan does not depend on the rows (no
``ANALYZE`` is ever run on the projection)."""

from __future__ import annotations

import itertools
import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from waymarks.service.app import Waymarks

#: the tables a rebuild bulk-loads, one row per item, mutation or entry
LARGE: tuple[str, ...] = ("items", "mutations", "entries", "recall_records")
#: a plan step reading a table whole: "SCAN items", with an index or without (a scan of
#: a covering index reads every row's entry too); an alias is named as written
#: (``SCAN i``), and SQLite 3.36 and later may add ``USING ...`` after it
_SCAN = re.compile(r"^SCAN (\w+)\b")
#: a search bounded by the item's kind alone (``pin`` or ``memory``): half the table
_KIND_ONLY = re.compile(r"^SEARCH (\w+) USING (?:COVERING )?INDEX \w+ \(kind=\?\)$")


def full_scans(db: sqlite3.Connection, statement: str) -> list[str]:
    """The steps of ``statement``'s plan that read one of :data:`LARGE` whole (not a
    search of an index or of the row IDs), or all of its items of one kind."""
    aliases = _aliases(statement)
    found = []
    for *_ids, detail in db.execute(f"EXPLAIN QUERY PLAN {statement}"):
        match = _SCAN.match(str(detail)) or _KIND_ONLY.match(str(detail))
        if match and aliases.get(match.group(1), match.group(1)) in LARGE:
            found.append(str(detail))
    return found


def _aliases(statement: str) -> dict[str, str]:
    return {alias: table for table, alias in re.findall(
        rf"\b({'|'.join(LARGE)})\s+(?:AS\s+)?(\w+)", statement, flags=re.IGNORECASE)}


@contextmanager
def traced(db: sqlite3.Connection) -> Iterator[list[str]]:
    statements: list[str] = []
    db.set_trace_callback(statements.append)
    try:
        yield statements
    finally:
        db.set_trace_callback(None)


def test_a_full_scan_is_told_apart_from_an_indexed_read() -> None:
    """The check itself: a plan reading ``items`` whole is caught (an index scanned whole
    too), one searching an index is not."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE items (id TEXT, kind TEXT, seq INTEGER)")
    db.execute("CREATE INDEX items_id ON items (id)")
    db.execute("CREATE TABLE meta (seq INTEGER)")
    assert full_scans(db, "SELECT * FROM items WHERE seq > 3") == ["SCAN items"]
    assert full_scans(db, "SELECT i.id FROM items i WHERE i.kind = 'x'") != []
    assert full_scans(db, "SELECT * FROM items WHERE id = 'a'") == []
    assert full_scans(db, "SELECT count(*) FROM items") != []  # its covering index whole
    assert full_scans(db, "SELECT * FROM items WHERE rowid IN (1, 2)") == []
    assert full_scans(db, "SELECT * FROM meta WHERE seq > 3") == []  # not a large table
    db.execute("CREATE INDEX items_kind ON items (kind, id)")
    assert full_scans(db, "SELECT * FROM items WHERE kind = 'memory' AND seq > 3") != []
    assert full_scans(db, "SELECT * FROM items WHERE kind = 'memory' AND id = 'a'") == []


def _store(app: Waymarks) -> None:
    app.trust(app.cwd)
    app.pin("Always run the linter before merging.")
    app.pin("Reviews need two approvals.", scope="project")
    first = app.remember("The staging database listens on port 5433.")
    app.remember("The billing service uses Redis for caching.", scope="project")
    app.remember("Deploys happen on Fridays.", key="deploy-day")
    app.remember("Dark mode is enabled.")
    app.supersede_memory(first.id, "The staging database listens on port 5434.")
    expired = app.remember("The cache TTL is 10 minutes.")
    app.set_memory_status(expired.id, "expired")


def _recall(app: Waymarks) -> object:
    return app.recall("which port does the staging database use?")


def _recall_after_a_write(app: Waymarks) -> object:
    """A recall whose index is one claim behind: the write before it catches it up."""
    app.remember(f"Build {next(_BUILDS)} of the billing service passed.")
    return _recall(app)


_BUILDS = itertools.count(1)


def _plan(app: Waymarks) -> object:
    from waymarks.service.planning import plan_request

    return plan_request(app, "which port does the staging database use?")


HOT: dict[str, Callable[[Waymarks], object]] = {
    "recall": _recall,
    "recall after a write": _recall_after_a_write,
    "plan": _plan,
    "list memory": lambda app: app.items("memory"),
    "list pins": lambda app: app.items("pin"),
    "status": lambda app: app.status(),
}


@pytest.mark.parametrize("request_name", list(HOT))
def test_the_hot_requests_read_the_large_tables_by_index(app: Waymarks,
                                                          request_name: str) -> None:
    _store(app)
    HOT[request_name](app)  # once first: what a first request alone does is caught up
    db = app.projection.db
    with traced(db) as statements:
        HOT[request_name](app)
    read = [s for s in statements if re.search(rf"\b({'|'.join(LARGE)})\b", s)
            and s.lstrip().upper().startswith(("SELECT", "WITH"))]
    assert read, f"{request_name} read none of the large tables"
    scans = {s: found for s in read if (found := full_scans(db, s))}
    assert not scans, scans
