"""The change token a long-lived process keeps verified rows by (``store/epoch.py``): it
moves with every committed change, from this connection or another, and stays put for a
plan's manifest; rows kept under it are read again once anything changed."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.service.planning import plan_request
from waymarks.store import queries
from waymarks.store.epoch import Epoch
from waymarks.store.projection import Projection


@pytest.fixture
def projection(tmp_path: Path) -> Projection:
    return Projection(tmp_path / "w.db", 0)


def _write_meta(db: sqlite3.Connection, value: str) -> None:
    db.execute("INSERT INTO meta (name, value) VALUES ('probe', ?) ON CONFLICT (name)"
               " DO UPDATE SET value = excluded.value", (value,))


def test_the_token_moves_when_another_connection_commits(projection: Projection) -> None:
    before = projection.epoch.token()
    assert before is not None and projection.epoch.token() == before
    other = sqlite3.connect(projection.path, isolation_level=None)
    try:
        _write_meta(other, "theirs")
    finally:
        other.close()
    assert projection.epoch.token() != before


def test_the_token_moves_with_this_connections_writes_but_not_quiet_ones(
        projection: Projection) -> None:
    epoch = projection.epoch
    start = epoch.token()
    with projection.transaction():
        with epoch.quiet():
            _write_meta(projection.db, "quiet")
        assert epoch.token() is None  # inside a transaction nothing may be kept
    assert epoch.token() == start
    with projection.transaction():
        projection.save_manifest({"entries": []})
    assert epoch.token() == start  # a plan's manifest is a quiet write
    with projection.transaction():
        _write_meta(projection.db, "loud")
    moved = epoch.token()
    assert moved != start
    with pytest.raises(RuntimeError), projection.transaction():
        _write_meta(projection.db, "rolled back")
        raise RuntimeError
    assert epoch.token() != moved  # a write rolled back still counts: never stale


def test_a_fresh_epoch_is_not_fooled_by_writes_before_it(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "plain.db", isolation_level=None)
    db.execute("CREATE TABLE t (v)")
    epoch = Epoch(db)
    first = epoch.token()
    db.execute("INSERT INTO t VALUES (1)")
    assert epoch.token() != first


def _pair(make_app: Callable[..., Waymarks]) -> tuple[Waymarks, Waymarks]:
    """A long-lived process and another one writing to the same session."""
    writer = make_app()
    assert isinstance(writer.pin("Keep billing changes small"), Committed)
    session = writer.current_session()
    assert session is not None
    return make_app(keep_recall_index=True, session=str(session.path)), writer


QUESTION = "which port does the billing service listen on"


def _pair_with_claim(make_app: Callable[..., Waymarks]
                     ) -> tuple[Waymarks, Waymarks, Committed]:
    """:func:`_pair`, the writer having remembered the claim :data:`QUESTION` asks for."""
    reader, writer = _pair(make_app)
    outcome = writer.remember("The billing service listens on port 7001")
    assert isinstance(outcome, Committed)
    return reader, writer, outcome


def test_kept_pins_are_served_until_another_process_adds_one(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch) -> None:
    reader, writer = _pair(make_app)
    reads: list[str] = []
    listing = queries.visible_items

    def counting(*args: object, **kwargs: object) -> object:
        reads.append(str(args[1]))
        return listing(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(queries, "visible_items", counting)
    first = [v.text for v in reader.items("pin")]
    plan_request(reader, "refactor billing", provider="remote")
    assert [v.text for v in reader.items("pin")] == first == ["Keep billing changes small"]
    assert reads.count("pin") == 1  # the plan and the second listing used the kept rows
    assert isinstance(writer.pin("Run the linters before committing"), Committed)
    assert [v.text for v in reader.items("pin")] == [
        "Keep billing changes small", "Run the linters before committing"]
    assert reads.count("pin") == 2


def test_kept_recent_memories_are_served_until_another_process_adds_one(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch) -> None:
    """A plan that matches no memory falls back on the newest ones: kept like the pins."""
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    reader, writer, _ = _pair_with_claim(make_app)
    reads: list[object] = []
    listing = queries.visible_items

    def counting(*args: object, **kwargs: object) -> object:
        reads.append(kwargs.get("recent_active"))
        return listing(*args, **kwargs)  # type: ignore[arg-type]

    def fallback() -> list[str]:
        plan = plan_request(reader, "refactor the parser", provider="remote")
        return [e.id for e in plan.manifest if e.decision == "included" and e.kind == "memory"]

    monkeypatch.setattr(queries, "visible_items", counting)
    first = fallback()
    assert fallback() == first and len(first) == 1
    assert reads.count(12) == 1  # the second plan used the kept rows
    added = writer.remember("The search service listens on port 7003")
    assert isinstance(added, Committed)
    assert fallback() == [added.id, *first]  # newest first
    assert reads.count(12) == 2


def test_kept_recall_rows_follow_a_supersede_by_another_process(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    reader, writer, outcome = _pair_with_claim(make_app)
    assert "7001" in reader.recall(QUESTION).digest
    assert "7001" in reader.recall(QUESTION).digest  # served from the kept rows
    assert isinstance(writer.supersede_memory(
        outcome.id, "The billing service listens on port 7002"), Committed)
    digest = reader.recall(QUESTION).digest
    assert "7002" in digest and "7001" not in digest


def test_kept_items_by_id_follow_a_supersede_by_another_process(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    reader, writer, outcome = _pair_with_claim(make_app)

    def included() -> list[str]:
        plan = plan_request(reader, QUESTION, provider="remote")
        return [e.id for e in plan.manifest if e.decision == "included" and e.kind == "memory"]

    assert included() == included() == [outcome.id]  # the second from the kept items
    assert [v.status for v in reader.items("memory", ids=[outcome.id])] == ["active"]
    replaced = writer.supersede_memory(outcome.id, "The billing service listens on port 7002")
    assert isinstance(replaced, Committed)
    assert [v.status for v in reader.items("memory", ids=[outcome.id])] == ["superseded"]
    assert included() == [replaced.id]


def test_ids_take_precedence_over_a_recent_limit(make_app: Callable[..., Waymarks]) -> None:
    app = make_app()
    first = app.remember("The billing service listens on port 7001")
    second = app.remember("The search service listens on port 7002")
    assert isinstance(first, Committed) and isinstance(second, Committed)
    assert [v.id for v in app.items("memory", ids=[first.id], recent=1)] == [first.id]


def test_a_long_listing_is_not_kept(make_app: Callable[..., Waymarks],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from waymarks.store import reads

    monkeypatch.setattr(reads, "KEPT_LISTING_ITEMS", 2)
    app = make_app()
    for n in range(3):
        assert isinstance(app.pin(f"Rule {n}"), Committed)
    assert isinstance(app.remember("The billing service listens on port 7001"), Committed)
    assert len(app.items("pin")) == 3 and len(app.items("memory")) == 1
    assert [key[0] for key in app.projection._listings] == ["memory"]  # pins: too many
