"""A full disk or a read-only home: writes fail clearly, nothing partial is acknowledged,
and the next write after the problem is fixed succeeds.

These tests mount a small tmpfs, so they need root (CI runs as root); elsewhere they are
skipped with the reason printed.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.store.test_rebuild import snapshot
from waymarks.cli.main import main
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, ServiceError
from waymarks.service.recovery import database_error


@contextlib.contextmanager
def tmpfs(mount: Path, options: str) -> Iterator[Path]:
    """A tmpfs mounted on new folder ``mount`` with ``options`` (skips without root)."""
    if os.geteuid() != 0:
        pytest.skip(f"mounting a tmpfs needs root; running as uid {os.geteuid()}")
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mount)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    with tmpfs(tmp_path / "fs", "size=3m") as mount:
        yield mount


def fill(directory: Path) -> Path:
    """Write zeros until the file system has no byte left."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        for size in (65536, 4096, 512, 64, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                continue
    finally:
        os.close(fd)
    return filler


def test_disk_full_acknowledges_only_what_is_stored(small_fs: Path, project: Path) -> None:
    home = small_fs / "home"
    app = Waymarks(home, cwd=str(project))
    for n in range(5):
        assert isinstance(app.pin(f"before the disk filled {n}"), Committed)
    filler = fill(small_fs)
    acknowledged, failed = [], []
    for n in range(40):
        text = f"while the disk is full {n} " + "x" * 300
        try:
            outcome = app.pin(text)
        except (ServiceError, OSError) as exc:
            failed.append((text, str(exc)))
            continue
        assert isinstance(outcome, Committed)
        acknowledged.append(outcome.id)
    assert failed, "the disk never filled up"
    assert all(("space" in message or "full" in message) for _text, message in failed)
    filler.unlink()
    after = app.pin("after space returned")
    assert isinstance(after, Committed) and after.warning is None
    texts = {v.text for v in app.items("pin")}
    ids = {v.id for v in app.items("pin")}
    assert set(acknowledged) <= ids
    assert not any(text in texts for text, _message in failed)
    health = app.health()
    assert health["ok"] and health["session"]["partialTailBytes"] == 0
    app.close()
    incremental = snapshot(home / "waymarks.db")
    with Waymarks(home, cwd=str(project)) as fresh:
        fresh.rebuild_index()
    assert snapshot(home / "waymarks.db") == incremental


def test_read_only_home_fails_clearly_then_recovers(
    small_fs: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = small_fs / "home"
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    assert main(["pin", "--", "written while writable"]) == 0
    capsys.readouterr()
    subprocess.run(["mount", "-o", "remount,ro", str(small_fs)], check=True)
    try:
        assert main(["--json", "pin", "--", "written while read-only"]) == 1
        result = json.loads(capsys.readouterr().out)
        assert result["outcome"] == "error" and "read-only" in result["message"].lower()
        assert "Remount it read-write" in result["message"]  # and the fix
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_fs)], check=True)
    assert main(["--json", "pin", "--", "written after remount"]) == 0
    capsys.readouterr()
    assert main(["--json", "pins"]) == 0
    texts = [i["text"] for i in json.loads(capsys.readouterr().out)["items"]]
    assert texts == ["written while writable", "written after remount"]


def test_an_io_error_on_a_full_disk_is_reported_as_a_full_disk(small_fs: Path) -> None:
    """SQLite in WAL mode meets a full disk as an I/O error (``SQLITE_IOERR_SHMSIZE``
    when its shared-memory file cannot grow), not ``SQLITE_FULL``: on a file system with
    (almost) no room left the person is told the disk is full and to free space, not to
    check a failing disk. With room left, the same error stays an I/O error."""
    db_path = small_fs / "home" / "waymarks.db"
    db_path.parent.mkdir()
    error = sqlite3.OperationalError("disk I/O error")
    error.sqlite_errorname = "SQLITE_IOERR_SHMSIZE"  # as SQLite names it
    roomy = str(database_error(error, db_path))
    assert "reported an I/O error" in roomy and "is full" not in roomy
    filler = fill(small_fs)
    full = str(database_error(error, db_path))
    assert f"the disk holding {db_path.parent} is full" in full and "Free disk space" in full
    filler.unlink()


def test_the_cli_never_reports_a_stored_write_as_failed(
        small_fs: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """On a full disk the ledger could take a write whose read-back (the notices the
    CLI adds) then failed: the command said "error ... retry" (exit 1) for a write that
    was stored, and a retry wrote it twice. Every answer must match what was stored."""
    home = small_fs / "home"
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    monkeypatch.chdir(project)
    assert main(["memory", "add", "--", "The build tool is make."]) == 0
    capsys.readouterr()
    filler = fill(small_fs)
    answers: dict[str, int] = {}
    for n in range(30):
        text = f"Claim {n} written on a full disk is " + "y" * 200
        answers[text] = main(["--json", "memory", "add", "--", text])
        out = json.loads(capsys.readouterr().out)
        assert (answers[text] == 0) == (out["outcome"] == "committed"), out
    assert 1 in answers.values(), "the disk never filled up"
    filler.unlink()
    assert main(["--json", "memory", "list"]) == 0
    stored = {i["text"] for i in json.loads(capsys.readouterr().out)["items"]}
    for text, code in answers.items():
        assert (text in stored) == (code == 0), (text[:12], code)


def test_a_new_database_on_a_full_disk_is_not_set_aside_as_damaged(
        tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Creating the schema on a disk too small for it: SQLite rolled back itself, the
    second ROLLBACK failed ("no transaction is active"), and that error, read as damage,
    set the new database aside (a ``.damaged-…`` copy filling what was left)."""
    with tmpfs(tmp_path / "tiny", "size=200k") as mount:
        home = mount / "home"
        monkeypatch.setenv("WAYMARKS_HOME", str(home))
        monkeypatch.chdir(project)
        assert main(["--json", "pin", "--", "Keep it simple"]) == 1
        result = json.loads(capsys.readouterr().out)
        assert "full" in result["message"], result
        assert not [p.name for p in home.iterdir() if "damaged" in p.name]


@pytest.mark.parametrize("args", [("memory", "add", "--", "The deploy target is staging."),
                                  ("pin", "--", "Deploy on Tuesdays.")])
def test_a_write_whose_read_back_fails_is_reported_committed(
        project: Path, home: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], args: tuple[str, ...]) -> None:
    """The moment the review met on a full disk, made certain: the ledger took the write,
    then the CLI's read-back for its notices failed. It answered "error ... retry"
    (exit 1); a retried supersede was then refused as not active, the first one having
    been applied. The write stands, and says the read-back failed."""
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    real = Waymarks.items

    def failing(self: Waymarks, kind: Any, *, ids: Any = None, **rest: Any) -> Any:
        if ids is not None:
            raise database_error(sqlite3.OperationalError("database or disk is full"),
                                 self.db_path)
        return real(self, kind, ids=ids, **rest)

    monkeypatch.setattr(Waymarks, "items", failing)
    assert main(["--json", *args]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["outcome"] == "committed", out
    assert any("could not be read back" in n for n in out["notices"]), out
    monkeypatch.setattr(Waymarks, "items", real)
    kind = "memory" if args[0] == "memory" else "pin"
    with Waymarks(home, cwd=str(project)) as app:
        assert [v.id for v in app.items(kind)] == [out["id"]]


def test_an_import_the_full_disk_stops_says_which_lines_were_written(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # it said "nothing was acknowledged" while the lines before the failing one were
    # committed and applying; an import on the full disk then ended in a traceback
    total = 300
    source = tmp_path / "export.jsonl"
    source.write_text("".join(json.dumps(
        {"kind": "memory", "scope": "session", "status": "active", "key": f"g{n}",
         "text": f"Entry {n} concerns gadget{n} " + "x" * 300}) + "\n"
        for n in range(1, total + 1)))
    with tmpfs(tmp_path / "fs", "size=600k") as mount:
        monkeypatch.setenv("WAYMARKS_HOME", str(mount / "home"))
        monkeypatch.chdir(project)
        assert main(["--json", "import", str(source)]) == 1
        report = json.loads(capsys.readouterr().out)
        assert report["outcome"] == "error" and report["code"] == "io_error"
        counts, message = report["counts"], report["message"]
        written = counts["imported"]
        assert 0 < written < total and written + counts["not-written"] == total
        assert [e["line"] for e in report["lines"] if e["outcome"] == "imported"] == list(
            range(1, written + 1))
        assert message.startswith(f"Stopped at line {written + 1} by an error: No space")
        assert f"{written} line(s) written (lines 1-{written})" in message
        assert "Import the file again" not in message and "import the file again" in message
        assert "nothing was acknowledged" not in message
        assert main(["--json", "import", str(source)]) == 1  # still full: said, no traceback
        again = json.loads(capsys.readouterr().out)
        assert again["outcome"] == "error" and "is full" in again["message"]
        subprocess.run(["mount", "-o", "remount,size=4m", str(mount)], check=True)
        assert main(["--json", "memory", "list"]) == 0
        listed = json.loads(capsys.readouterr().out)["items"]
        assert len(listed) == written, "what the report says was written is what was"


def test_a_session_the_full_disk_stops_creating_is_named(
        small_fs: Path, project: Path) -> None:
    """The first write of a project on a full disk: creating its session file failed on a
    descriptor, and the error said "No space left on device (file)": which disk was full
    was not said."""
    home = small_fs / "home"
    app = Waymarks(home, cwd=str(project))
    assert app.items("pin") == []  # the database is open; the project has no session yet
    fill(small_fs)
    with pytest.raises(ServiceError) as raised:
        app.pin("Keep it simple")
    message = str(raised.value)
    assert "No space left on device" in message and "(file)" not in message, message
    assert str(home / "sessions") in message, message
    assert not list((home / "sessions").glob("*/*.jsonl"))


def test_an_atomic_replace_names_the_file_not_its_temporary_one(
        small_fs: Path, tmp_path: Path) -> None:
    """``learn on``, ``trust``, ``personal save`` on a full disk said "No space left on
    device (file)" (the write of a descriptor names no file), and on a read-only mount
    they named ``.config.toml.<pid>-<hex>.tmp``, a file the person never saw."""
    from waymarks.files.atomic import write_atomic

    config = small_fs / "config.toml"
    write_atomic(config, "[evolution]\nlearn = false\n")
    fill(small_fs)
    with pytest.raises(OSError) as full:
        write_atomic(config, "[evolution]\nlearn = true\n" + "#" * 65536)
    assert (full.value.errno, full.value.filename) == (errno.ENOSPC, str(config))
    assert config.read_text() == "[evolution]\nlearn = false\n"
    assert sorted(p.name for p in small_fs.iterdir()) == ["config.toml", "filler"]
    with tmpfs(tmp_path / "ro", "ro,size=64k") as read_only, \
            pytest.raises(OSError) as refused:
        write_atomic(read_only / "config.toml", "x")
    assert (refused.value.errno, refused.value.filename) == (errno.EROFS, str(read_only))


def test_a_read_on_a_full_disk_answers_from_the_database_as_it_is(
    small_fs: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`pins`, `memory list`, `status` and `recall` write nothing, yet on a full disk each
    failed with "the disk is full" (exit 1): every open writes (SQLite's -shm and -wal,
    the migrations, the refresh). A read answers now from the database as it is, saying
    it may be stale and what to free; a write still fails as a full disk and changes
    nothing; once space is freed the same commands answer as before."""
    home = small_fs / "home"
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    assert main(["pin", "--", "written before the disk filled"]) == 0
    assert main(["memory", "add", "--", "The build command is make ship."]) == 0
    assert main(["recall", "build command"]) == 0  # (the recall index caught up)
    capsys.readouterr()
    filler = fill(small_fs)
    ledgers = {p: p.read_bytes() for p in (home / "sessions").rglob("*.jsonl")}
    database = (home / "waymarks.db").read_bytes()
    for argv in (["pins"], ["memory", "list"], ["status"], ["recall", "build command"]):
        assert main(["--json", *argv]) == 0, (argv, capsys.readouterr())
        document = json.loads(capsys.readouterr().out)
        assert "is full" in document["stale"] and "may be stale" in document["stale"], argv
    assert main(["--json", "pins"]) == 0
    assert [i["text"] for i in json.loads(capsys.readouterr().out)["items"]] == [
        "written before the disk filled"]
    assert main(["recall", "build command"]) == 0
    shown = capsys.readouterr()
    assert "The build command is make ship." in shown.out and "may be stale" in shown.err
    for argv in (["pin", "--", "while the disk is full"],
                 ["memory", "add", "--", "The deploy day is Tuesday."]):
        assert main(["--json", *argv]) == 1, argv
        message = json.loads(capsys.readouterr().out)["message"]
        assert "is full" in message and "Free disk space there" in message, message
    assert {p: p.read_bytes() for p in (home / "sessions").rglob("*.jsonl")} == ledgers
    assert (home / "waymarks.db").read_bytes() == database
    filler.unlink()
    assert main(["--json", "pins"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [i["text"] for i in listed["items"]] == ["written before the disk filled"]
    assert "stale" not in listed


def test_a_long_lived_process_writes_again_once_room_is_freed(small_fs: Path,
                                                              project: Path) -> None:
    """A server's service object that read the database as it is on a full disk tries the
    ordinary open again at its next request: it kept refusing writes once room was freed."""
    app = Waymarks(small_fs / "home", cwd=str(project))
    assert isinstance(app.pin("before the disk filled"), Committed)
    app.close()
    filler = fill(small_fs)
    assert [v.text for v in app.items("pin")] == ["before the disk filled"]
    assert app.read_only and app.stale_note is not None
    with pytest.raises(ServiceError, match="is full"):
        app.pin("while the disk is full")
    filler.unlink()
    assert isinstance(app.pin("after room was freed"), Committed)
    assert not app.read_only
    assert [v.text for v in app.items("pin")] == ["before the disk filled",
                                                  "after room was freed"]
    app.close()



def _full_after_a_plan(small_fs: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
                       capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    """A home on ``small_fs`` with a pin and a memory a plan indexed, then the disk
    filled: the home and the filler."""
    home = small_fs / "home"
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    monkeypatch.chdir(project)
    assert main(["pin", "--", "written before the disk filled"]) == 0
    assert main(["memory", "add", "--", "The build command is make ship."]) == 0
    assert main(["plan", "build command"]) == 0  # (the recall index caught up)
    capsys.readouterr()
    return home, fill(small_fs)


def test_health_on_a_full_disk_reports_it_as_its_problem(
    small_fs: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`health` failed on a full disk ("the disk ... is full", exit 1, no report) where
    the reads beside it answer: its full-text check is an INSERT to SQLite. It now
    reports from the database as it is, the full disk its problem (exit 1, ATTENTION),
    and writes nothing; once room is freed it is OK again."""
    home, filler = _full_after_a_plan(small_fs, project, monkeypatch, capsys)
    database = (home / "waymarks.db").read_bytes()
    assert main(["--json", "health"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["code"] == "attention" and report["integrity"] == "ok", report["message"]
    assert any("is full" in problem and "nothing can be written" in problem
               for problem in report["problems"]), report["problems"]
    assert report["mutations"] == 2
    assert (home / "waymarks.db").read_bytes() == database
    filler.unlink()
    assert main(["--json", "health"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True


def test_a_plan_on_a_full_disk_is_made_from_the_database_as_it_is(
    small_fs: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`plan` failed on a full disk (exit 1: no pins, no memory for the prompt) though
    `recall` answers there: the plan saved its manifest, a cache for `explain`, in a
    write. It is now made from the database as it is, with the stale note, and saves
    nothing."""
    home, filler = _full_after_a_plan(small_fs, project, monkeypatch, capsys)
    database = (home / "waymarks.db").read_bytes()
    assert main(["--json", "plan", "build command"]) == 0
    planned = capsys.readouterr().out
    assert "written before the disk filled" in planned
    assert "The build command is make ship." in planned
    assert "may be stale" in json.loads(planned)["stale"]
    assert (home / "waymarks.db").read_bytes() == database
    filler.unlink()


def test_a_recall_on_a_full_disk_says_which_memory_it_could_not_search(
    small_fs: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A memory recorded after the last recall, then the disk filled: `recall` of its very
    words said "Nothing recalled." (exit 0), its note blaming only what the session
    files gained since the database was written, though `memory list` showed the
    memory: it was in the database, not yet in the recall index, which cannot be
    written. The recall now says how many memories it could not search, and why."""
    _home, filler = _full_after_a_plan(small_fs, project, monkeypatch, capsys)
    filler.unlink()
    assert main(["memory", "add", "--", "The deploy day is Tuesday."]) == 0
    capsys.readouterr()
    filler = fill(small_fs)
    assert main(["--json", "recall", "deploy day"]) == 0
    stale = json.loads(capsys.readouterr().out)["stale"]
    assert "1 memory" in stale and "not indexed for recall" in stale, stale
    assert main(["recall", "build command"]) == 0  # what is indexed is still recalled
    shown = capsys.readouterr()
    assert "The build command is make ship." in shown.out and "not indexed" in shown.err
    filler.unlink()
    assert main(["--json", "recall", "deploy day"]) == 0
    recalled = json.loads(capsys.readouterr().out)
    assert "The deploy day is Tuesday." in json.dumps(recalled) and "stale" not in recalled



def test_a_long_lived_process_reads_afresh_once_room_is_freed(
        small_fs: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server's service object (MCP, the Claude Code helper, the inspector) that read
    the database as it is on a full disk kept reading that copy for every request after
    room was freed (a request sets its snapshot before it touches the database, and the
    retry waited for none to be open): a memory another process recorded was never
    recalled and each answer still said the disk was full, until a write came."""
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    home = small_fs / "home"
    app = Waymarks(home, cwd=str(project))
    assert isinstance(app.remember("The build command is make ship."), Committed)
    assert "make ship" in app.recall("build command").digest  # (indexed for recall)
    app.close()
    filler = fill(small_fs)
    assert "make ship" in app.recall("build command").digest
    assert app.read_only and app.stale_note is not None
    filler.unlink()
    with Waymarks(home, cwd=str(project)) as other:  # another process, room freed
        assert isinstance(other.remember("The deploy day is Tuesday."), Committed)
    with app.begin():  # one request, as a server's tool call makes it
        assert "Tuesday" in app.recall("deploy day").digest
    assert not app.read_only and app.stale_note is None
    app.close()


def test_the_recall_tool_on_a_full_disk_says_what_it_could_not_read(
        small_fs: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The `memory_recall` tool (MCP, Pi) on a full disk answered `ok` with no claims for
    a memory not yet indexed for recall, saying nothing: the model was told, in effect,
    that no such memory exists, where the command line says the answer may be stale
    and which memories it could not search. The tool's answer carries the same note as
    `stale`."""
    from waymarks.tool.recall import memory_recall

    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    app = Waymarks(small_fs / "home", cwd=str(project))
    assert isinstance(app.remember("The build command is make ship."), Committed)
    assert memory_recall(app, "build command")["claims"]  # (the recall index caught up)
    assert isinstance(app.remember("The deploy day is Tuesday."), Committed)
    app.close()
    filler = fill(small_fs)
    answer = memory_recall(app, "deploy day")
    assert answer["outcome"] == "ok" and answer["claims"] == []
    assert "is full" in answer["stale"] and "1 memory" in answer["stale"], answer
    assert memory_recall(app, "build command")["claims"]  # what is indexed still answers
    filler.unlink()
    answer = memory_recall(app, "deploy day")
    assert answer["claims"] and "stale" not in answer
    app.close()


def test_a_prompt_hook_on_a_full_disk_still_adds_the_sessions_pins(
        small_fs: Path, project: Path) -> None:
    """A Claude Code session with a pin, then the disk full: each prompt's hook ended in
    ``sqlite3.ProgrammingError: Cannot operate on a closed database`` (not even logged:
    the log is on that disk), exit 0 and nothing printed, so the pin silently stopped
    reaching the model. Every use of the database outside a request closed the copy
    read as it is and opened another, while the session's entry index still read the
    closed one. The hook now adds the pin, as it does with room."""
    from tests.hosts.test_claude_code import PIN_BEGIN, hook

    home, asked = _session_with_a_pin(small_fs, project)
    assert PIN_BEGIN in hook(home, "UserPromptSubmit", asked).stdout
    filler = fill(small_fs)
    done = hook(home, "UserPromptSubmit", asked)
    assert done.returncode == 0 and PIN_BEGIN in done.stdout, (done.stdout, done.stderr)
    assert "Always run the linters" in done.stdout
    filler.unlink()


def _session_with_a_pin(small_fs: Path, project: Path) -> tuple[Path, dict[str, Any]]:
    """A Claude Code session on ``small_fs`` with a pin, and a prompt's hook payload."""
    from tests.hosts.test_claude_code import hook, payload

    home, sid = small_fs / "home", str(uuid.uuid4())
    assert hook(home, "SessionStart", payload(sid, project, "SessionStart",
                                              source="startup")).returncode == 0
    with Waymarks(home, cwd=str(project), session=sid) as app:
        assert isinstance(app.pin("Always run the linters"), Committed)
    return home, payload(sid, project, "UserPromptSubmit", prompt="lint my change")


def test_a_prompt_hook_on_a_full_disk_says_its_context_may_be_stale(
        small_fs: Path, project: Path) -> None:
    """docs/hosts.md promises that a prompt's hook on a full disk says so, naming the fix; since
    the database is read as it is there, it added the context without a word: the person
    never heard that nothing new is stored, nor the model that it may be stale. Both get
    the line the command line gives (``systemMessage``, and before the context)."""
    from tests.hosts.test_claude_code import PIN_BEGIN, hook

    home, asked = _session_with_a_pin(small_fs, project)
    assert "systemMessage" not in json.loads(hook(home, "UserPromptSubmit", asked).stdout)
    filler = fill(small_fs)
    answer = json.loads(hook(home, "UserPromptSubmit", asked).stdout)
    said = answer["systemMessage"]
    assert "is full" in said and "may be stale" in said and "space is freed" in said, said
    context = answer["hookSpecificOutput"]["additionalContext"]
    # (the model reads the same line without the home's path)
    assert context.startswith(said.replace(str(home), "the Waymarks home"))
    assert PIN_BEGIN in context
    filler.unlink()
    assert "systemMessage" not in json.loads(hook(home, "UserPromptSubmit", asked).stdout)
