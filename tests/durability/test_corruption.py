"""A damaged projection is set aside and rebuilt from the ledgers; a newer one is refused."""

from __future__ import annotations

import hashlib
import json
import os
import random
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.inprocess import Ran, waymarks
from waymarks.cli.main import main
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, ServiceError
from waymarks.service.planning import plan_request
from waymarks.store.migrations import LATEST_VERSION


def populate(app: Waymarks) -> list[dict]:
    app.pin("Run the tests before every commit")
    claim = app.remember("The database port is 5433")
    assert isinstance(claim, Committed)
    app.supersede_memory(claim.id, "The database port is 5434")
    for n in range(30):  # enough rows for several database pages
        app.remember(f"Service number {n} answers on its own port {n}")
    return state(app)


def state(app: Waymarks) -> list[dict]:
    return [v.to_json() for v in app.items("pin") + app.items("memory")]


def damage_and_reopen(make_app: Callable[..., Waymarks], home: Path,
                      damage: Callable[[Path], None]) -> Waymarks:
    app = make_app()
    before = populate(app)
    session = app.current_session()
    assert session is not None
    app.close()  # checkpoints the WAL into the main file
    damage(home / "waymarks.db")
    again = make_app(session=str(session.path))
    assert state(again) == before
    return again


def truncate_half(db: Path) -> None:
    with open(db, "r+b") as handle:
        handle.truncate(db.stat().st_size // 2)


def random_bytes(db: Path) -> None:
    db.write_bytes(random.Random(7).randbytes(db.stat().st_size))


def garbage_pages(db: Path) -> None:
    data = bytearray(db.read_bytes())
    rng = random.Random(3)
    for page in range(1, len(data) // 4096):  # keep the header page, scribble on the rest
        start = page * 4096 + 100
        data[start:start + 200] = rng.randbytes(200)
    db.write_bytes(bytes(data))


def drop_a_table(db: Path) -> None:
    con = sqlite3.connect(db)
    con.execute("DROP TABLE items")
    con.commit()
    con.close()


def drop_the_vectors_table(db: Path) -> None:
    """Damage to the vectors' table itself is the database's (a damaged vector *row* is
    dropped on its own: tests/recall/test_hybrid_hostile.py)."""
    con = sqlite3.connect(db)
    con.execute("DROP TABLE recall_vectors")
    con.commit()
    con.close()


def forget_migrations(db: Path) -> None:
    con = sqlite3.connect(db)
    con.execute("DELETE FROM schema_migrations")
    con.commit()
    con.close()


@pytest.mark.parametrize(
    "damage", [truncate_half, random_bytes, garbage_pages, drop_a_table, drop_the_vectors_table,
               forget_migrations])
def test_damage_is_set_aside_and_rebuilt(make_app, home: Path, damage) -> None:  # type: ignore[no-untyped-def]
    again = damage_and_reopen(make_app, home, damage)
    report = again.health()
    assert report["integrity"] == "ok" and report["damagedCopies"]
    damaged = Path(report["damagedCopies"][0])
    assert damaged.exists() and damaged.name.startswith("waymarks.db.damaged-")
    assert not Path(f"{home / 'waymarks.db'}-wal.damaged").exists()
    outcome = again.pin("Writes work after recovery")
    assert isinstance(outcome, Committed)


def test_recovery_rebuilds_once_and_leaves_no_connection_open(
    make_app: Callable[..., Waymarks], home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # found in review: reading the ledgers during a recovery asked the app for its
    # projection before it held the new one, so a second projection was opened on the same
    # file, rebuilt, and never closed
    from waymarks.store.projection import Projection
    opened: list[Projection] = []
    rebuilds: list[int] = []
    real_init, real_rebuild = Projection.__init__, Projection.rebuild

    def counting_init(self: Projection, *args: object, **kwargs: object) -> None:
        real_init(self, *args, **kwargs)  # type: ignore[arg-type]
        opened.append(self)

    def counting_rebuild(self: Projection, *args: object, **kwargs: object) -> int:
        rebuilds.append(1)
        return real_rebuild(self, *args, **kwargs)  # type: ignore[arg-type]

    app = make_app()
    before = populate(app)
    session = app.current_session()
    assert session is not None
    app.close()
    random_bytes(home / "waymarks.db")
    monkeypatch.setattr(Projection, "__init__", counting_init)
    monkeypatch.setattr(Projection, "rebuild", counting_rebuild)
    again = make_app(session=str(session.path))
    assert state(again) == before and again.recovered is not None
    assert len(rebuilds) == 1
    live = [p for p in opened if p is not again.projection]
    for other in live:  # any other projection opened on the way was closed
        with pytest.raises(sqlite3.ProgrammingError):
            other.db.execute("SELECT 1")


def test_a_write_into_a_damaged_database_recovers_and_commits(
    make_app: Callable[..., Waymarks], home: Path
) -> None:
    app = make_app()
    populate(app)
    session = app.current_session()
    assert session is not None
    app.close()
    random_bytes(home / "waymarks.db")
    again = make_app(session=str(session.path))
    outcome = again.pin("Written while the database was damaged")
    assert isinstance(outcome, Committed)
    assert outcome.id in {v.id for v in again.items("pin")}
    assert again.recovered is not None


def test_a_newer_schema_is_refused_untouched(make_app: Callable[..., Waymarks],
                                             home: Path, project: Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    app = make_app()
    populate(app)
    app.close()
    db = home / "waymarks.db"
    con = sqlite3.connect(db)
    # a later release records its steps after ours, without a gap
    con.execute("INSERT INTO schema_migrations VALUES (?, 'from the future', 0)",
                (LATEST_VERSION + 1,))
    con.commit()
    con.close()
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    with pytest.raises(ServiceError) as info:
        make_app().items("pin")
    assert info.value.code == "schema_too_new" and "upgrade Waymarks" in str(info.value)
    # the advice moves the database aside: what only it keeps is said (following it
    # silently brought excluded sessions back)
    assert "exclude them again" in str(info.value)
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    assert main(["--json", "pins"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["code"] == "schema_too_new"
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
    assert not list(home.glob("waymarks.db.damaged-*"))


def test_cli_reports_recovery_without_a_traceback(make_app, home: Path, project: Path,  # type: ignore[no-untyped-def]
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    app = make_app()
    populate(app)
    app.close()
    random_bytes(home / "waymarks.db")
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    assert main(["--json", "health"]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["recovered"]["damaged"].startswith(str(home / "waymarks.db.damaged-"))
    assert "Traceback" not in captured.err
    assert os.path.exists(report["recovered"]["damaged"])


@pytest.mark.parametrize("statement", [
    # issue 14: each of these made every command, health and --json included, a traceback
    "UPDATE sqlite_master SET sql = CAST(x'435245415445205441424c4520ff28' AS TEXT)"
    " WHERE name = 'anomalies'",
    "UPDATE items SET record = CAST(x'7bff' AS BLOB) WHERE rowid = 1",
    "UPDATE items SET conflicts_with = '[' WHERE rowid = 1",
    "UPDATE items SET polarity_base = CAST(x'ff' AS TEXT) WHERE rowid = 1",
    "UPDATE recall_records SET fields = x'7b' WHERE rowid = 1",
])
@pytest.mark.slow
def test_undecodable_bytes_never_brick_the_cli(make_app: Callable[..., Waymarks], home: Path,
                                               project: Path, statement: str) -> None:
    app = make_app()
    populate(app)
    app.recall("which port does service 7 answer on")
    app.close()

    def cli(*args: str) -> Ran:
        return waymarks("--home", str(home), "--cwd", str(project), *args)

    expected = cli("--json", "memory").stdout
    con = sqlite3.connect(home / "waymarks.db")
    con.execute("PRAGMA writable_schema = ON")
    con.execute(statement)
    con.commit()
    con.close()
    for args in (("--json", "health"), ("health",), ("--json", "memory"),
                 ("recall", "service 7 port")):
        done = cli(*args)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (args, done.stderr)
    assert cli("--json", "memory").stdout == expected
    # one copy set aside (its -wal and -shm go with it when a connection, such as the
    # background embedder's, kept them at that moment)
    assert len([p for p in home.glob("waymarks.db.damaged-*")
                if not p.name.endswith(("-wal", "-shm"))]) == 1


@pytest.mark.parametrize("value", [
    '{"blocks": 5, "entries": [1, 2]}',  # JSON, but not the shape the readers index
    '{"entries": [{"id": "x"}]}',
    '{"entries": ' + "[" * 3000 + "]" * 3000 + "}",  # nested too deep to decode
])
def test_a_wrongly_shaped_manifest_is_damage_not_a_traceback(
        make_app: Callable[..., Waymarks], home: Path, project: Path, value: str) -> None:
    app = make_app()
    app.pin("Run the tests before every commit")
    plan_request(app, "what should I run before committing?")
    app.close()
    con = sqlite3.connect(home / "waymarks.db")
    con.execute("UPDATE meta SET value = ? WHERE name = 'last_manifest'", (value,))
    assert con.total_changes == 1
    con.commit()
    con.close()
    for command in ("manifest", "included", "tokens"):
        done = waymarks("--home", str(home), "--cwd", str(project), "--json", command)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (command, done.stderr)
        assert isinstance(json.loads(done.stdout), dict)
    # one copy set aside (its -wal and -shm go with it when a connection, such as the
    # background embedder's, kept them at that moment)
    assert len([p for p in home.glob("waymarks.db.damaged-*")
                if not p.name.endswith(("-wal", "-shm"))]) == 1


@pytest.mark.parametrize(("name", "value"), [
    ("manifest_head", '[{"id": "x"}]'),  # the pins' entries wrongly shaped
    ("manifest_head", "[]"),  # fewer than the manifest counts
    ("manifest_head", None),  # gone
])
def test_a_damaged_manifest_head_is_damage_not_a_traceback(
        make_app: Callable[..., Waymarks], home: Path, project: Path, name: str,
        value: str | None) -> None:
    app = make_app()
    app.pin("Run the tests before every commit")
    plan_request(app, "what should I run before committing?")
    app.close()
    con = sqlite3.connect(home / "waymarks.db")
    if value is None:
        con.execute("DELETE FROM meta WHERE name = ?", (name,))
    else:
        con.execute("UPDATE meta SET value = ? WHERE name = ?", (value, name))
    assert con.total_changes == 1
    con.commit()
    con.close()
    done = waymarks("--home", str(home), "--cwd", str(project), "--json", "manifest")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert isinstance(json.loads(done.stdout), dict)
    assert len([p for p in home.glob("waymarks.db.damaged-*")
                if not p.name.endswith(("-wal", "-shm"))]) == 1


def test_two_processes_that_find_one_damage_set_it_aside_once(
        make_app: Callable[..., Waymarks], home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # both held the damaged file; the second set aside the database the first had just
    # rebuilt, and the first's next write was committed into the set-aside copy
    from waymarks.store import integrity

    monkeypatch.setattr(integrity, "OPEN_CHECK_MAX_BYTES", 0)  # as above 512 KiB
    app = make_app()
    before = populate(app)
    session = app.current_session()
    assert session is not None
    app.close()
    con = sqlite3.connect(home / "waymarks.db")
    con.execute("UPDATE items SET text = 'changed' WHERE rowid = (SELECT min(rowid) FROM"
                " items WHERE kind = 'memory')")
    con.commit()
    con.close()
    first, second = make_app(session=str(session.path)), make_app(session=str(session.path))
    first.projection, second.projection  # noqa: B018 - both open the damaged file
    assert state(first) == before and first.recovered is not None
    assert state(second) == before and second.recovered is None  # reopened, not repaired
    outcome = first.pin("Written after the repair")
    assert isinstance(outcome, Committed)
    copies = [p for p in home.glob("waymarks.db.damaged-*")
              if not p.name.endswith(("-wal", "-shm"))]
    assert len(copies) == 1
    first.close()
    second.close()
    fresh = make_app(session=str(session.path))
    assert outcome.id in {v.id for v in fresh.items("pin")}
    assert fresh.recovered is None
    assert len([p for p in home.glob("waymarks.db.damaged-*")
                if not p.name.endswith(("-wal", "-shm"))]) == 1


def test_a_long_lived_host_reads_the_database_another_process_rebuilt(
        make_app: Callable[..., Waymarks], home: Path, project: Path) -> None:
    # an MCP server (or the hook helper) kept its connection to the file another process
    # had set aside: every memory_recall then answered unavailable, for good
    from waymarks.tool.recall import memory_recall

    host = make_app(keep_recall_index=True)
    host.remember("The db port is 5432")
    assert memory_recall(host, "db port")["outcome"] == "ok"
    session = host.current_session()
    assert session is not None
    con = sqlite3.connect(home / "waymarks.db")
    con.execute("UPDATE items SET checksum = checksum + 1")
    con.commit()
    con.close()
    done = waymarks("--home", str(home), "--cwd", str(project), "--session",
                    str(session.path), "--json", "memory", "add", "--", "The cache port is 6379")
    assert done.returncode == 0 and json.loads(done.stdout)["recovered"], done.stderr
    for _ in range(2):
        answer = memory_recall(host, "which cache port?")
        assert answer["outcome"] == "ok", answer
        assert "6379" in json.dumps(answer), answer
    assert host.recovered is None  # reopened, not repaired a second time
    assert len([p for p in home.glob("waymarks.db.damaged-*")
                if not p.name.endswith(("-wal", "-shm"))]) == 1


@pytest.mark.slow
def test_a_stopped_writer_makes_others_fail_clearly_not_wait_forever(
        make_app: Callable[..., Waymarks], home: Path) -> None:
    # a process suspended while it held the writer's turn made every other write wait
    import threading

    app = make_app(busy_timeout_ms=300)  # the wait a write gives another writer's turn
    app.pin("Run the tests before every commit")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time\n"
         f"fd = os.open({str(home / 'waymarks.db.lock')!r}, os.O_RDWR)\n"
         "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        outcome: list[object] = []

        def write() -> None:
            try:
                outcome.append(app.pin("Written while another process holds the turn"))
            except ServiceError as exc:
                outcome.append(exc)

        worker = threading.Thread(target=write, daemon=True)
        worker.start()
        worker.join(10)
        assert not worker.is_alive(), "the write waited for the stopped writer"
    finally:
        holder.kill()
        holder.wait()
    [error] = outcome
    assert isinstance(error, ServiceError) and "locked for too long" in str(error)
    assert [v.text for v in app.items("pin")] == ["Run the tests before every commit"]


def test_a_repair_names_the_session_files_it_could_not_read(
        make_app: Callable[..., Waymarks], home: Path) -> None:
    # the rebuild left an unreadable session file out and said nothing: health said OK
    app = make_app()
    populate(app)
    session = app.current_session()
    assert session is not None
    app.close()
    broken = session.path.with_name("2026-01-01T00-00-00-000Z_broken.jsonl")
    broken.write_bytes(b"\xff\xfe not a session header\n")
    random_bytes(home / "waymarks.db")
    again = make_app(session=str(session.path))
    again.items("pin")
    assert again.recovered is not None
    assert any(str(broken) in caveat for caveat in again.recovered["caveats"])
    report = again.health()
    assert not report["ok"] and any(str(broken) in p for p in report["problems"])


def test_json_output_reports_a_repair(make_app: Callable[..., Waymarks], home: Path,
                                      project: Path) -> None:
    # with --json a repair was reported nowhere: no field, nothing on stderr
    app = make_app()
    populate(app)
    app.close()
    random_bytes(home / "waymarks.db")
    done = waymarks("--home", str(home), "--cwd", str(project), "--json", "pins")
    assert done.returncode == 0, done.stderr
    recovered = json.loads(done.stdout)["recovered"]
    assert recovered["damaged"].startswith(str(home / "waymarks.db.damaged-"))
    assert os.path.exists(recovered["damaged"])


@pytest.mark.slow
def test_a_command_that_fails_after_a_repair_reports_the_repair_too(
        make_app: Callable[..., Waymarks], home: Path, project: Path) -> None:
    # the repair was reported only with a result: a refusal after it said nothing of it,
    # and the text note went to standard output when standard error was closed
    app = make_app()
    populate(app)
    app.close()
    sound = (home / "waymarks.db").read_bytes()

    def damaged_run(*argv: str, closed_stderr: bool = False) -> tuple[int, str, str]:
        (home / "waymarks.db").write_bytes(sound)
        random_bytes(home / "waymarks.db")
        done = subprocess.run(
            [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "--cwd",
             str(project), *argv], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if not closed_stderr else None, text=True, check=False,
            preexec_fn=(lambda: os.close(2)) if closed_stderr else None)
        return done.returncode, done.stdout, done.stderr or ""

    code, out, _ = damaged_run("--json", "memory", "include", "0000dead")
    document = json.loads(out)
    assert code == 2 and document["code"] == "not_found", out
    assert os.path.exists(document["recovered"]["damaged"])
    code, _, err = damaged_run("memory", "include", "0000dead")
    assert code == 2 and "the database could not be used" in err, err
    code, out, _ = damaged_run("pins", closed_stderr=True)
    assert code == 0 and "damaged" not in out and "Run the tests" in out, out
