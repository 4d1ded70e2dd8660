"""A queue database (``evolution.db``) damaged in a page its open does not read: opening
checks the header and the schema only, so the damage surfaced in the first query, as a
traceback from `evolution status`, `evolution learning` and `evolve`, and `health` said
OK. Each now sets the file aside (kept) and works on a new one, as for damage found on
open. Real files, real SQLite, the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import Ran, waymarks
from waymarks.core.model_port import SourceRef
from waymarks.service.evolution import Evolution
from waymarks.store.jobs import JobStore

NOW = 1_800_000_000_000


def _damaged_queue(home: Path) -> None:
    """An evolution.db of several pages, every one past the schema's overwritten."""
    store = JobStore.open(home)
    store.add_jobs([SourceRef(f"s{n:04d}" + "x" * 40, "/work/a", "normal", f"t{n}")
                    for n in range(400)], NOW)
    store.close()
    path = home / "evolution.db"
    data = bytearray(path.read_bytes())
    assert len(data) > 6 * 4096
    data[4096:] = b"A" * (len(data) - 4096)
    path.write_bytes(bytes(data))
    JobStore.open(home).close()  # the open itself still succeeds


def _cli(home: Path, cwd: Path, *args: str) -> Ran:
    return waymarks("--home", str(home), *args, cwd=cwd,
                    env={"HOME": str(home.parent), "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("command", [("--json", "evolution", "status"),
                                     ("evolution", "learning"), ("--json", "evolve"),
                                     ("health",)])
def test_a_page_damaged_queue_is_set_aside_not_a_traceback(
        tmp_path: Path, command: tuple[str, ...]) -> None:
    home, project = tmp_path / "home", tmp_path / "p"
    project.mkdir()
    home.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    with Evolution(home) as evo:  # a ledger with a source the queue reconciles
        assert evo.capture(str(project), "statement", "Remember: deploys use Kamal",
                           session="s", key="k") is not None
    _damaged_queue(home)
    done = _cli(home, project, *command)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 1: no model route
    [aside] = home.glob("evolution.db.damaged-*[0-9]Z")
    assert aside.read_bytes()[4096:4104] == b"AAAAAAAA"  # kept as it was
    if command[0] == "--json":
        answer = json.loads(done.stdout)
        if command[1] == "evolve":  # the new queue took the ledger's source back
            assert answer["reason"] == "no_route" and answer["sourceId"].startswith("s")
    assert JobStore.open(home).check().to_json() is not None  # the new one reads


def test_a_queue_another_process_made_anew_is_not_set_aside_again(tmp_path: Path) -> None:
    """Two processes reading one damaged queue both meet the damage. The first sets the
    file aside and works on a new one (a job queued there); the second, whose connection
    is still on the old file, set aside whatever was at the path: the first's new,
    healthy queue, its job gone with it, logged as damaged. It now sets aside only the
    file it found damaged. (The other process is stood in for by a call made inside the
    second's read, before it meets the damage: real files, real SQLite.)"""
    from datetime import UTC, datetime

    from waymarks.service.recovery import using_job_store

    home = tmp_path / "home"
    home.mkdir()
    _damaged_queue(home)
    fresh = SourceRef("fresh" + "x" * 40, "/work/a", "normal", "t")

    def first(store: JobStore) -> None:
        store.check()
        store.add_jobs([fresh], NOW)

    reads: list[int] = []

    def second(store: JobStore) -> None:
        reads.append(1)
        if len(reads) == 1:  # the first process meets the damage meanwhile
            using_job_store(home, datetime.now(UTC), first)
        store.check()

    using_job_store(home, datetime.now(UTC), second)
    [aside] = home.glob("evolution.db.damaged-*[0-9]Z")
    assert aside.read_bytes()[4096:4104] == b"AAAAAAAA"  # the damaged one, kept
    store = JobStore.open(home)
    try:
        assert store.open_jobs() == 1  # the first process's job is still queued
    finally:
        store.close()


def test_a_queue_made_anew_while_an_open_met_damage_is_not_set_aside(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Damage found on open (junk over evolution.db): the open is tried again, and a second
    failure set aside whatever was at the path by then, checked against nothing. Another
    process that met the same damage first had set the junk aside and made a new queue (a
    job queued there): that healthy queue was renamed a damaged copy, its job with it, and
    the junk it replaced was never at the path again. Only the file the failed open found
    is set aside now. (The other process is stood in for by a call made right after this
    one's second open failed: real files, real SQLite.)"""
    from datetime import UTC, datetime

    from waymarks.service.recovery import open_job_store

    home = tmp_path / "home"
    home.mkdir()
    (home / "evolution.db").write_bytes(b"junk, not a database " * 400)
    fresh = SourceRef("fresh" + "x" * 40, "/work/a", "normal", "t")
    opened = JobStore.open.__func__  # type: ignore[attr-defined]
    tries: list[int] = []

    def open_meeting_the_other(cls: type[JobStore], where: Path) -> JobStore:
        tries.append(1)
        try:
            return opened(cls, where)
        except Exception:
            if len(tries) == 2:  # the other process sets the junk aside, queues a job
                monkeypatch.setattr(JobStore, "open", classmethod(opened))
                other = open_job_store(home, datetime.now(UTC))
                other.add_jobs([fresh], NOW)
                other.close()
                monkeypatch.setattr(JobStore, "open", classmethod(open_meeting_the_other))
            raise

    monkeypatch.setattr(JobStore, "open", classmethod(open_meeting_the_other))
    store = open_job_store(home, datetime.now(UTC))
    try:
        assert store.open_jobs() == 1  # the other process's new queue, its job queued
    finally:
        store.close()
    [aside] = home.glob("evolution.db.damaged-*[0-9]Z")
    assert aside.read_bytes().startswith(b"junk, not a database")  # the damaged one, kept
