"""The projection is disposable: incremental projection must equal a full rebuild."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import CountingIds, StepClock
from tests.lanes import lanes
from waymarks.core.rules import ItemState
from waymarks.ledger.discovery import canonical_project_path, session_dir
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.store.projection import HELD_SEQ


def snapshot(db_path: Path) -> dict[str, list[tuple]]:
    """Everything derived that must not depend on how it was built."""
    db = sqlite3.connect(db_path)
    try:
        items = db.execute(
            "SELECT id, kind, scope, partition, project_path, key, classification, text, norm,"
            " polarity_base, polarity_sign, status, reason, superseded_by, supersedes,"
            " conflicts_with, session_id, entry_id, branch_leaf_id, created_at, seq, record,"
            " checksum FROM items ORDER BY id").fetchall()
        # a row held back (an excluded source's) numbers no place in the replay order:
        # its seq only counts on from HELD_SEQ in the order such rows came
        mutations = db.execute(
            "SELECT CASE WHEN seq < ? THEN seq END, session_id, entry_id, entry_index,"
            " timestamp_ms, mutation_id, kind, operation, target_id, payload, effect, note,"
            " checksum FROM mutations ORDER BY seq >= ?, CASE WHEN seq < ? THEN seq END,"
            " session_id, entry_id", (HELD_SEQ, HELD_SEQ, HELD_SEQ)).fetchall()
        groups = db.execute("SELECT kind, grp, count FROM item_groups ORDER BY kind, grp"
                            ).fetchall()
        anomalies = db.execute("SELECT * FROM anomalies ORDER BY session_id, line").fetchall()
        return {"items": items, "mutations": mutations, "anomalies": anomalies,
                "groups": groups}
    finally:
        db.close()


def delete_db(home: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{home / 'waymarks.db'}{suffix}").unlink(missing_ok=True)


TEXTS = ["alpha is on", "alpha is off", "beta = 3", "beta = 4", "Use tabs", "use tabs.",
         "Gamma defaults to fast", "gamma defaults to slow", "delta feature is enabled",
         "delta feature is disabled", "plain note one", "plain note two"]

OPS = st.lists(
    st.tuples(
        st.sampled_from(["pin", "remember", "supersede", "status", "say", "branch", "switch"]),
        st.sampled_from(TEXTS),
        st.sampled_from(["session", "project", "branch"]),
        st.integers(min_value=0, max_value=50),
    ),
    min_size=1, max_size=25,
)


def run_ops(apps: list[Waymarks], ops: list[tuple[str, str, str, int]]) -> None:
    ids: list[str] = []
    entries: list[list[str]] = [[] for _ in apps]
    current = 0
    for op, text, scope, pick in ops:
        app = apps[current]
        if op == "switch":
            current = pick % len(apps)
        elif op == "say":
            entries[current].append(app.session_say(text))
        elif op == "branch" and entries[current]:
            app.session_branch(entries[current][pick % len(entries[current])])
        elif op == "pin":
            outcome = app.pin(text, scope=scope)
            if isinstance(outcome, Committed):
                ids.append(outcome.id)
        elif op == "remember":
            outcome = app.remember(text, scope="session" if scope == "branch" else scope)
            if isinstance(outcome, Committed):
                ids.append(outcome.id)
        elif op == "supersede" and ids:
            target = ids[pick % len(ids)]
            for attempt in (app.supersede_memory(target, text), app.pin(text, supersedes=target)):
                if isinstance(attempt, Committed):
                    ids.append(attempt.id)
                    break
        elif op == "status" and ids:
            target = ids[pick % len(ids)]
            app.unpin(target, "r")
            app.set_memory_status(target, "expired" if pick % 2 else "invalid", "r")


@lanes(quick=8, long=40)
def test_incremental_equals_rebuild(tmp_path_factory: pytest.TempPathFactory,
                                    examples: int) -> None:
    @settings(max_examples=examples, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(ops=OPS, skew=st.integers(min_value=-5000, max_value=5000))
    def check(ops: list[tuple[str, str, str, int]], skew: int) -> None:
        root = tmp_path_factory.mktemp("prop")
        home, project = root / "home", root / "project"
        project.mkdir()
        start = datetime(2026, 1, 1, tzinfo=UTC)
        # two sessions of one trusted project; the second's clock is skewed so that its
        # mutations often sort before the first's and the projection must re-fold
        apps = [
            Waymarks(home, cwd=str(project), clock=StepClock(start), ids=CountingIds(1)),
            Waymarks(home, cwd=str(project), clock=StepClock(start + timedelta(milliseconds=skew)),
                     ids=CountingIds(2)),
        ]
        apps[0].trust(str(project))
        apps[0].session_new()
        apps[1].session_new()
        try:
            run_ops(apps, ops)
            for app in apps:
                app.items("pin")  # bring each session's tail into the projection
        finally:
            for app in apps:
                app.close()
        incremental = snapshot(home / "waymarks.db")
        with Waymarks(home, cwd=str(project)) as fresh:
            fresh.rebuild_index()
        assert snapshot(home / "waymarks.db") == incremental
        assert_recall_built_as_lazily(home / "waymarks.db")
    check()


def external_line(path: Path, clock: StepClock, ids: list[str], n: int, op: str, text: str,
                  scope: str, pick: int) -> None:
    """Append to the ledger at ``path`` what another program (Pi) could have written to
    it: a memory add or supersede of any scope, or a status change of any item ID."""
    stamp = clock.now()
    ms = int(stamp.timestamp() * 1000)
    item_id = f"00000003-0000-4000-8000-{n:012x}"
    data: dict[str, object] = {"schemaVersion": 1, "mutationId": f"m-{n}", "createdAt": ms}
    if op == "status":  # (of no item yet: only a re-fold can tell whether it is held)
        data.update(operation="status", status="expired", memoryId=ids[pick % len(ids)]
                    if ids and pick % 5 else f"00000003-0000-4000-8000-{n + 1:012x}")
    else:
        item: dict[str, object] = {"id": item_id, "scope": scope, "claim": text,
                                   "createdAt": ms, "sourceEntryIds": []}
        if scope == "project":
            item["projectPath"] = canonical_project_path(str(path.parent.parent / "project"))
        data.update(operation="add", item=item)
        if op == "supersede" and ids:
            data.update(operation="supersede", previousId=ids[pick % len(ids)])
        ids.append(item_id)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"type": "custom", "customType": "ds4-context-memory-v1",
                                 "data": data, "id": f"e{n:07x}", "parentId": None,
                                 "timestamp": stamp.isoformat().replace("+00:00", "Z")})
                     + "\n")


@lanes(quick=8, long=40)
def test_incremental_equals_rebuild_with_a_withheld_session(
        tmp_path_factory: pytest.TempPathFactory, examples: int) -> None:
    """A session the projection withholds (its ledger opened by path outside the
    project's session directories) is synced without a re-fold where its new records
    tell what it holds back: the state still equals a rebuild's."""
    @settings(max_examples=examples, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(ops=OPS, skew=st.integers(min_value=-5000, max_value=5000),
           external=st.lists(st.tuples(st.sampled_from(["add", "supersede", "status"]),
                                       st.sampled_from(TEXTS),
                                       st.sampled_from(["session", "project"]),
                                       st.integers(min_value=0, max_value=50)),
                             max_size=8))
    def check(ops: list[tuple[str, str, str, int]], skew: int,
              external: list[tuple[str, str, str, int]]) -> None:
        root = tmp_path_factory.mktemp("held")
        home, project = root / "home", root / "project"
        project.mkdir()
        start = datetime(2026, 1, 1, tzinfo=UTC)
        shared = root / "elsewhere" / "shared.jsonl"
        shared.parent.mkdir()
        shared.write_text(json.dumps({
            "type": "session", "version": 3, "id": "00000003-0000-4000-8000-000000000000",
            "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(project)}) + "\n")
        apps = [
            Waymarks(home, cwd=str(project), clock=StepClock(start), ids=CountingIds(1)),
            Waymarks(home, cwd=str(project), session=str(shared),
                     clock=StepClock(start + timedelta(milliseconds=skew)), ids=CountingIds(2)),
        ]
        apps[0].trust(str(project))
        apps[0].session_new()
        outside = StepClock(start + timedelta(milliseconds=skew + 1))
        ids: list[str] = []
        try:
            run_ops(apps, ops[:len(ops) // 2])
            for n, (op, text, scope, pick) in enumerate(external):
                external_line(shared, outside, ids, n + 1, op, text, scope, pick)
                apps[pick % 2].items("pin")  # either session reads the new line
            run_ops(apps[::-1], ops[len(ops) // 2:])  # (the withheld one writing first)
            for app in apps:
                app.items("pin")  # bring each session's tail into the projection
            placed = apps[1]._projection.db.execute(
                "SELECT count(*) FROM sources WHERE status = 'foreign-location'").fetchone()
            assert placed == (1,)
        finally:
            for app in apps:
                app.close()
        incremental = snapshot(home / "waymarks.db")
        with Waymarks(home, cwd=str(project)) as fresh:
            fresh.rebuild_index()
        assert snapshot(home / "waymarks.db") == incremental
    check()


def test_writes_into_a_withheld_session_apply_without_a_refold(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each write into a ledger opened by path outside the project's session directories,
    and the read that first registered it, re-folded every stored mutation (7-12 s of CPU
    at 60k claims); what its new records hold back is told from them, and the state is
    still a rebuild's."""
    from waymarks.store.projection import Projection

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    shared = tmp_path / "elsewhere" / "shared.jsonl"
    shared.parent.mkdir()
    shared.write_text(json.dumps({
        "type": "session", "version": 3, "id": "00000003-0000-4000-8000-000000000000",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(project)}) + "\n")
    owner = Waymarks(home, cwd=str(project), ids=CountingIds(1),
                     clock=StepClock(datetime(2026, 1, 2, tzinfo=UTC)))
    owner.trust(str(project))
    assert isinstance(owner.remember("alpha is on", scope="project"), Committed)
    app = Waymarks(home, cwd=str(project), session=str(shared), ids=CountingIds(2),
                   clock=StepClock(datetime(2026, 1, 3, tzinfo=UTC)))
    outside = StepClock(datetime(2026, 1, 3, 1, tzinfo=UTC))
    ids: list[str] = []
    external_line(shared, outside, ids, 1, "add", "beta = 3", "project", 0)
    refolds: list[int] = []
    real = Projection.refold
    monkeypatch.setattr(Projection, "refold", lambda self: (refolds.append(1), real(self)))
    try:
        app.items("memory")  # registers the file: held back from its first record
        written = [app.remember(text, scope="session")
                   for text in ("Use tabs", "plain note one")]
        assert all(isinstance(w, Committed) for w in written)
        external_line(shared, outside, ids, 2, "add", "gamma defaults to fast", "project", 0)
        external_line(shared, outside, ids, 3, "status", "", "project", 1)  # held
        assert isinstance(app.remember("plain note two", scope="session"), Committed)
        assert [v.text for v in app.items("memory")] == ["alpha is on", "Use tabs",
                                                        "plain note one", "plain note two"]
        assert refolds == []
    finally:
        app.close()
        owner.close()
    incremental = snapshot(home / "waymarks.db")
    held = [row for row in incremental["mutations"] if row[0] is None]  # (no place)
    assert [row[2] for row in held] == ["e0000001", "e0000002", "e0000003"]
    with Waymarks(home, cwd=str(project)) as fresh:
        fresh.rebuild_index()
    assert snapshot(home / "waymarks.db") == incremental


def test_a_write_after_a_held_back_record_is_numbered_as_a_rebuild_numbers_it(
        tmp_path: Path) -> None:
    """A mutation a withheld source holds back (a project claim in a ledger opened by path
    outside the project's session directories) was numbered right after those applied,
    so the next write of the project took the number after it, and its item differed
    from a rebuild's (its seq, and with it the row's checksum)."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    shared = tmp_path / "elsewhere" / "shared.jsonl"
    shared.parent.mkdir()
    shared.write_text(json.dumps({
        "type": "session", "version": 3, "id": "00000003-0000-4000-8000-000000000000",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(project)}) + "\n")
    external_line(shared, StepClock(datetime(2026, 1, 1, tzinfo=UTC)), [], 1, "add",
                  "beta = 3", "project", 0)
    with Waymarks(home, cwd=str(project), session=str(shared), ids=CountingIds(2),
                  clock=StepClock(datetime(2026, 1, 2, tzinfo=UTC))) as opener:
        assert isinstance(opener.remember("plain note one", scope="session"), Committed)
    with Waymarks(home, cwd=str(project), ids=CountingIds(1),
                  clock=StepClock(datetime(2026, 1, 3, tzinfo=UTC))) as owner:
        owner.trust(str(project))
        assert isinstance(owner.remember("alpha is on", scope="project"), Committed)
    incremental = snapshot(home / "waymarks.db")
    assert [row[0] for row in incremental["mutations"]] == [1, 2, None]
    with Waymarks(home, cwd=str(project)) as fresh:
        fresh.rebuild_index()
    assert snapshot(home / "waymarks.db") == incremental


def assert_recall_built_as_lazily(path: Path) -> None:
    """The recall index a rebuild wrote from its fold equals, row for row, the one the
    lazy path (reset, then ``catch_up`` reading ``items`` back) writes."""
    from tests.store.test_recall_build import index_rows
    from waymarks.store import recall_index

    db = sqlite3.connect(path, isolation_level=None)
    try:
        built = index_rows(db)
        memories = db.execute("SELECT count(*) FROM items WHERE kind = 'memory'").fetchone()[0]
        assert len(db.execute("SELECT 1 FROM recall_records").fetchall()) == memories
        meta = "SELECT name, value FROM meta WHERE name IN ('recall_seq', 'recall_shortest')"
        kept = sorted(db.execute(meta).fetchall())
        db.execute("BEGIN")
        recall_index.reset(db)
        assert recall_index.RecallIndex(db).catch_up() == memories
        assert index_rows(db) == built
        assert sorted(db.execute(meta).fetchall()) == kept
        db.execute("ROLLBACK")
    finally:
        db.close()


def test_deleting_the_database_restores_the_same_state(
    make_app: Callable[..., Waymarks], home: Path, project: Path
) -> None:
    app = make_app()
    app.trust(str(project))
    app.pin("alpha pin", scope="project")
    claim = app.remember("Alpha mode defaults to strict")
    assert isinstance(claim, Committed)
    app.supersede_memory(claim.id, "Alpha mode defaults to lenient")
    app.unpin(app.items("pin")[0].id, "done")
    before = [v.to_json() for v in app.items("pin") + app.items("memory")]
    snap = snapshot(home / "waymarks.db")
    app.close()
    delete_db(home)
    again = make_app()
    assert [v.to_json() for v in again.items("pin") + again.items("memory")] == before
    assert snapshot(home / "waymarks.db") == snap


def test_unknown_schema_and_custom_types_are_kept_and_reported(app: Waymarks) -> None:
    app.pin("known pin")
    session = app.current_session()
    assert session is not None
    future = {"type": "custom", "customType": "ds4-context-memory-v1", "id": "abcdef01",
              "parentId": session.leaf_id, "timestamp": "2026-01-01T00:00:01.000Z",
              "data": {"schemaVersion": 2, "mutationId": "m", "operation": "merge"}}
    other = {**future, "id": "abcdef02", "customType": "ds4-context-timeline-v1",
             "data": {"schemaVersion": 1}}
    broken = {**future, "id": "abcdef03", "data": {"schemaVersion": 1, "mutationId": "m2",
                                                    "createdAt": 1, "operation": "add"}}
    before = session.path.read_bytes()
    extra = b"".join(json.dumps(x).encode() + b"\n" for x in (future, other, broken))
    session.path.write_bytes(before + extra + b"{not json\n")
    report = app.health()
    assert report["anomalyCounts"] == {"skipped": 1, "unknown": 2, "malformed": 1}
    assert [v.text for v in app.items("memory")] == []
    assert session.path.read_bytes() == before + extra + b"{not json\n"  # nothing rewritten


def test_a_late_sibling_session_is_folded_in_canonical_order(
    home: Path, project: Path, tmp_path: Path
) -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    late = Waymarks(home, cwd=str(project), clock=StepClock(start), ids=CountingIds(1))
    late.trust(str(project))
    late.session_new()
    later_claim = late.remember("Alpha mode defaults to strict", scope="project")
    # written elsewhere (its own database, so it could not see the other claim) with an
    # earlier clock: once read here it sorts first, and the projection must re-fold
    elsewhere = Waymarks(tmp_path / "other-home", cwd=str(project), ids=CountingIds(2),
                         clock=StepClock(start - timedelta(seconds=5)))
    elsewhere.trust(str(project))
    earlier_claim = elsewhere.remember("Alpha mode defaults to lenient", scope="project")
    assert isinstance(later_claim, Committed) and isinstance(earlier_claim, Committed)
    written = elsewhere.current_session().path  # type: ignore[union-attr]
    elsewhere.close()
    # synced into this home's session directory of the project (a file opened where it
    # lies elsewhere would not speak for the project)
    earlier_file = session_dir(home, canonical_project_path(project)) / written.name
    written.rename(earlier_file)
    with Waymarks(home, cwd=str(project), session=str(earlier_file)) as reader:
        states = {v.id: v for v in reader.items("memory")}
    assert states[earlier_claim.id].status == "active"
    assert states[later_claim.id].status == "invalid"
    assert states[later_claim.id].reason == f"conflicts with active memory {earlier_claim.id}"
    assert states[later_claim.id].conflicts_with == (earlier_claim.id,)
    incremental = snapshot(home / "waymarks.db")
    late.rebuild_index()
    assert snapshot(home / "waymarks.db") == incremental
    late.close()


def test_a_rebuild_pauses_the_cyclic_gc_for_the_recall_index_too(
        app: Waymarks, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The recall index is built inside the rebuild while every record is alive: a full
    collection then rescans all of them (issue 15). The collector is back on afterwards,
    and the rebuilt projection is the one built incrementally."""
    import gc

    from waymarks.store import recall_index

    for i in range(5):
        assert isinstance(app.remember(f"alpha note about topic{i} and its owners"), Committed)
    before = snapshot(home / "waymarks.db")
    seen: list[bool] = []
    original = recall_index.RecallIndex.index_states

    def watching(self: recall_index.RecallIndex, states: Iterable[ItemState]) -> int:
        seen.append(gc.isenabled())
        return original(self, states)

    monkeypatch.setattr(recall_index.RecallIndex, "index_states", watching)
    assert gc.isenabled()
    app.rebuild_index()
    assert seen and not any(seen)
    assert gc.isenabled()
    assert snapshot(home / "waymarks.db") == before


def test_a_rebuild_counts_the_recall_generation_up_for_other_processes(
        tmp_path: Path) -> None:
    # found in review: a rebuild emptied meta, so the generation went back to 1 and a
    # long-lived reader (the MCP server, the helper) kept postings for renumbered rows,
    # then set the healthy database aside as damaged
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    first = Waymarks(home, cwd=str(project))
    first.trust(str(project))
    first.session_new()
    assert isinstance(first.remember("alpha cache port is 6380", scope="project"), Committed)
    gone = first.current_session().path  # type: ignore[union-attr]
    second = Waymarks(home, cwd=str(project))
    second.session_new()
    assert isinstance(second.remember("billing service uses postgres database",
                                      scope="project"), Committed)
    reader = Waymarks(home, cwd=str(project),
                      session=str(second.current_session().path),  # type: ignore[union-attr]
                      keep_recall_index=True)
    question = "which database does billing use"
    assert reader.recall(question).selected
    db = sqlite3.connect(home / "waymarks.db")

    def generation() -> int:
        return int(db.execute("SELECT value FROM meta WHERE name = 'recall_generation'"
                              ).fetchone()[0])

    before = generation()
    first.close()
    second.close()
    gone.unlink()
    with Waymarks(home, cwd=str(project)) as other:
        other.rebuild_index()
    assert generation() > before
    after = reader.recall(question)
    assert reader.recovered is None
    assert len(after.selected) == 1 and "billing service" in after.digest
    assert not list(home.glob("waymarks.db.damaged-*"))
    db.close()
    reader.close()


def _count_replays(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The mutations each full replay into a projection (``Projection.rebuild``) made,
    from now on in this test."""
    from waymarks.store.projection import Projection

    replays: list[int] = []
    original = Projection.rebuild

    def counting(self: Projection, sessions: Iterable[object], now_ms: int) -> int:
        replays.append(replayed := original(self, sessions, now_ms))  # type: ignore[arg-type]
        return replayed

    monkeypatch.setattr(Projection, "rebuild", counting)
    return replays


def test_rebuild_index_on_a_home_without_its_database_replays_the_ledgers_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # found timing `waymarks rebuild-index` at 100k mutations: with the database moved
    # aside (as the schema-too-new advice says) or deleted, opening it filled it from
    # every ledger, then the rebuild replayed them all again (twice the time, same rows)
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    with Waymarks(home, cwd=str(project)) as app:
        app.pin("Run the linters before merging.")
        assert isinstance(app.remember("the billing cache port is 6380"), Committed)
    before = snapshot(home / "waymarks.db")
    for path in home.glob("waymarks.db*"):
        path.unlink()
    replays = _count_replays(monkeypatch)
    with Waymarks(home, cwd=str(project)) as app:
        assert app.rebuild_index()["mutations"] == 2
        assert app.health()["ok"] is True
    assert replays == [2]
    assert snapshot(home / "waymarks.db") == before


def test_rebuild_index_on_a_damaged_database_replays_the_ledgers_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the same for a database found damaged as rebuild-index opens it: set aside and
    # filled anew, then replayed again by the rebuild
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    with Waymarks(home, cwd=str(project)) as app:
        app.pin("Run the linters before merging.")
    before = snapshot(home / "waymarks.db")
    for path in home.glob("waymarks.db-*"):
        path.unlink()
    (home / "waymarks.db").write_bytes(b"not a database at all" * 300)
    replays = _count_replays(monkeypatch)
    with Waymarks(home, cwd=str(project)) as app:
        assert app.rebuild_index()["mutations"] == 1
        assert app.recovered is not None and app.recovered["damaged"]
        assert app.health()["ok"] is True
    assert replays == [1]
    assert snapshot(home / "waymarks.db") == before
    assert list(home.glob("waymarks.db.damaged-*"))
