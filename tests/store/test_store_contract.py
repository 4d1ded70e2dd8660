"""The store protocol's contract, run against every implementation (issue 15): what the
service asks of a projection backend, answered the same way by each.

Today there is one implementation (SQLite); a second backend joins ``IMPLEMENTATIONS``
and must pass every test here unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from waymarks.ledger.session_file import SessionFile
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.store.projection import Projection
from waymarks.store.protocol import Store

NOW = 1_800_000_000_000
IMPLEMENTATIONS: dict[str, Callable[[Path], Store]] = {
    "sqlite": lambda root: Projection(root / "contract.db", NOW),
}


@pytest.fixture(params=sorted(IMPLEMENTATIONS))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    made = IMPLEMENTATIONS[request.param](tmp_path)
    yield made
    made.close()


@pytest.fixture
def ledgers(tmp_path: Path) -> dict[str, Any]:
    """Two sessions of one trusted project, written through the service."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    out: dict[str, Any] = {"project": str(project.resolve())}
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        pin = app.pin("Run the tests before every commit", scope="project")
        port = app.remember("The database port is 5433", key="db-port",
                            classification="internal")
        app.remember("Deploys go to staging first", scope="project")
        assert isinstance(pin, Committed) and isinstance(port, Committed)
        newer = app.supersede_memory(port.id, "The database port is 5434")
        assert isinstance(newer, Committed)
        first = app.current_session()
        assert first is not None
        out.update(pin=pin.id, old=port.id, new=newer.id, first=first)
        app.session_new()
        app.remember("Service B is owned by team B", scope="project")
        out["second"] = app.current_session()
    return out


def synced(store: Store, *sessions: SessionFile) -> None:
    with store.transaction():
        for session in sessions:
            store.sync(SessionFile.open(session.path), NOW)


def test_items_are_visible_as_a_session_and_its_project_see_them(
        store: Store, ledgers: dict[str, Any]) -> None:
    first, second, project = ledgers["first"], ledgers["second"], ledgers["project"]
    synced(store, first, second)
    pins = store.visible_items("pin", first.session_id, project)
    assert [p.text for p in pins] == ["Run the tests before every commit"]
    memory = store.visible_items("memory", first.session_id, project)
    assert {(m.text, m.status) for m in memory} == {
        ("The database port is 5433", "superseded"), ("The database port is 5434", "active"),
        ("Deploys go to staging first", "active"), ("Service B is owned by team B", "active")}
    # the other session sees the project's items, not the first session's own
    theirs = {m.text for m in store.visible_items("memory", second.session_id, project)}
    assert "The database port is 5434" not in theirs and "Deploys go to staging first" in theirs
    newest = store.visible_items("memory", first.session_id, project, recent_active=1)
    assert [m.status for m in newest] == ["active"]
    by_id = store.visible_items("memory", first.session_id, project, ids=[ledgers["new"]])
    assert [m.id for m in by_id] == [ledgers["new"]]
    assert store.classifications([ledgers["new"], ledgers["pin"]]) == {
        ledgers["new"]: "internal", ledgers["pin"]: None}
    counts = {(status, scope): n for status, scope, n in
              store.memory_counts(first.session_id, project)}
    assert counts[("active", "project")] == 2 and counts[("superseded", "session")] == 1
    assert store.expand_prefix("pin", ledgers["pin"][:8], first.session_id, project) == \
        ledgers["pin"]
    assert store.expand_prefix("pin", "zzzzzzzz", first.session_id, project) is None
    # by key: the session's own items and its project's, of every status (the caller
    # reads them through visible_items), never another session's own
    assert sorted(store.ids_with_keys("memory", first.session_id, project,
                                      ["db-port", "no-such-key"])) == sorted(
        [ledgers["old"], ledgers["new"]])
    assert store.ids_with_keys("memory", second.session_id, project, ["db-port"]) == []
    assert store.ids_with_keys("memory", first.session_id, project, []) == []
    # a key given (`--key`), of an active item, as against one derived from its words
    assert store.has_given_keys("memory", first.session_id, project)
    assert not store.has_given_keys("memory", second.session_id, project)
    assert not store.has_given_keys("pin", first.session_id, project)


def test_checkpoints_sources_and_the_entry_index(store: Store,
                                                 ledgers: dict[str, Any]) -> None:
    first, second, project = ledgers["first"], ledgers["second"], ledgers["project"]
    assert not store.has_sources()
    synced(store, first, second)
    assert store.has_sources()
    assert sorted(store.source_paths()) == sorted([str(first.path), str(second.path)])
    whole = SessionFile.open(first.path)
    path, offset, _lines, entries, _fingerprint = store.checkpoint_of(first.session_id) or (
        "", 0, 0, 0, "")
    assert (path, offset, entries) == (str(first.path), whole.offset, whole.entry_count)
    assert store.checkpoint_offset(first.session_id) == whole.offset
    index = store.entry_index(first.session_id, entries)
    assert index is not None and index.last() == whole.leaf_id
    assert store.entry_index(first.session_id, entries + 1) is None
    assert {s.session_id for s in store.known_sources(project)} == {
        first.session_id, second.session_id}
    assert store.is_project_source(second.session_id, project)
    assert store.source_status(second.session_id) == "available"
    assert store.source_path(first.session_id) == str(first.path)
    assert store.sessions_indexed_at(str(first.path), first.session_id) == []
    assert store.source_standing(first.session_id) == ("available", None, False)


def test_exclusion_withholds_a_sources_project_items(store: Store,
                                                     ledgers: dict[str, Any]) -> None:
    first, second, project = ledgers["first"], ledgers["second"], ledgers["project"]
    synced(store, first, second)
    with store.transaction():
        assert store.set_excluded(second.session_id, True, reason="experiments", now_ms=NOW)
    texts = {m.text for m in store.visible_items("memory", first.session_id, project)
             if m.status == "active"}
    assert "Service B is owned by team B" not in texts
    with store.transaction():
        assert store.set_source_status(second.session_id, "missing", None, NOW) in (True,
                                                                                  False)
        assert store.set_excluded(second.session_id, False, now_ms=NOW)
    assert store.source_status(second.session_id) == "missing"


def test_rebuild_equals_incremental_and_history_is_kept(store: Store,
                                                        ledgers: dict[str, Any]) -> None:
    first, second, project = ledgers["first"], ledgers["second"], ledgers["project"]
    synced(store, first, second)

    def state() -> list[tuple[Any, ...]]:
        return sorted((i.id, i.status, i.text) for kind in ("pin", "memory")
                      for i in store.visible_items(kind, first.session_id, project))

    before = state()
    with store.transaction():
        count = store.rebuild([SessionFile.open(first.path), SessionFile.open(second.path)],
                              NOW)
    assert count == 5 and state() == before
    assert [m[3] for m in store.mutations_of(ledgers["old"])] == ["add"]
    assert [m[3] for m in store.mutations_of(ledgers["new"])] == ["supersede"]
    assert set(store.last_changed([ledgers["old"], ledgers["pin"]])) == {
        ledgers["old"], ledgers["pin"]}
    assert store.health()["ok"]


def test_the_last_manifest_round_trips(store: Store) -> None:
    assert store.last_manifest() is None
    manifest = {"provider": "remote", "entries": [
        {"id": "x", "kind": "pin", "decision": "included", "reason": "pinned", "score": 0.5}]}
    with store.transaction():
        store.save_manifest(manifest)
    assert store.last_manifest() == manifest


def test_a_manifest_with_shared_first_entries_round_trips(store: Store) -> None:
    def entry(n: int, kind: str) -> dict[str, object]:
        return {"id": f"{kind}-{n}", "kind": kind, "decision": "included",
                "reason": "applicable pin", "score": None, "tokens": n}

    pins = [entry(n, "pin") for n in range(3)]
    for shared, entries in ((3, [*pins, entry(0, "memory")]),
                            (3, [*pins, entry(1, "memory"), entry(2, "memory")]),  # same pins
                            (2, [*pins[:2], entry(3, "memory")]),  # the pins changed
                            (0, [entry(4, "memory")]),  # none shared: the head row unused
                            (9, pins)):  # more than it has: all of them
        manifest = {"provider": "remote", "fallback": None, "totalTokens": 7,
                    "blocks": [{"kind": "pins", "tokens": 5}], "entries": entries,
                    "notes": []}
        with store.transaction():
            store.save_manifest(manifest, shared=shared)
        stored = store.last_manifest()
        assert stored == manifest and list(stored) == list(manifest)  # the keys' order too
    assert store.health()["ok"]
