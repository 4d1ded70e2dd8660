"""A home whose ``waymarks.db`` was deleted (to start over) filled the new one inside the
next prompt's hook: at 100k memories 8 s of CPU and 30 s on a busy machine, so Claude
Code stopped the hook at 10 s with nothing committed, that prompt got no context, pins
included, and so did every prompt after it (each started the fill again). A hook now
fills a new database only from a small home's ledgers; past that a process of its own
fills it, the prompt is told so, and the prompts after it get their pins again."""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hosts.test_cc_bad_config import _logged, _session_with_a_pin
from tests.hosts.test_cc_helper_stalled import _payload
from waymarks.hosts import claude_code
from waymarks.service import projection_fill


def _prompt(home: Path, project: Path, sid: str, capsysbinary: pytest.CaptureFixture[bytes],
            prompt: str) -> str:
    """What the prompt's hook printed, run in this process without the helper."""
    raw = json.dumps(_payload(sid, project, "UserPromptSubmit", prompt=prompt)).encode()
    assert claude_code.main(["UserPromptSubmit"], home, raw=raw) == 0
    return capsysbinary.readouterr().out.decode()


def _delete_database(home: Path) -> None:
    """``waymarks.db`` deleted with its WAL and shared memory, to start over."""
    for name in ("waymarks.db", "waymarks.db-wal", "waymarks.db-shm"):
        (home / name).unlink(missing_ok=True)


def _pins_went(out: str) -> None:
    """The hook's printed answer carries the session's pin in its context."""
    assert "Always tag releases from main" in json.loads(out)["hookSpecificOutput"][
        "additionalContext"]


def _never_skipped(home: Path) -> None:
    assert not [e for e in _logged(home) if e["event"] == "claude_code_hook_skipped"]


def _wait_for_the_fill(home: Path) -> None:
    """Until the process filling the database ends: it holds its lock from before it
    started to its end."""
    fd = os.open(home / projection_fill.LOCK_FILE, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    finally:
        os.close(fd)


def _before_the_first_fill(monkeypatch: pytest.MonkeyPatch, act: Callable[[], None]) -> None:
    """``act`` (another process's doing, stood in for) run once, just before the first
    fill of a new database reads it."""
    from waymarks.service import rebuilding

    real_fill = rebuilding.fill_if_new
    acted: list[bool] = []

    def first(app: object, projection: object) -> None:
        if not acted:
            act()
            acted.append(True)
        real_fill(app, projection)  # type: ignore[arg-type]

    monkeypatch.setattr(rebuilding, "fill_if_new", first)


def test_a_new_database_too_large_for_a_hook_is_filled_by_a_process_of_its_own(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    sid = _session_with_a_pin(home, project)
    assert "Always tag" in _prompt(home, project, sid, capsysbinary, "tag the release")
    _delete_database(home)
    monkeypatch.setattr(projection_fill, "HURRIED_FILL_BYTES", 0)  # any home is large
    said = json.loads(_prompt(home, project, sid, capsysbinary, "and push it"))
    message = said["systemMessage"]
    assert message.startswith("Waymarks added no context: "), message
    assert "a process of its own is filling it now" in message
    assert said["hookSpecificOutput"]["additionalContext"] == message
    assert "Always tag" not in json.dumps(said)
    assert [e["code"] for e in _logged(home) if e["event"] == "claude_code_hook_skipped"
            ] == ["projection_filling"]
    _wait_for_the_fill(home)
    out = _prompt(home, project, sid, capsysbinary, "and push it")
    _pins_went(out)


def _recorded(home: Path, text: str) -> int:
    """How many of the home's ledgers' user messages say ``text``."""
    return sum(1 for path in (home / "sessions").rglob("*.jsonl")
               for line in path.read_text().splitlines()
               if json.loads(line).get("message", {}).get("content") == [
                   {"type": "text", "text": text}])


def test_a_prompt_while_a_process_fills_the_database_is_still_recorded(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """The hook that left the fill to a process of its own answered before it recorded
    the prompt: the person's words were missing from the session's ledger for good (the
    ledger is the truth: nothing else holds them), though it could be appended."""
    sid = _session_with_a_pin(home, project)
    (home / "waymarks.db").unlink()
    monkeypatch.setattr(projection_fill, "HURRIED_FILL_BYTES", 0)
    monkeypatch.setattr(projection_fill, "start_worker", lambda app: None)  # (one runs)
    said = json.loads(_prompt(home, project, sid, capsysbinary, "keep this prompt"))
    assert "a process of its own is filling it now" in said["systemMessage"]
    assert "did not record" not in said["systemMessage"]
    assert _recorded(home, "keep this prompt") == 1


def test_a_warm_helper_whose_database_was_deleted_says_the_prompt_is_recorded(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The helper's app held the database when it was deleted: it recorded the prompt,
    then found the new database to fill too long, and the hook said "did not record
    this prompt" of a prompt it had recorded."""
    from waymarks.service.app import Waymarks

    sid = _session_with_a_pin(home, project)
    payload = _payload(sid, project, "UserPromptSubmit", prompt="tag the release")
    with Waymarks(home, cwd=str(project), project_may_be_gone=True,
                  busy_timeout_ms=claude_code.HOOK_BUSY_TIMEOUT_MS) as app:
        assert "Always tag" in json.dumps(claude_code.handle(
            "UserPromptSubmit", payload, home, app))
        _delete_database(home)
        monkeypatch.setattr(projection_fill, "HURRIED_FILL_BYTES", 0)
        monkeypatch.setattr(projection_fill, "start_worker", lambda app: None)
        said = claude_code.handle("UserPromptSubmit", {**payload, "prompt": "and push it"},
                                  home, app)
    assert said is not None
    assert "a process of its own is filling it now" in said["systemMessage"]
    assert "did not record" not in said["systemMessage"]
    assert _recorded(home, "and push it") == 1


def test_a_new_database_of_a_small_home_is_filled_by_the_hook(
        home: Path, project: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    sid = _session_with_a_pin(home, project)
    (home / "waymarks.db").unlink()
    out = _prompt(home, project, sid, capsysbinary, "tag the release")
    _pins_went(out)
    assert not (home / projection_fill.LOCK_FILE).exists()  # (no process was started)


def test_a_damaged_database_too_large_for_a_hook_is_set_aside_and_filled_apart(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """The same for a damaged database: the hook set it aside and rebuilt a new one
    itself (22 s at 100k memories, measured), past Claude Code's 10 s."""
    sid = _session_with_a_pin(home, project)
    assert "Always tag" in _prompt(home, project, sid, capsysbinary, "tag the release")
    with open(home / "waymarks.db", "r+b") as db:
        db.write(b"not a database, not at all")
    monkeypatch.setattr(projection_fill, "HURRIED_FILL_BYTES", 0)
    said = json.loads(_prompt(home, project, sid, capsysbinary, "and push it"))
    message = said["systemMessage"]
    assert "a process of its own is filling it now" in message
    copies = list(home.glob("waymarks.db.damaged-*"))
    assert len(copies) == 1  # kept for inspection
    # said as the command line's repair says it (the hook said the database "is new":
    # nothing told the person theirs was damaged, nor where the copy went)
    assert "is new" not in message
    assert "could not be used" in message and f"set aside as {copies[0]}" in message
    _wait_for_the_fill(home)
    out = _prompt(home, project, sid, capsysbinary, "and push it")
    _pins_went(out)


def test_a_recall_index_far_behind_is_caught_up_apart_and_the_pins_still_go(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """A re-fold (a session excluded, then included again) empties the recall index; the
    next prompt's hook indexed every memory again itself: at 100k memories 9.6 s (2.3 s
    of CPU) on a busy machine, a hair under Claude Code's 10 s, and past it the next
    prompt started over. Past a bound, the hook plans with the pins and what is indexed,
    says so, and a process of its own indexes the rest."""
    sid = _session_with_a_pin(home, project)
    from waymarks.service.app import Waymarks

    with Waymarks(home, cwd=str(project), session=sid) as app:
        app.remember("The staging database listens on port 5433")
    assert "5433" in _prompt(home, project, sid, capsysbinary, "which port is staging on?")
    with Waymarks(home, cwd=str(project), session=sid) as app, app.projection.transaction():
        app.projection.refold()  # (as an exclusion's or an inclusion's)
    # any lag is long (raising=False: the code before had no bound)
    monkeypatch.setattr(projection_fill, "HURRIED_CATCH_UP_ITEMS", 0, raising=False)
    said = json.loads(_prompt(home, project, sid, capsysbinary, "which port is staging on?"))
    assert said["systemMessage"].startswith("Waymarks recalled no memory for this prompt"), \
        said
    assert "a process of its own is indexing them now" in said["systemMessage"]
    context = said["hookSpecificOutput"]["additionalContext"]
    assert "Always tag releases from main" in context  # (a small session's memory may go
    # in by recency, not recall: the plan is made with what it has)
    _wait_for_the_fill(home)
    out = json.loads(_prompt(home, project, sid, capsysbinary, "which port is staging on?"))
    assert "systemMessage" not in out
    assert "5433" in out["hookSpecificOutput"]["additionalContext"]


def test_a_fill_lock_that_cannot_be_opened_is_said_not_taken_for_a_running_process(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """A directory where the fill's lock goes (or a file of another user's): the lock was
    taken for one a running process holds, so every prompt said "a process of its own is
    filling it now" while none ran, and none ever filled it: no context, pins included,
    prompt after prompt. The hook now says why none could start and what to do."""
    sid = _session_with_a_pin(home, project)
    (home / "waymarks.db").unlink()
    (home / projection_fill.LOCK_FILE).mkdir()
    monkeypatch.setattr(projection_fill, "HURRIED_FILL_BYTES", 0)
    message = json.loads(_prompt(home, project, sid, capsysbinary, "tag it"))["systemMessage"]
    assert "a process of its own is filling it now" not in message
    assert "no process is filling it" in message
    assert str(home / projection_fill.LOCK_FILE) in message
    # for this home (its --home), as the hook's other messages name a command: a bare
    # `waymarks status` filled the database of the shell's home, another one
    from waymarks.core.text import named_command

    assert f"`{named_command(str(home), 'status')}`" in message


def test_the_command_a_recall_note_names_indexes_the_memories(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """With no process to index them, the hook said to run `waymarks recall` once: a usage
    error (a query is needed), which indexed nothing, prompt after prompt."""
    import re
    import shlex

    from waymarks.cli.main import main
    from waymarks.service.app import Waymarks

    sid = _session_with_a_pin(home, project)
    with Waymarks(home, cwd=str(project), session=sid) as app:
        app.remember("The staging database listens on port 5433")
    with Waymarks(home, cwd=str(project), session=sid) as app, app.projection.transaction():
        app.projection.refold()  # (as an exclusion's or an inclusion's: empties it)
    monkeypatch.setattr(projection_fill, "HURRIED_CATCH_UP_ITEMS", 0)
    monkeypatch.setattr(projection_fill, "start_worker", lambda app: "starting Python failed")
    note = json.loads(_prompt(home, project, sid, capsysbinary, "which port?"))["systemMessage"]
    found = re.search(r"run `waymarks ([^`]*)` once", note)
    assert found is not None, note
    words = shlex.split(found[1])
    assert words[:2] == ["--home", str(home)], note  # this home's, not the shell's
    assert main(["--cwd", str(project), *words]) == 0
    with Waymarks(home, cwd=str(project), session=sid) as app:
        assert not app.projection.recall_index().behind()


def test_a_fill_that_fails_in_its_own_process_is_logged(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The process filling a new database for the hooks runs detached, its output on
    /dev/null: a fill that failed there (a full disk, the database locked past its 30 s)
    left no trace at all, while every prompt after it started another, each told that "a
    process of its own is filling it now". Before, a hook's own failure was logged."""
    import sqlite3

    from waymarks.service import projection_fill_worker
    from waymarks.store.projection import Projection

    _session_with_a_pin(home, project)
    (home / "waymarks.db").unlink()

    def failing(*_args: object) -> int:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Projection, "rebuild", failing)
    assert projection_fill_worker.main([str(home)]) == 1
    assert [(e["event"], e["code"]) for e in _logged(home)
            if e["event"] == "projection_fill_failed"] == [
                ("projection_fill_failed", "OperationalError")]


def test_the_fill_process_indexes_a_recall_index_far_behind_in_parts(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The process a hook left a recall index far behind to (a re-fold at 100k memories)
    indexed it in one transaction, ~9 s on a busy machine, holding the writer's turn: the
    prompts meanwhile, each waiting 1 s for its own write, printed nothing at all (three
    in a row, measured: no context, pins included, not a word why). It commits in parts."""
    import sqlite3

    from waymarks.service import projection_fill_worker
    from waymarks.service.app import Waymarks
    from waymarks.store.recall_index import RecallIndex

    sid = _session_with_a_pin(home, project)
    with Waymarks(home, cwd=str(project), session=sid) as app:
        for n in range(5):
            app.remember(f"The service {n} listens on port {2000 + n}")
    with Waymarks(home, cwd=str(project), session=sid) as app, app.projection.transaction():
        app.projection.refold()  # (as an exclusion's or an inclusion's: empties it)
    monkeypatch.setattr(projection_fill_worker, "CATCH_UP_PART", 2, raising=False)
    seen: list[int] = []
    real = RecallIndex._index_items

    def watched(self: RecallIndex, *args: object, **kwargs: object) -> int:
        with sqlite3.connect(home / "waymarks.db") as db:  # what another process sees
            row = db.execute("SELECT value FROM meta WHERE name = 'recall_seq'").fetchone()
        seen.append(0 if row is None else int(row[0]))
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(RecallIndex, "_index_items", watched)
    assert projection_fill_worker.main([str(home)]) == 0
    assert len(seen) == 3 and seen == sorted(set(seen)), seen  # parts of 2, 2 and 1
    with Waymarks(home, cwd=str(project), session=sid) as app:
        assert not app.projection.recall_index().behind()


def test_a_fill_that_keeps_failing_is_retried_after_a_while_and_said(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """The process filling a new database failed (a full disk: reproduced with a file
    size limit, sqlite3's "database or disk is full"), logged it and ended; every prompt's
    hook then started another (seconds of CPU each, failing the same way) and said "a
    process of its own is filling it now", prompt after prompt. Its failure is marked:
    for FILL_RETRY_S no other starts and the prompt hears it failed and what to run; past
    that one is started again, and one that succeeds takes the mark away."""
    import errno

    from waymarks.service import projection_fill_worker
    from waymarks.spawn import detached

    sid = _session_with_a_pin(home, project)
    (home / "waymarks.db").unlink()
    monkeypatch.setattr(projection_fill, "HURRIED_FILL_BYTES", 0)
    started: list[list[str]] = []
    monkeypatch.setattr(detached, "spawn",
                        lambda module, args, **_: started.append([module, *args]) or 1)

    class Full:
        def __init__(self, home: Path) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as failing:
        failing.setattr(projection_fill_worker, "Waymarks", Full)
        assert projection_fill_worker.main([str(home)]) == 1
    message = json.loads(_prompt(home, project, sid, capsysbinary, "tag it"))["systemMessage"]
    assert started == []  # none started again at once
    assert "a process of its own is filling it now" not in message
    assert "the last one failed with OSError" in message
    from waymarks.core.text import named_command

    assert f"`{named_command(str(home), 'status')}`" in message
    mark = home / projection_fill.FAILED_FILE
    long_ago = mark.stat().st_mtime - projection_fill.FILL_RETRY_S - 1
    os.utime(mark, (long_ago, long_ago))
    message = json.loads(_prompt(home, project, sid, capsysbinary, "tag it"))["systemMessage"]
    # (started again: each read of the projection asks, as no fake child holds its lock)
    assert started and {tuple(a) for a in started} == {(
        "waymarks.service.projection_fill_worker", str(home))}
    assert "a process of its own is filling it now" in message
    assert projection_fill_worker.main([str(home)]) == 0  # (the real fill, here)
    assert not mark.exists()
    # and a fill the person runs (`status`, as the message says) takes it away too: a
    # catch-up that needs the process would be held back by a failure mended since
    projection_fill.fill_failed(home, "OSError")
    for path in home.glob("waymarks.db*"):
        path.unlink()
    from waymarks.service.app import Waymarks

    with Waymarks(home, cwd=str(project)) as app:
        assert app.items("pin")
    assert not mark.exists()
    out = json.loads(_prompt(home, project, sid, capsysbinary, "tag it"))
    assert "Always tag releases" in out["hookSpecificOutput"]["additionalContext"]


def test_a_new_database_set_aside_before_the_hook_fills_it_is_reopened(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """A prompt's hook opened a new (deleted, or cut to nothing) database, and before it
    filled it another process (an inspector's health, a CLI command) set that file aside
    and built one in its place: the fill's write found the file replaced and raised
    ``ProjectionReplaced`` out of the hook, which was skipped: no pins in that prompt's
    context, the prompt not recorded, only the log saying ProjectionReplaced. The hook now
    reopens the file at the path, as a request does. (The other process is stood in for
    by a set-aside made just before the hook's fill: real files, real SQLite.)"""
    from datetime import UTC, datetime

    from waymarks.service import recovery
    from waymarks.store.integrity import ProjectionDamaged

    sid = _session_with_a_pin(home, project)
    _delete_database(home)
    replaced: list[Path] = []

    def another_process() -> None:
        other, note = recovery.start_afresh(home / "waymarks.db",
                                            ProjectionDamaged("found damaged"),
                                            datetime.now(UTC))
        other.close()
        replaced.append(Path(note["damaged"]))

    _before_the_first_fill(monkeypatch, another_process)
    out = _prompt(home, project, sid, capsysbinary, "tag the release")
    assert replaced  # the race happened
    _pins_went(out)
    _never_skipped(home)


def test_the_branch_index_damaged_under_the_hook_costs_the_history_not_the_pins(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """The prompt's earlier turns (recall's history) are read through the session's branch
    index in the database; damaged after the hook opened it (cut to nothing or repaired
    by another process meanwhile: 'no such table: entries', 'database disk image is
    malformed'), the read raised out of the hook, which was skipped: no pins for that
    prompt, though recent_prompts says anything unreadable is skipped. The history is left
    out, and the plan after it repairs the database. (The damage is made just before the
    read, by another connection: real files, real SQLite.)"""
    import sqlite3

    from waymarks.ledger import entries

    sid = _session_with_a_pin(home, project)
    assert "Always tag" in _prompt(home, project, sid, capsysbinary, "tag the release")
    real_read = entries.recent_messages

    def damaged_first(*args: object, **kwargs: object) -> object:
        other = sqlite3.connect(home / "waymarks.db", isolation_level=None)
        other.execute("DROP TABLE IF EXISTS entries")
        other.close()
        return real_read(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(entries, "recent_messages", damaged_first)
    out = _prompt(home, project, sid, capsysbinary, "and push it")
    _pins_went(out)
    _never_skipped(home)


def test_a_new_database_damaged_before_the_hook_fills_it_is_repaired(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """The same window, the file damaged in place instead of replaced (cut to nothing
    and made again by another opener: 'no such table: sources' at the fill's first read):
    the error came out of the hook, skipped with no pins. It is repaired as damage met on
    open is. (The damage is made by another connection just before the fill.)"""
    import sqlite3

    sid = _session_with_a_pin(home, project)
    _delete_database(home)
    damaged: list[int] = []

    def another_opener() -> None:
        other = sqlite3.connect(home / "waymarks.db", isolation_level=None)
        other.execute("DROP TABLE sources")
        other.close()
        damaged.append(1)

    _before_the_first_fill(monkeypatch, another_opener)
    out = _prompt(home, project, sid, capsysbinary, "tag the release")
    _pins_went(out)
    _never_skipped(home)
    assert list(home.glob("waymarks.db.damaged-*[0-9]Z"))  # set aside, kept
