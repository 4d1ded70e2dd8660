"""A pi-memory-evolution database's own import marker, job state and history (EVOLUTION
items 80 and 81), through the real CLI:

- its ``legacy_import`` marker decides whether the JSONL ledgers beside it were consumed:
  only a digest-proven empty v6 snapshot (completed, count 0, the digest of empty ledgers,
  no migration event) reopens them, so ``import DIR`` a second time imports those ledgers
  once; zero claims from a real ledger, or a migration event, keeps them closed; an
  unreadable marker stops the import with nothing written;
- pending, running and failed jobs below the failure cap are queued again (due now, their
  cause unknown); done jobs never run again; jobs at the cap and work (progress) sources
  are recorded settled;
- its event history comes along without content (ID, time, actor, claims touched), shown
  by ``show`` and kept across a deleted database.
Fixtures follow the format's public shape (metadata, memories, sources, events), built
here; the database is only ever read."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from tests.evolution.test_legacy_import import _cli, _memory, _write
from tests.evolution.test_legacy_sqlite import ROWS, _database, _state
from waymarks.core.evolution.model import claim_id
from waymarks.service.evolution import Evolution, ledger_path

EMPTY = hashlib.sha256(b"[null,null]").hexdigest()  # the original's digest: no ledgers
REAL = hashlib.sha256(json.dumps(["{\"version\":1}\n", None]).encode()).hexdigest()
T = "2026-03-01T10:00:00.000Z"


def _extend(path: Path, marker: dict[str, Any] | None, events: list[dict[str, Any]] = (),  # type: ignore[assignment]
            sources: list[tuple[str, dict[str, Any], str, int]] = ()) -> None:  # type: ignore[assignment]
    import sqlite3

    db = sqlite3.connect(path)
    if marker is not None:
        db.execute("INSERT INTO metadata VALUES ('legacy_import', ?)", (json.dumps(marker),))
    db.execute("ALTER TABLE sources ADD COLUMN failures INTEGER NOT NULL DEFAULT 0")
    db.execute("ALTER TABLE sources ADD COLUMN last_error TEXT NOT NULL DEFAULT ''")
    for event in events:
        db.execute("INSERT INTO events VALUES (?, ?, ?)",
                   (event["id"], event.get("scope", ""), json.dumps(event)))
    for sid, data, state, failures in sources:
        db.execute("INSERT INTO sources (id, data, state, failures, last_error) VALUES "
                   "(?, ?, ?, ?, 'provider')", (sid, json.dumps(data), state, failures))
    db.commit()
    db.close()


def _ledgers(directory: Path) -> None:
    _write(directory, [_memory("j1", "fact", "The queue runs on RabbitMQ 3", "/w/q")], [])


@pytest.mark.slow
def test_an_empty_v6_snapshot_reopens_the_ledgers_once(tmp_path: Path) -> None:
    home, cwd, legacy = tmp_path / "home", tmp_path / "cwd", tmp_path / "legacy"
    cwd.mkdir()
    path = _database(legacy, "6", ROWS)
    _extend(path, {"state": "completed", "count": 0, "digest": EMPTY})
    _ledgers(legacy)
    before = _state(legacy)
    first = _cli(home, cwd, "evolution", "import", str(legacy))
    assert first["claims"] == 4 and first["ledgersOpen"] is True
    second = _cli(home, cwd, "evolution", "import", str(legacy))
    assert second["claims"] == 1  # the ledgers the database never consumed
    contents = {c["content"] for c in _cli(home, cwd, "evolution", "list")["claims"]}
    assert "The queue runs on RabbitMQ 3" in contents
    assert "The staging port is 8080" in contents
    assert _cli(home, cwd, "evolution", "import", str(legacy), expect=2)["code"] == \
        "duplicate"
    assert _state(legacy) == before  # only read


@pytest.mark.slow
def test_zero_claims_from_a_real_ledger_or_a_migration_event_keep_it_closed(
        tmp_path: Path) -> None:
    migration = {"id": "e1", "at": T, "scope": "legacy", "actor": "migration",
                 "reason": "Import legacy JSONL", "before": [], "after": []}
    for name, marker, events in (
            ("real", {"state": "completed", "count": 0, "digest": REAL}, []),
            ("migrated", {"state": "completed", "count": 0, "digest": EMPTY}, [migration]),
            ("v5", None, [migration])):
        home, cwd, legacy = tmp_path / name / "home", tmp_path / name / "cwd", \
            tmp_path / name / "legacy"
        cwd.mkdir(parents=True)
        _extend(_database(legacy, "6" if name != "v5" else "5", ROWS), marker, events)
        _ledgers(legacy)
        assert _cli(home, cwd, "evolution", "import", str(legacy))["ledgersOpen"] is False
        size = ledger_path(home).stat().st_size
        refused = _cli(home, cwd, "evolution", "import", str(legacy), expect=2)
        assert refused["code"] == "duplicate", name
        assert ledger_path(home).stat().st_size == size  # nothing written


def test_an_unreadable_marker_stops_the_import(tmp_path: Path) -> None:
    home, cwd, legacy = tmp_path / "home", tmp_path / "cwd", tmp_path / "legacy"
    cwd.mkdir()
    _extend(_database(legacy, "6", ROWS), {"state": "replayed"})
    refused = _cli(home, cwd, "evolution", "import", str(legacy), expect=2)
    assert refused["code"] == "bad_input" and "legacy_import marker" in refused["message"]
    assert not ledger_path(home).exists()


@pytest.mark.slow
def test_job_state_and_history_come_along_without_content(tmp_path: Path) -> None:
    home, cwd, legacy = tmp_path / "home", tmp_path / "cwd", tmp_path / "legacy"
    cwd.mkdir()

    def source(sid: str, kind: str, content: str) -> dict[str, Any]:
        return {"id": sid, "scope": "/w/a", "kind": kind, "content": content, "createdAt": T}

    port = dict(ROWS[0])  # m1: the staging port
    events = [
        {"id": "e1", "at": "2026-04-01T10:00:00.000Z", "scope": "/w/a", "actor": "model",
         "reason": "the model's words about port 8080", "before": [], "after": [port]},
        {"id": "e2", "at": "2026-06-01T10:00:00.000Z", "scope": "/w/a", "actor": "user",
         "reason": "pinned", "before": [port], "after": [port]},
        {"id": "e3", "at": "2026-06-02T10:00:00.000Z", "scope": "/w/b", "actor": "model",
         "reason": "other", "before": [], "after": [{"id": "gone"}]},
    ]
    jobs = [("s1", source("s1", "user", "Remember: we release on Fridays"), "pending", 0),
            ("s2", source("s2", "user", "I prefer squash merges"), "failed", 2),
            ("s3", source("s3", "user", "Remember the old proxy is retired"), "failed", 5),
            ("s4", source("s4", "summary", "## Decisions\n- Use Postgres 16\n"), "done", 0),
            ("s5", source("s5", "progress", "git push failed"), "pending", 0),
            ("s6", source("s6", "user", "Remember: lint before commit"), "running", 1)]
    _extend(_database(legacy, "6", ROWS), {"state": "not_found"}, events, jobs)
    done = _cli(home, cwd, "evolution", "import", str(legacy))
    assert done["history"] == 3 and done["jobsDue"] == 3 and done["jobsSettled"] == 2
    with Evolution(home) as evo:
        evo.sync()
        due = sorted(s.text for s in evo.store.unsettled(100))
    assert due == ["I prefer squash merges", "Remember: lint before commit",
                   "Remember: we release on Fridays"]  # s3 paused, s4 done, s5 work
    cid = claim_id("/w/a", "fact", "The staging port is 8080")
    shown = _cli(home, cwd, "evolution", "show", cid)
    assert shown["legacyEvents"] == [
        {"id": "e2", "at": "2026-06-01T10:00:00.000Z", "actor": "user"},
        {"id": "e1", "at": "2026-04-01T10:00:00.000Z", "actor": "model"}]
    assert "the model's words" not in ledger_path(home).read_text()  # no reasons kept
    for path in home.glob("waymarks.db*"):
        path.unlink()
    assert _cli(home, cwd, "evolution", "show", cid)["legacyEvents"] == shown["legacyEvents"]


@pytest.mark.slow
def test_jobs_from_the_schema_3_table_shape_are_due_with_an_unknown_cause(
        tmp_path: Path) -> None:
    """Schema 3's ``sources`` has no failure columns (they came with schema 4): a failed
    job there counts as below the cap, is queued again and due now."""
    import sqlite3

    home, cwd, legacy = tmp_path / "home", tmp_path / "cwd", tmp_path / "legacy"
    cwd.mkdir()
    path = _database(legacy, "3", ROWS[:1])
    db = sqlite3.connect(path)
    db.execute("INSERT INTO sources (id, data, state, attempt) VALUES (?, ?, 'failed', 3)",
               ("s1", json.dumps({"id": "s1", "scope": "/w/a", "kind": "user", "createdAt": T,
                                  "content": "Remember: the proxy listens on 8443"})))
    db.commit()
    db.close()
    before = _state(legacy)
    done = _cli(home, cwd, "evolution", "import", str(legacy))
    assert done["jobsDue"] == 1 and done["jobsSettled"] == 0
    with Evolution(home) as evo:
        evo.sync()
        assert [s.text for s in evo.store.unsettled(10)] == [
            "Remember: the proxy listens on 8443"]
    assert _state(legacy) == before
