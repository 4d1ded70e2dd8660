"""The last plan's manifest as the store keeps it: the pins' entries (the same plan after
plan) in a row of their own, written only when they change, and read back exactly."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from waymarks.cli.main import main
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.service.planning import last_manifest, plan_request

PINS = 20  # ~5 KB of pin entries: more than a database page


def wal_size(home: Path) -> int:
    return os.path.getsize(home / "waymarks.db-wal")


def test_the_pins_entries_are_not_rewritten_by_every_plan(
        app: Waymarks, home: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    for n in range(PINS):
        app.pin(f"Pinned rule {n}: keep the billing changes small")
    app.remember("The billing service listens on port 8080")
    app.remember("The auth service keeps logs for 30 days")
    first = plan_request(app, "what port does the billing service use?")
    assert [e.kind for e in first.manifest].count("pin") == PINS
    assert _without_time(last_manifest(app)) == first.manifest_json()
    before = wal_size(home)
    second = plan_request(app, "how long does the auth service keep logs?")
    # the pins' ~5 KB stayed where they were: the plan wrote its own entries, a page
    # (before: every entry again, its overflow pages and the free list's, ~4 pages here)
    assert wal_size(home) - before <= 2 * (4096 + 24)
    stored = last_manifest(app)
    assert _without_time(stored) == second.manifest_json() != first.manifest_json()
    assert json.dumps(_without_time(stored)) == json.dumps(second.manifest_json())  # order too
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    capsys.readouterr()
    assert main(["--json", "included"]) == 0
    included = json.loads(capsys.readouterr().out)
    assert json.dumps(included).count("Pinned") == 0  # (IDs only, as ever)
    assert {e.id for e in second.manifest if e.decision == "included"} <= set(
        json.dumps(included).replace('"', " ").split())


def test_changed_pins_are_written_again(app: Waymarks) -> None:
    ids = []
    for n in range(3):
        done = app.pin(f"Pinned rule {n}: run the tests first")
        assert isinstance(done, Committed)
        ids.append(done.id)
    plan_request(app, "what should I run first?")
    app.unpin(ids[0])
    app.pin("A new rule: review before merging")
    plan = plan_request(app, "what should I run first?")
    stored = last_manifest(app)
    assert _without_time(stored) == plan.manifest_json()
    assert ids[0] not in json.dumps(stored)


def _without_time(stored: dict[str, Any] | None) -> dict[str, Any]:
    """A saved manifest without when its plan was made (the plan's own has no time)."""
    assert stored is not None and stored["madeAt"], stored
    return {name: value for name, value in stored.items() if name != "madeAt"}


def test_the_pins_entries_are_compared_in_place_and_kept_right_across_processes(
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]]) -> None:
    """A plan read the stored pins' entries back (~5 KB for 20 pins) to compare them with
    its own, a statement and a copy every plan; SQLite compares them now, in the write,
    which leaves the row as it is when they are equal. Another process whose plan saved
    other pins' entries meanwhile is still overwritten by this one's next plan, though
    this one's pins did not change."""
    mine, theirs = two_sessions()
    for n in range(PINS):
        mine.pin(f"Pinned rule {n}: keep the billing changes small")
        theirs.pin(f"Their rule {n}: keep the auth changes small")
    mine.remember("The billing service listens on port 8080", scope="project")
    plan_request(mine, "what port does the billing service use?")
    statements: list[str] = []
    mine.projection.db.set_trace_callback(statements.append)
    try:
        first = plan_request(mine, "what port does the billing service use?")
    finally:
        mine.projection.db.set_trace_callback(None)
    assert not [s for s in statements if s.startswith("SELECT") and "manifest_head" in s]
    assert _without_time(last_manifest(mine)) == first.manifest_json()
    other = plan_request(theirs, "what port does the billing service use?")
    assert _without_time(last_manifest(theirs)) == other.manifest_json() != first.manifest_json()
    again = plan_request(mine, "what port does the billing service use?")
    assert [e.id for e in again.manifest] == [e.id for e in first.manifest]
    assert _without_time(last_manifest(mine)) == again.manifest_json()
    assert {e.id for e in other.manifest if e.kind == "pin"}.isdisjoint(
        json.dumps(last_manifest(theirs)).replace('"', " ").split())  # (theirs gone)
