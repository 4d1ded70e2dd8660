"""Damage to the learned-memory tables of ``waymarks.db`` is repaired like any other
damage: set aside (or, for a damaged checkpoint, folded again from the evolution ledger),
never a traceback, and an edit whose ledger line was appended is reported done.

Each test damages a real database (raw SQL or a truncation, as a bad disk or a hand edit
would) and runs the real CLI (in this process: ``tests/inprocess.py``).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.inprocess import Ran, waymarks

LEGACY = [
    {"version": 1, "id": "m1", "kind": "fact", "content": "The staging port is 8080",
     "sourceEntryId": "e-m1", "createdAt": "2026-05-01T10:00:00.000Z"},
    {"version": 1, "id": "m2", "kind": "preference", "content": "Prefers tabs over spaces",
     "sourceEntryId": "e-m2", "createdAt": "2026-05-01T10:00:00.000Z"},
]


def cli(home: Path, project: Path, *args: str) -> Ran:
    return waymarks("--home", str(home), "--cwd", str(project), *args)


def ok(home: Path, project: Path, *args: str) -> str:
    done = cli(home, project, *args)
    assert done.returncode == 0 and "Traceback" not in done.stderr, (args, done.stderr)
    return done.stdout


@pytest.fixture
def learned(home: Path, project: Path, tmp_path: Path) -> dict[str, str]:
    """A home with a pin and two learned claims; their IDs by content."""
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    (legacy / "memories.jsonl").write_text("".join(json.dumps(r) + "\n" for r in LEGACY))
    (legacy / "memory-actions.jsonl").write_text("")
    ok(home, project, "pin", "--", "Run the tests before every commit.")
    ok(home, project, "evolution", "import", str(legacy))
    claims = json.loads(ok(home, project, "--json", "evolution", "list"))["claims"]
    return {c["content"]: c["id"] for c in claims}


def damage(home: Path, statement: str) -> None:
    db = sqlite3.connect(home / "waymarks.db", isolation_level=None)
    try:
        db.execute(statement)
    finally:
        db.close()


def contents(home: Path, project: Path) -> list[str]:
    claims = json.loads(ok(home, project, "--json", "evolution", "list"))["claims"]
    return sorted(c["content"] for c in claims)


@pytest.mark.parametrize("how", ["truncated", "table dropped", "column dropped"])
def test_learned_memory_commands_repair_a_damaged_database(
        home: Path, project: Path, learned: dict[str, str], how: str) -> None:
    db = home / "waymarks.db"
    if how == "truncated":
        with open(db, "r+b") as handle:
            handle.truncate(8192)
    elif how == "table dropped":
        damage(home, "DROP TABLE evo_changes")
    else:
        damage(home, "ALTER TABLE evo_receipts DROP COLUMN verdict")
    for command in (("evolution", "list"), ("learn", "status"), ("evolution", "status"),
                    ("evolution", "show", learned["The staging port is 8080"])):
        ok(home, project, *command)
    assert contents(home, project) == sorted(learned)
    # one copy set aside (its -wal and -shm go with it when a connection, such as the
    # background embedder's, kept them at that moment)
    assert len([p for p in home.glob("waymarks.db.damaged-*")
                if not p.name.endswith(("-wal", "-shm"))]) == 1
    assert json.loads(ok(home, project, "--json", "health"))["ok"]


def test_health_first_notices_a_dropped_learned_table(
        home: Path, project: Path, learned: dict[str, str]) -> None:
    damage(home, "DROP TABLE evo_changes")
    out = ok(home, project, "health")
    assert out.startswith("OK after a repair") and "REPAIRED" in out
    assert contents(home, project) == sorted(learned)


@pytest.mark.parametrize("verb", ["forget", "pin"])
def test_an_edit_recorded_in_the_ledger_is_reported_done(
        home: Path, project: Path, learned: dict[str, str], verb: str) -> None:
    damage(home, "DROP TABLE evo_changes")
    ledger = home / "evolution" / "ledger.jsonl"
    lines = len(ledger.read_bytes().splitlines())
    claim = learned["The staging port is 8080"]
    ok(home, project, "evolution", verb, claim)
    assert len(ledger.read_bytes().splitlines()) == lines + 1
    shown = json.loads(ok(home, project, "--json", "evolution", "show", claim))
    assert (shown["state"] == "forgotten") if verb == "forget" else shown["pinned"]


@pytest.mark.parametrize("statement", [
    "UPDATE evo_meta SET value = '-5' WHERE name = 'offset'",
    "UPDATE evo_meta SET value = 'abc' WHERE name = 'offset'",
    "DELETE FROM evo_meta",  # no checkpoint, yet events folded: seq collided
])
def test_a_damaged_learned_checkpoint_is_folded_again(
        home: Path, project: Path, learned: dict[str, str], statement: str) -> None:
    damage(home, statement)
    ok(home, project, "recall", "staging port")
    ok(home, project, "plan", "--prompt", "staging")
    assert contents(home, project) == sorted(learned)
    db = sqlite3.connect(home / "waymarks.db")
    try:
        events = db.execute("SELECT count(*), max(seq) FROM evo_events").fetchone()
    finally:
        db.close()
    assert events[0] == events[1] > 0  # folded once, numbered from 1


def test_a_repair_is_reported_by_the_request_it_happened_in_not_every_later_one(
        home: Path, project: Path, learned: dict[str, str]) -> None:
    """A long-lived process (the MCP server, the Pi bridge, the Claude Code helper) runs
    many requests: the learned-memory store's repair is news to the request that made it."""
    damage(home, "DROP TABLE evo_changes")
    first = cli(home, project, "evolution", "list")
    assert first.returncode == 0 and "the database could not be used" in first.stderr
    later = cli(home, project, "evolution", "list")
    assert later.returncode == 0 and "damaged" not in later.stderr
    assert "recovered" not in json.loads(ok(home, project, "--json", "evolution", "list"))


def test_learned_memory_commands_refuse_a_newer_schema_untouched(
        home: Path, project: Path, learned: dict[str, str]) -> None:
    """A review: the learned-memory commands open the projection their own way, and a
    database of a newer release ended them in a traceback (nothing on standard output),
    where every other command refuses it, untouched, with the fix."""
    from waymarks.store.migrations import LATEST_VERSION

    damage(home, f"INSERT INTO schema_migrations VALUES ({LATEST_VERSION + 1}, 'later', 0)")
    before = (home / "waymarks.db").read_bytes()
    for argv in (["evolution", "list"], ["learn", "list"], ["evolution", "history"]):
        done = waymarks("--json", *argv, cwd=project, env={"WAYMARKS_HOME": str(home)})
        assert done.returncode == 1 and "Traceback" not in done.stderr, (argv, done.stderr)
        assert json.loads(done.stdout)["code"] == "schema_too_new", argv
    assert (home / "waymarks.db").read_bytes() == before
