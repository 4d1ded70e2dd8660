"""Damage to the projection is noticed where it is read, then set aside and rebuilt.

Each test damages a real database the way a flipped byte would (a changed cell, a key
that hides a row, bytes that are not UTF-8 or not JSON) and reads through the service.
``per_read_only`` switches the whole-database check on open off, as for a database above
its size limit, so that the checks made on every read are tested on their own.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.store import integrity
from waymarks.store import projection as projection_module
from waymarks.store.integrity import ProjectionDamaged, verify_all
from waymarks.store.projection import ITEM_COLUMNS


@pytest.fixture(params=["open-check", "per-read-only"])
def check_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "per-read-only":
        monkeypatch.setattr(integrity, "OPEN_CHECK_MAX_BYTES", 0)
    return str(request.param)


def populate(app: Waymarks, project: Path) -> None:
    app.trust(str(project))
    for n in range(4):
        assert isinstance(app.pin(f"Pin {n}", scope=("session", "project")[n % 2]), Committed)
    for n in range(8):
        outcome = app.remember(f"Service {n} listens on port {7000 + n}",
                               scope=("session", "project")[n % 2], classification="internal")
        assert isinstance(outcome, Committed)
    app.recall("port")


def listing(app: Waymarks) -> list[tuple[str, str, str, str | None]]:
    return [(v.id, v.status, v.text, v.classification)
            for v in app.items("pin") + app.items("memory")]


def damage(home: Path, *statements: tuple[str, tuple[object, ...]]) -> None:
    """Change the database behind the projection's back (no checksum is updated)."""
    db = sqlite3.connect(home / "waymarks.db", isolation_level=None)
    try:
        db.execute("PRAGMA writable_schema = ON")
        for sql, args in statements:
            db.execute(sql, args)
    finally:
        db.close()


def reopen_damaged(make_app: Callable[..., Waymarks], home: Path, project: Path,
                   *statements: tuple[str, tuple[object, ...]],
                   read: Callable[[Waymarks], object] = listing) -> tuple[object, Waymarks]:
    app = make_app()
    populate(app, project)
    session = app.current_session()
    assert session is not None
    before = read(app)
    app.close()
    damage(home, *statements)
    again = make_app(session=str(session.path))
    after = read(again)
    assert after == before
    assert again.recovered is not None, "the damage went unnoticed"
    assert list(home.glob("waymarks.db.damaged-*"))
    return before, again


def one_item(column: str, value: object, kind: str = "memory") -> tuple[str, tuple[object, ...]]:
    return (f"UPDATE items SET {column} = ? WHERE rowid = (SELECT min(rowid) FROM items"
            f" WHERE kind = '{kind}')", (value,))


@pytest.mark.parametrize(("column", "value"), [
    ("text", "Service 0 listens on port 7001"),  # a changed digit: plausible, still text
    ("status", "superseded"),  # a valid status, not the one written
    ("status", "activf"),
    ("classification", "normal"),  # lower than written: a privacy leak if believed
    ("record", b'{"id":"x"}'),
    ("seq", 999),
    ("checksum", 1),
])
def test_a_changed_cell_is_damage(make_app: Callable[..., Waymarks], home: Path, project: Path,
                                  check_mode: str, column: str, value: object) -> None:
    reopen_damaged(make_app, home, project, one_item(column, value))


@pytest.mark.parametrize("column", ["session_id", "kind", "scope", "project_path"])
def test_a_row_hidden_by_a_changed_key_is_missed_not_dropped(
        make_app: Callable[..., Waymarks], home: Path, project: Path, check_mode: str,
        column: str) -> None:
    # the listing's WHERE would no longer find the row: its side comes up one short
    changed = {"session_id": "00000000-0000-4000-8000-000000000000", "kind": "memo",
               "scope": "sessiom", "project_path": "/elsewhere"}[column]
    where = "scope = 'project'" if column == "project_path" else "1"
    reopen_damaged(make_app, home, project, (
        f"UPDATE items SET {column} = ? WHERE rowid = (SELECT min(rowid) FROM items"
        f" WHERE kind = 'memory' AND {where})", (changed,)))


def test_the_newest_window_notices_a_damaged_status(
        make_app: Callable[..., Waymarks], home: Path, project: Path, check_mode: str) -> None:
    # the plan's continuity read: filtering active rows in SQL would silently skip it
    reopen_damaged(make_app, home, project, (
        "UPDATE items SET status = 'activf' WHERE rowid = (SELECT max(rowid) FROM items"
        " WHERE kind = 'memory')", ()),
        read=lambda app: [v.id for v in app.items("memory", recent_active=3)])


def test_a_lookup_by_id_notices_a_damaged_row(
        make_app: Callable[..., Waymarks], home: Path, project: Path, check_mode: str) -> None:
    def by_id(app: Waymarks) -> list[str]:
        wanted = [v.id for v in app.items("memory")][:3]
        return [v.text for v in app.items("memory", ids=wanted)]

    reopen_damaged(make_app, home, project, one_item("text", "Service 0 listens on port 1"),
                   read=by_id)


def test_recall_notices_a_damaged_record(
        make_app: Callable[..., Waymarks], home: Path, project: Path, check_mode: str) -> None:
    reopen_damaged(make_app, home, project, (
        "UPDATE recall_records SET text = 'Service 3 listens on port 9999'"
        " WHERE text LIKE 'Service 3 %'", ()),
        read=lambda app: app.recall("which port does service 3 listen on").digest)


@pytest.mark.parametrize("statement", [
    ("UPDATE items SET norm = CAST(x'ff20' AS TEXT) WHERE rowid = 1", ()),  # not UTF-8
    ("UPDATE items SET conflicts_with = '[1, ' WHERE rowid = 1", ()),  # not JSON
    ("INSERT OR REPLACE INTO meta (name, value) VALUES ('last_order', CAST(x'5bff' AS TEXT))",
     ()),
    ("INSERT OR REPLACE INTO meta (name, value) VALUES ('recall_seq', '99999')", ()),
    ("UPDATE mutations SET payload = x'7b' WHERE seq = 1", ()),
    ("UPDATE item_groups SET count = count + 1 WHERE grp = (SELECT min(grp) FROM item_groups)",
     ()),
])
def test_undecodable_or_inconsistent_bytes_are_damage(
        make_app: Callable[..., Waymarks], home: Path, project: Path,
        statement: tuple[str, tuple[object, ...]]) -> None:
    reopen_damaged(make_app, home, project, statement)


def test_a_schema_that_is_not_text_is_damage(make_app: Callable[..., Waymarks], home: Path,
                                             project: Path) -> None:
    reopen_damaged(make_app, home, project, (
        "UPDATE sqlite_master SET sql = CAST(x'435245415445205441424c4520ff28' AS TEXT)"
        " WHERE name = 'anomalies'", ()))


def test_a_gap_in_the_schema_history_is_damage_not_a_newer_release(
        make_app: Callable[..., Waymarks], home: Path, project: Path) -> None:
    # a flipped version number must not pass for "written by a newer Waymarks"
    reopen_damaged(make_app, home, project,
                   ("UPDATE schema_migrations SET version = 70 WHERE version = 6", ()))


def test_the_problem_reported_quotes_no_stored_content(
        make_app: Callable[..., Waymarks], home: Path, project: Path) -> None:
    _before, again = reopen_damaged(
        make_app, home, project,
        ("UPDATE items SET text = CAST(x'736563726574ff' AS TEXT) WHERE rowid = 1", ()))
    report = again.health()
    assert report["recovered"] and "secret" not in str(report)
    assert report["integrity"] == "ok" and report["ok"]


def test_verify_all_passes_a_sound_database_and_names_the_problem(
        app: Waymarks, project: Path, home: Path) -> None:
    populate(app, project)
    assert verify_all(app.projection.db) == []
    app.projection.db.execute(
        "UPDATE items SET reason = 'edited' WHERE rowid = (SELECT max(rowid) FROM items)")
    assert verify_all(app.projection.db) == ["an items row does not match its checksum"]
    row = app.projection.db.execute(f"SELECT {ITEM_COLUMNS} FROM items ORDER BY rowid DESC"
                                    ).fetchone()
    with pytest.raises(ProjectionDamaged):
        projection_module.state_from_row(row)
    assert isinstance(ProjectionDamaged("x"), sqlite3.DatabaseError)


@pytest.mark.parametrize(("statement", "read"), [
    (one_item("text", "Service 0 listens on port 7001"), listing),
    (("UPDATE recall_records SET text = 'Service 3 listens on port 9999'"
      " WHERE text LIKE 'Service 3 %'", ()),
     lambda app: app.recall("which port does service 3 listen on").digest),
])
def test_a_long_lived_process_notices_damage_to_rows_it_read_before(
        make_app: Callable[..., Waymarks], home: Path, project: Path,
        statement: tuple[str, tuple[object, ...]],
        read: Callable[[Waymarks], object]) -> None:
    # rows that passed once are remembered with their exact values (VerifiedMemo): a row
    # changed since must be checked again, not answered from what was derived before
    app = make_app(keep_recall_index=True)
    populate(app, project)
    before = read(app)
    assert read(app) == before  # the second read is served from the remembered rows
    damage(home, statement)
    assert app.recovered is None
    after = read(app)
    assert after == before
    assert app.recovered is not None, "the damage went unnoticed"
    assert list(home.glob("waymarks.db.damaged-*"))


def test_the_memo_reuses_only_an_identical_row() -> None:
    memo = integrity.VerifiedMemo[str](size=2)
    row = ("id-1", "text", 7)
    memo.put("id-1", row, "derived")
    assert memo.get("id-1", ("id-1", "text", 7)) == "derived"
    assert memo.get("id-1", ("id-1", "texT", 7)) is None  # any changed value is a miss
    assert memo.get("id-1", ["id-1", "text", 7]) is None  # not the same kind of row
    assert memo.get("id-2", row) is None
    memo.put("id-2", ("id-2",), "two")
    memo.put("id-3", ("id-3",), "three")  # full: the least recently used (id-1) goes
    assert memo.get("id-1", row) is None and memo.get("id-3", ("id-3",)) == "three"
    assert memo.get("id-2", ("id-2",)) == "two"


def test_the_memo_keeps_what_was_used_recently() -> None:
    # a full memo drops its least recently used quarter, not everything: a store larger
    # than the memo kept missing on the records every query shares
    memo = integrity.VerifiedMemo[int](size=8)
    for n in range(8):
        memo.put(n, (n,), n)
    assert memo.get(0, (0,)) == 0 and memo.get(1, (1,)) == 1  # used: now the newest
    memo.put(8, (8,), 8)  # full: 2, 3 go (the two least recently used)
    assert [n for n in range(9) if memo.get(n, (n,)) is not None] == [0, 1, 4, 5, 6, 7, 8]
    memo.put(4, (4, "changed"), 40)  # a changed row replaces its entry
    assert memo.get(4, (4,)) is None and memo.get(4, (4, "changed")) == 40


@pytest.mark.parametrize("column, value", [
    ("byte_offset", -5),  # every command read the session from a negative position
    ("byte_offset", 99_999_999),  # past the end: the session taken for truncated
    ("entries", -1),
    ("fingerprint", "0" * 16),
])
def test_a_damaged_checkpoint_is_damage(make_app: Callable[..., Waymarks], home: Path,
                                        project: Path, check_mode: str, column: str,
                                        value: object) -> None:
    reopen_damaged(make_app, home, project, (f"UPDATE sources SET {column} = ?", (value,)))


def test_a_sibling_checkpoint_past_the_end_keeps_its_items(
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]], make_app: Callable[..., Waymarks],
        home: Path, check_mode: str) -> None:
    # a damaged checkpoint of another session of the project withdrew its project items
    # (status truncated) and health blamed a sound file
    first, second = two_sessions()
    assert isinstance(first.remember("Sibling fact is A", scope="project"), Committed)
    first_id = first.current_session().session_id  # type: ignore[union-attr]
    second_path = second.current_session().path  # type: ignore[union-attr]
    assert "Sibling fact is A" in [v.text for v in second.items("memory")]
    first.close()
    second.close()
    damage(home, ("UPDATE sources SET byte_offset = 99999999, size = 0 WHERE session_id = ?",
                  (first_id,)))
    again = make_app(session=str(second_path))
    assert "Sibling fact is A" in [v.text for v in again.items("memory")]
    assert again.recovered is not None
    report = again.health()
    assert report["ok"], report["problems"]


@pytest.mark.parametrize(("column", "value"), [
    ("status", "retired"),  # a valid status, not the one written: "in effect" one short
    ("status", "superseded"),
    ("scope", "branch"),  # a valid scope, not the one written
])
def test_status_counts_notice_a_damaged_status_or_scope(
        make_app: Callable[..., Waymarks], home: Path, project: Path, check_mode: str,
        column: str, value: str) -> None:
    # status counted memory by status and scope in SQL, checked only against each side's
    # total: a changed status moved an item between tallies unseen
    _before, again = reopen_damaged(
        make_app, home, project,
        ("UPDATE items SET " + column + " = ? WHERE rowid = (SELECT min(rowid) FROM items"
         " WHERE kind = 'memory' AND scope = 'session' AND status = 'active')", (value,)),
        read=lambda app: (app.status()["memory"], app.status()["pins"]))
    assert again.status()["memory"]["applies"] == 8


@pytest.mark.parametrize("statement", [
    # the last entry's parent: the pins written after it fall off the active branch
    "UPDATE entries SET parent_id = 'ffffffff' WHERE idx = (SELECT max(idx) FROM entries)",
    "UPDATE entries SET seg = seg + 1 WHERE idx = (SELECT max(idx) FROM entries)",
    "UPDATE entries SET id = 'ffffffff' WHERE idx = (SELECT max(idx) FROM entries)",
])
def test_a_damaged_entry_index_row_is_damage(
        make_app: Callable[..., Waymarks], home: Path, project: Path, check_mode: str,
        statement: str) -> None:
    # the entry index (derived, read to open the active session at its checkpoint) had
    # no checksum: a damaged row put entries on the wrong branch, with health OK
    def applying(app: Waymarks) -> list[tuple[str, bool]]:
        return [(v.id, v.applies) for v in app.items("pin") + app.items("memory")]

    reopen_damaged(make_app, home, project, (statement, ()), read=applying)


def test_claim_subject_counts_are_checked_against_their_rows(
        make_app: Callable[..., Waymarks], home: Path, project: Path) -> None:
    # the write-time contradiction check's derived rows: a count or a row damaged hid a
    # contradiction from a write, and health said OK
    app = make_app()
    populate(app, project)
    assert isinstance(app.remember("The billing api port is 5"), Committed)  # caught up
    assert verify_all(app.projection.db) == []
    session = app.current_session()
    assert session is not None
    app.close()
    first_term = "(partition, term) = (SELECT partition, term FROM claim_terms LIMIT 1)"
    first_row = ("(partition, term, item) = (SELECT partition, term, item FROM"
                 " claim_subjects LIMIT 1)")
    for statement in (f"UPDATE claim_terms SET claims = claims + 1 WHERE {first_term}",
                      f"DELETE FROM claim_subjects WHERE {first_row}",
                      f"UPDATE claim_subjects SET item = 99999 WHERE {first_row}"):
        db = sqlite3.connect(home / "waymarks.db", isolation_level=None)
        try:
            db.execute("SAVEPOINT s")
            db.execute(statement)
            assert verify_all(db), statement
            db.execute("ROLLBACK TO s")
            db.execute("RELEASE s")
        finally:
            db.close()
    damage(home, (f"UPDATE claim_terms SET claims = claims + 1 WHERE {first_term}", ()))
    again = make_app(session=str(session.path))
    report = again.health()
    assert again.recovered is not None and report["ok"], report["problems"]
    assert "The billing api port is 5" in [v.text for v in again.items("memory")]
