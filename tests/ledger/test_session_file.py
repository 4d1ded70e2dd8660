"""Pi v3 session files (real files in tmp_path) and session discovery."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from itertools import count
from pathlib import Path
from typing import Any

import pytest

from waymarks.core.codec import encode_payload
from waymarks.core.model import (
    MEMORY_CUSTOM_TYPE,
    PIN_CUSTOM_TYPE,
    MemoryItem,
    MemoryMutation,
    PinItem,
    PinMutation,
)
from waymarks.ledger.discovery import (
    canonical_project_path,
    list_sessions,
    newest_session,
    resolve_session,
    session_dir,
    session_file_name,
)
from waymarks.ledger.session_file import SessionFile, SessionFileError

SESSION_ID = "0f8fad5b-d9cb-469f-a165-70867728950e"
TS = "2026-01-01T00:00:00.000Z"
CWD = "/home/u/proj"


def ids(prefix: str = "e") -> Callable[[], str]:
    counter = count(1)
    return lambda: f"{prefix}{next(counter):07x}"


def header(**changes: Any) -> dict[str, Any]:
    line = {"type": "session", "version": 3, "id": SESSION_ID, "timestamp": TS, "cwd": CWD}
    line.update(changes)
    return line


def message(entry_id: str, parent: str | None, text: str = "hi", ts: str = TS) -> dict[str, Any]:
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": ts,
        "message": {
            "role": "user",
            "content": [{"type": "text", "text": text}],
            "timestamp": 1767225600000,
        },
    }


def pin_add(item_id: str, content: str = "Use pnpm") -> PinMutation:
    return PinMutation(
        schema_version=1,
        mutation_id=f"mut-{item_id}",
        created_at=42,
        operation="add",
        item=PinItem(id=item_id, scope="session", content=content, created_at=42),
    )


def custom(
    entry_id: str, parent: str | None, mutation: PinMutation | MemoryMutation, ts: str = TS
) -> dict[str, Any]:
    custom_type = PIN_CUSTOM_TYPE if isinstance(mutation, PinMutation) else MEMORY_CUSTOM_TYPE
    return {
        "type": "custom",
        "customType": custom_type,
        "data": json.loads(encode_payload(mutation)),
        "id": entry_id,
        "parentId": parent,
        "timestamp": ts,
    }


def line(obj: object) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode() + b"\n"


def write(path: Path, *parts: bytes | dict[str, Any]) -> Path:
    path.write_bytes(b"".join(p if isinstance(p, bytes) else line(p) for p in parts))
    return path


def file_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(raw) for raw in path.read_bytes().splitlines()]


@pytest.fixture
def session_path(tmp_path: Path) -> Path:
    return (
        tmp_path / "sessions" / "--home-u-proj--" / f"2026-01-01T00-00-00-000Z_{SESSION_ID}.jsonl"
    )


@pytest.fixture
def created(session_path: Path) -> Iterator[SessionFile]:
    yield SessionFile.create(session_path, SESSION_ID, TS, CWD)


# -- create, append, reopen ---------------------------------------------------------------


def test_create_writes_only_the_header(created: SessionFile, session_path: Path) -> None:
    assert file_lines(session_path) == [header()]
    assert session_path.read_bytes().endswith(b"\n")
    assert created.session_id == SESSION_ID
    assert created.header is not None and created.header.cwd == CWD
    assert created.header.version == 3
    assert created.entries == [] and created.leaf_id is None
    assert created.branch_ids() == []
    assert created.anomalies == []


def test_create_refuses_to_overwrite(created: SessionFile, session_path: Path) -> None:
    with pytest.raises(FileExistsError):
        SessionFile.create(session_path, "other", TS, CWD)
    assert file_lines(session_path) == [header()]


def test_append_and_reopen(created: SessionFile, session_path: Path) -> None:
    new_id = ids()
    with created.locked():
        first = created.append(
            {"type": "message", "timestamp": TS, "message": {"role": "user", "content": "hello"}},
            new_id,
        )
        second = created.append(
            {
                "type": "custom",
                "customType": PIN_CUSTOM_TYPE,
                "timestamp": TS,
                "data": json.loads(encode_payload(pin_add("p1"))),
            },
            new_id,
        )
    assert first.parent_id is None and first.index == 0
    assert second.parent_id == first.id and second.index == 1
    assert created.leaf_id == second.id
    assert len(created.records) == 1

    lines = file_lines(session_path)
    assert len(lines) == 3
    assert lines[1]["type"] == "message" and lines[1]["parentId"] is None
    assert lines[1]["message"] == {"role": "user", "content": "hello"}
    assert lines[2]["customType"] == PIN_CUSTOM_TYPE and lines[2]["parentId"] == first.id

    reopened = SessionFile.open(session_path)
    assert [e.id for e in reopened.entries] == [first.id, second.id]
    assert reopened.leaf_id == second.id
    assert reopened.branch_ids() == [first.id, second.id]
    assert reopened.anomalies == []
    assert reopened.records == created.records
    record = reopened.records[0]
    assert record.session_id == SESSION_ID
    assert record.entry_id == second.id
    assert record.entry_index == 1
    assert record.timestamp_ms == 1767225600000  # the entry's timestamp, not createdAt
    assert record.mutation == pin_add("p1")
    assert record.entry_key == f"{SESSION_ID}:{second.id}"


def test_append_refuses_an_entry_without_timestamp(created: SessionFile) -> None:
    before = created.path.read_bytes()
    with created.locked(), pytest.raises((ValueError, TypeError, SessionFileError)):
        created.append({"type": "message"}, ids())
    assert created.path.read_bytes() == before


def test_append_requires_the_lock(created: SessionFile) -> None:
    with pytest.raises(RuntimeError):
        created.append({"type": "message", "timestamp": TS}, ids())


def test_append_explicit_parent(created: SessionFile) -> None:
    new_id = ids()
    with created.locked():
        a = created.append({"type": "message", "timestamp": TS}, new_id)
        created.append({"type": "message", "timestamp": TS}, new_id)
        c = created.append({"type": "message", "timestamp": TS, "parentId": a.id}, new_id)
    assert c.parent_id == a.id
    assert created.branch_ids() == [a.id, c.id]


def test_append_retries_taken_ids(created: SessionFile) -> None:
    sequence = iter(["dup00001", "dup00001", "dup00001", "fresh001"])
    with created.locked():
        first = created.append({"type": "message", "timestamp": TS}, lambda: next(sequence))
        second = created.append({"type": "message", "timestamp": TS}, lambda: next(sequence))
    assert (first.id, second.id) == ("dup00001", "fresh001")


def test_append_gives_up_without_free_ids(created: SessionFile) -> None:
    with created.locked():
        created.append({"type": "message", "timestamp": TS}, lambda: "same0001")
        with pytest.raises(SessionFileError):
            created.append({"type": "message", "timestamp": TS}, lambda: "same0001")
    assert len(file_lines(created.path)) == 2


def test_refresh_reads_lines_appended_by_others(created: SessionFile, session_path: Path) -> None:
    other = SessionFile.open(session_path)
    with other.locked():
        entry = other.append({"type": "message", "timestamp": TS}, ids("o"))
    assert created.entries == []
    assert created.refresh() == 1
    assert created.leaf_id == entry.id
    with created.locked():
        mine = created.append({"type": "message", "timestamp": TS}, ids("m"))
    assert mine.parent_id == entry.id
    assert created.refresh() == 0  # its own line is not read twice
    assert [e.id for e in created.entries] == [entry.id, mine.id]
    assert other.refresh() == 1
    assert other.leaf_id == mine.id


def test_open_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SessionFileError, match="no such session file"):
        SessionFile.open(tmp_path / "missing.jsonl")


# -- the tree -----------------------------------------------------------------------------


def test_leaf_is_last_entry_in_file_order(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        header(),
        message("a", None),
        message("b", "a"),
        message("c", "b"),
        message("d", "a"),  # a sibling branch written last
    )
    session = SessionFile.open(path)
    assert session.leaf_id == "d"
    assert session.branch_ids() == ["a", "d"]
    assert session.branch_ids("c") == ["a", "b", "c"]
    assert session.branch_ids("missing") == []


def test_branch_summary_starts_a_new_branch(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        header(),
        message("a", None),
        message("b", "a"),
        message("c", "b"),
        {
            "type": "branch_summary",
            "id": "s",
            "parentId": "a",
            "timestamp": TS,
            "fromId": "a",
            "summary": "Tried b and c",
        },
        message("e", "s"),
    )
    session = SessionFile.open(path)
    assert session.leaf_id == "e"
    assert session.branch_ids() == ["a", "s", "e"]
    assert "b" not in session.branch_ids() and "c" not in session.branch_ids()
    assert session.by_id["s"].type == "branch_summary"
    with session.locked():
        f = session.append({"type": "message", "timestamp": TS}, ids("f"))
    assert f.parent_id == "e"
    assert SessionFile.open(path).branch_ids() == ["a", "s", "e", f.id]


def test_branch_ids_survive_parent_cycles(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", header(), message("a", "b"), message("b", "a"))
    assert SessionFile.open(path).branch_ids() == ["a", "b"]


def test_branch_ids_stop_at_unknown_parent(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", header(), message("a", "gone"), message("b", "a"))
    assert SessionFile.open(path).branch_ids() == ["a", "b"]


# -- tolerant reading ---------------------------------------------------------------------


def test_malformed_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        header(),
        message("a", None),
        b"this is not json\n",
        message("b", "a"),
        b'{"type":"message","id":"bad1","parentId":"b","timestamp":"\xff\xfe"}\n',
        b'{"type":"message","id":"nul1","parentId":"b","timestamp":"' + TS.encode() + b'"}\x00\n',
        b"\x00\x00\x00\n",
        b"[1, 2, 3]\n",
        line({"type": "message", "parentId": "b", "timestamp": TS}),  # no id
        line({"type": "message", "id": "x", "parentId": "b"}),  # no timestamp
        line({"id": "y", "parentId": "b", "timestamp": TS}),  # no type
        line({"type": "message", "id": 7, "parentId": "b", "timestamp": TS}),  # numeric id
        line({"type": "message", "id": "z", "parentId": 5, "timestamp": TS}),  # numeric parent
        message("b", "a", text="duplicate id"),
        b"\n",
        b"   \n",
        line(header(id="another-session")),
        message("c", "b"),
    )
    session = SessionFile.open(path)
    assert [e.id for e in session.entries] == ["a", "b", "c"]
    assert session.branch_ids() == ["a", "b", "c"]
    assert session.session_id == SESSION_ID
    assert len(session.anomalies) == 14
    assert {a.kind for a in session.anomalies} == {"skipped"}
    assert [a.line for a in session.anomalies] == [3, *range(5, 18)]
    details = " | ".join(a.detail for a in session.anomalies)
    assert "duplicate entry id b" in details
    assert "blank line" in details
    assert "second session header" in details
    assert session.lines == 18
    assert session.partial_tail == 0
    assert SessionFile.open(path).entries == session.entries  # reading is repeatable


def test_anomalies_do_not_block_appends(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", header(), message("a", None), b"garbage\n")
    session = SessionFile.open(path)
    with session.locked():
        entry = session.append({"type": "message", "timestamp": TS}, ids())
    assert entry.parent_id == "a"
    reopened = SessionFile.open(path)
    assert [e.id for e in reopened.entries] == ["a", entry.id]
    assert len(reopened.anomalies) == 1


@pytest.mark.parametrize(
    "first",
    [
        b"garbage\n",
        b"\n",
        line(message("a", None)),
        line({"type": "session", "version": 3, "timestamp": TS, "cwd": CWD}),  # no id
        line({"type": "session", "version": 3, "id": SESSION_ID, "timestamp": TS}),  # no cwd
        b"[]\n",
    ],
)
def test_first_line_must_be_a_header(tmp_path: Path, first: bytes) -> None:
    path = write(tmp_path / "s.jsonl", first, header(), message("b", None))
    with pytest.raises(SessionFileError, match="header"):
        SessionFile.open(path)


def test_empty_file_is_not_a_session(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"")
    with pytest.raises(SessionFileError):
        SessionFile.open(path)


def test_header_without_newline_is_not_a_session_yet(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(json.dumps(header()).encode())
    with pytest.raises(SessionFileError):
        SessionFile.open(path)


def test_header_with_parent_session_and_old_version(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", header(version=2, parentSession="/x/orig.jsonl"))
    session = SessionFile.open(path)
    assert session.header is not None
    assert session.header.version == 2
    assert session.header.parent_session == "/x/orig.jsonl"


@pytest.mark.slow
def test_progress_is_reported_for_large_files(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    with path.open("wb") as handle:
        handle.write(line(header()))
        parent = None
        for n in range(120_000):
            entry_id = f"{n:08x}"
            handle.write(
                line({"type": "label", "id": entry_id, "parentId": parent, "timestamp": TS})
            )
            parent = entry_id
    calls: list[tuple[int, int]] = []
    session = SessionFile.open(path, progress=lambda done, total: calls.append((done, total)))
    assert len(session.entries) == 120_000
    assert session.anomalies == []
    assert len(calls) == 2
    size = path.stat().st_size
    assert all(total == size and 0 < done <= size for done, total in calls)
    assert calls[0][0] < calls[1][0]


# -- partial last line --------------------------------------------------------------------


def test_half_written_last_line_is_not_read(tmp_path: Path) -> None:
    half = b'{"type":"message","id":"half","parentId":"a","timest'
    path = write(tmp_path / "s.jsonl", header(), message("a", None), half)
    session = SessionFile.open(path)
    assert [e.id for e in session.entries] == ["a"]
    assert session.partial_tail == len(half)
    assert session.anomalies == []


def test_live_writer_completes_the_half_line(tmp_path: Path) -> None:
    full = line(message("b", "a"))
    path = write(tmp_path / "s.jsonl", header(), message("a", None), full[:20])
    session = SessionFile.open(path)
    assert session.partial_tail == 20
    with path.open("ab") as handle:
        handle.write(full[20:])
    assert session.refresh() == 1
    assert session.partial_tail == 0
    assert [e.id for e in session.entries] == ["a", "b"]
    assert session.anomalies == []


def test_append_terminates_a_crashed_half_line(tmp_path: Path) -> None:
    half = b'{"type":"message","id":"half","parentId":"a","timest'
    path = write(tmp_path / "s.jsonl", header(), message("a", None), half)
    session = SessionFile.open(path)
    with session.locked():
        entry = session.append({"type": "message", "timestamp": TS}, ids())
    assert entry.parent_id == "a"
    assert session.partial_tail == 0
    assert [e.id for e in session.entries] == ["a", entry.id]
    assert len(session.anomalies) == 1 and session.anomalies[0].line == 3

    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    assert half + b"\n" in raw
    reopened = SessionFile.open(path)
    assert [e.id for e in reopened.entries] == ["a", entry.id]
    assert reopened.partial_tail == 0
    assert len(reopened.anomalies) == 1
    assert reopened.anomalies[0].line == 3 and reopened.anomalies[0].kind == "skipped"
    assert reopened.branch_ids() == ["a", entry.id]


def test_unterminated_complete_entry_becomes_the_parent(tmp_path: Path) -> None:
    # a writer that wrote a whole entry but crashed before its newline
    path = write(tmp_path / "s.jsonl", header(), message("a", None), line(message("b", "a"))[:-1])
    session = SessionFile.open(path)
    assert session.leaf_id == "a"
    with session.locked():
        entry = session.append({"type": "message", "timestamp": TS}, ids())
    reopened = SessionFile.open(path)
    assert [e.id for e in reopened.entries] == ["a", "b", entry.id]
    assert reopened.anomalies == []
    assert reopened.leaf_id == entry.id
    # the new entry must hang below the true leaf, or the terminated entry leaves the branch
    assert reopened.branch_ids() == ["a", "b", entry.id]


# -- payloads of our custom types ---------------------------------------------------------


def test_mutation_records_and_payload_anomalies(tmp_path: Path) -> None:
    memory = MemoryMutation(
        1,
        "mut-m1",
        99,
        "add",
        item=MemoryItem(
            id="m1",
            scope="session",
            claim="Build tool is pnpm",
            created_at=99,
            source_entry_ids=("a",),
        ),
    )
    future = custom("u1", "c", pin_add("p9"))
    future["data"]["schemaVersion"] = 2
    unknown_type = {
        "type": "custom",
        "customType": "ds4-context-source-v1",
        "data": {"schemaVersion": 1},
        "id": "u2",
        "parentId": "u1",
        "timestamp": TS,
    }
    malformed = custom("x1", "u2", pin_add("p8"))
    del malformed["data"]["item"]
    no_data = {
        "type": "custom",
        "customType": MEMORY_CUSTOM_TYPE,
        "id": "x2",
        "parentId": "x1",
        "timestamp": TS,
    }
    path = write(
        tmp_path / "s.jsonl",
        header(),
        message("a", None),
        custom("b", "a", pin_add("p1"), ts="2026-01-01T00:00:01.000Z"),
        custom("c", "b", memory, ts="not a timestamp"),
        future,
        unknown_type,
        malformed,
        no_data,
        {
            "type": "custom",
            "customType": "other-extension",
            "data": [1],
            "id": "o1",
            "parentId": "x2",
            "timestamp": TS,
        },
        {
            "type": "custom_message",
            "customType": PIN_CUSTOM_TYPE,
            "content": "x",
            "display": True,
            "id": "o2",
            "parentId": "o1",
            "timestamp": TS,
        },
    )
    session = SessionFile.open(path)
    assert [e.id for e in session.entries] == ["a", "b", "c", "u1", "u2", "x1", "x2", "o1", "o2"]
    assert [(r.entry_id, r.entry_index) for r in session.records] == [("b", 1), ("c", 2)]
    assert session.records[0].timestamp_ms == 1767225601000
    assert session.records[1].timestamp_ms == 99  # unparseable entry timestamp: createdAt
    assert session.records[1].mutation == memory
    kinds = [(a.entry_id, a.kind) for a in session.anomalies]
    assert kinds == [("u1", "unknown"), ("u2", "unknown"), ("x1", "malformed"), ("x2", "malformed")]
    assert "schemaVersion=2" in session.anomalies[0].detail
    assert "ds4-context-source-v1" in session.anomalies[1].detail
    assert session.branch_ids()[-1] == "o2"


# -- concurrency --------------------------------------------------------------------------

WORKER = textwrap.dedent(
    """
    import sys, time, uuid
    from pathlib import Path
    from waymarks.ledger.session_file import SessionFile

    path, worker, go, ts = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]
    session = SessionFile.open(path)
    while not go.exists():
        time.sleep(0.001)
    for i in range(50):
        with session.locked():
            session.append(
                {"type": "custom", "customType": "waymarks-test", "timestamp": ts,
                 "data": {"worker": worker, "i": i}},
                lambda: uuid.uuid4().hex[:8],
            )
    """
)


@pytest.mark.slow
def test_concurrent_appends_from_processes(created: SessionFile, tmp_path: Path) -> None:
    go = tmp_path / "go"
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(created.path), str(n), str(go), TS],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for n in range(4)
    ]
    time.sleep(0.3)
    go.touch()
    for worker in workers:
        _, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err.decode()

    session = SessionFile.open(created.path)
    assert session.anomalies == []
    assert session.partial_tail == 0
    assert len(session.entries) == 200
    assert len({e.id for e in session.entries}) == 200
    previous = None
    for entry in session.entries:
        assert entry.parent_id == previous
        previous = entry.id
    assert session.branch_ids() == [e.id for e in session.entries]

    data = [line["data"] for line in file_lines(created.path)[1:]]
    for worker_no in range(4):
        assert [d["i"] for d in data if d["worker"] == worker_no] == list(range(50))


# -- discovery ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cwd", "name"),
    [
        ("/home/u/proj", "--home-u-proj--"),
        ("/", "----"),
        ("/home/u/my proj", "--home-u-my proj--"),
        ("C:\\Users\\u\\proj", "--C--Users-u-proj--"),
        ("\\srv\\proj", "--srv-proj--"),
        ("/a:b/c", "--a-b-c--"),
    ],
)
def test_session_dir_encoding(tmp_path: Path, cwd: str, name: str) -> None:
    assert session_dir(tmp_path, cwd) == tmp_path / "sessions" / name


def test_session_dir_strips_only_one_leading_separator(tmp_path: Path) -> None:
    assert session_dir(tmp_path, "//host/proj") == tmp_path / "sessions" / "---host-proj--"
    assert session_dir(tmp_path, "\\\\host\\proj") == tmp_path / "sessions" / "---host-proj--"


def test_session_file_name() -> None:
    assert session_file_name("2024-12-03T14:00:00.000Z", SESSION_ID) == (
        f"2024-12-03T14-00-00-000Z_{SESSION_ID}.jsonl"
    )


def test_canonical_project_path_follows_symlinks(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    assert canonical_project_path(link) == str(real.resolve())
    assert canonical_project_path(str(real / "sub" / "..")) == str(real.resolve())


SIBLINGS = {
    "2024-12-03T14-00-00-000Z_abc11111-0000-4000-8000-000000000001.jsonl",
    "2024-12-04T14-00-00-000Z_abc22222-0000-4000-8000-000000000002.jsonl",
    "2024-12-05T14-00-00-000Z_def33333-0000-4000-8000-000000000003.jsonl",
}


@pytest.fixture
def sessions_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    directory = session_dir(home, CWD)
    directory.mkdir(parents=True)
    for name in SIBLINGS:
        session_id = name.split("_", 1)[1].removesuffix(".jsonl")
        write(directory / name, header(id=session_id))
    (directory / "notes.txt").write_text("not a session")
    (directory / "sub.jsonl").mkdir()
    return home


def test_list_and_newest_sessions(sessions_home: Path) -> None:
    sessions = list_sessions(sessions_home, CWD)
    assert [p.name for p in sessions] == sorted(SIBLINGS)
    assert newest_session(sessions_home, CWD) == sessions[-1]
    assert list_sessions(sessions_home, "/elsewhere") == []
    assert newest_session(sessions_home, "/elsewhere") is None


def test_resolve_session_by_path(sessions_home: Path, tmp_path: Path) -> None:
    outside = write(tmp_path / "loose.jsonl", header())
    assert resolve_session(sessions_home, CWD, str(outside)) == outside.resolve()
    inside = sorted(session_dir(sessions_home, CWD).iterdir())[0]
    assert resolve_session(sessions_home, "/other/cwd", str(inside)) == inside.resolve()


def test_resolve_session_missing_path(sessions_home: Path, tmp_path: Path) -> None:
    with pytest.raises(SessionFileError, match="no such session file"):
        resolve_session(sessions_home, CWD, str(tmp_path / "nope.jsonl"))
    with pytest.raises(SessionFileError):
        resolve_session(sessions_home, CWD, "nope.jsonl")


def test_resolve_session_by_id_and_prefix(sessions_home: Path) -> None:
    directory = session_dir(sessions_home, CWD)
    full_id = "def33333-0000-4000-8000-000000000003"
    expected = directory / f"2024-12-05T14-00-00-000Z_{full_id}.jsonl"
    assert resolve_session(sessions_home, CWD, full_id) == expected
    assert resolve_session(sessions_home, CWD, "def") == expected
    assert resolve_session(sessions_home, CWD, "abc2") == (
        directory / "2024-12-04T14-00-00-000Z_abc22222-0000-4000-8000-000000000002.jsonl"
    )
    assert SessionFile.open(resolve_session(sessions_home, CWD, "def")).session_id == full_id


def test_resolve_session_ambiguous_prefix(sessions_home: Path) -> None:
    with pytest.raises(SessionFileError, match="ambiguous") as info:
        resolve_session(sessions_home, CWD, "abc")
    assert "2 sessions" in str(info.value)


def test_resolve_session_unknown_id(sessions_home: Path) -> None:
    with pytest.raises(SessionFileError, match="no session 'zzz'"):
        resolve_session(sessions_home, CWD, "zzz")
    with pytest.raises(SessionFileError):
        resolve_session(sessions_home, "/other/cwd", "def")


def test_resolve_session_does_not_match_the_timestamp_part(sessions_home: Path) -> None:
    with pytest.raises(SessionFileError):
        resolve_session(sessions_home, CWD, "2024-12-05")


@pytest.mark.parametrize("group_commit", [False, True])
def test_an_append_is_flushed_before_the_lock_context_ends(
        created: SessionFile, session_path: Path, monkeypatch: pytest.MonkeyPatch,
        group_commit: bool) -> None:
    """Plain: the flush is under the lock, before ``append`` returns. Group commit: the
    line is written under the lock and flushed right after the lock is released (the next
    writer appends meanwhile), still before the context ends; a write is reported only
    after it. Either way nothing leaves ``locked()`` unflushed, even on an error."""
    import fcntl
    import os

    events: list[str] = []
    real_fsync, real_flock = os.fsync, fcntl.flock

    def fsync(fd: int) -> None:
        events.append("fsync")
        real_fsync(fd)

    def flock(fd: int, operation: int) -> None:
        events.append({fcntl.LOCK_EX: "lock", fcntl.LOCK_EX | fcntl.LOCK_NB: "lock",
                       fcntl.LOCK_UN: "unlock"}.get(operation, "?"))
        real_flock(fd, operation)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(fcntl, "flock", flock)
    new_id = ids()
    with created.locked(group_commit=group_commit):
        created.append(message("ignored", None), new_id)
        events.append("appended")
    events.append("released")
    if group_commit:
        assert events == ["lock", "appended", "unlock", "fsync", "released"]
    else:
        assert events == ["lock", "fsync", "appended", "released"]

    events.clear()
    with pytest.raises(RuntimeError, match="after the append"), \
            created.locked(group_commit=group_commit):
        created.append(message("ignored", None), new_id)
        raise RuntimeError("a failure after the append")
    assert "fsync" in events, "a line written before a failure is flushed all the same"
    assert len(SessionFile.open(session_path).entries) == 2  # both appends, header aside

    events.clear()
    with created.locked(group_commit=True):
        pass
    assert events == ["lock"], "nothing appended: no flush"


@pytest.mark.parametrize("group_commit", [False, True])
def test_a_write_error_names_the_session_file(created: SessionFile, session_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              group_commit: bool) -> None:
    """An error on the file's descriptor (a full disk) carries no file name: the CLI said
    "No space left on device (file)". It names the session file now."""
    import errno
    import os

    from waymarks.ledger import session_file

    def full(*_args: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(session_file.os, "fsync", full)
    with pytest.raises(OSError) as failed, created.locked(group_commit=group_commit):
        created.append(message("ignored", None), ids())
    assert failed.value.errno == errno.ENOSPC and failed.value.filename == str(session_path)


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_name_here_that_is_no_session_file_is_said_to_be_one(
        sessions_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """``--session pipe`` naming a FIFO or a folder in this directory (no slash, no
    ``.jsonl``) was looked up as a session ID: "no session 'pipe'" sent the person
    looking for a session, the thing named right there. An ID still wins."""
    import os

    monkeypatch.chdir(tmp_path)
    if kind == "fifo":
        os.mkfifo(tmp_path / "pipe")
    else:
        (tmp_path / "pipe").mkdir()
    with pytest.raises(SessionFileError) as info:
        resolve_session(sessions_home, CWD, "pipe")
    assert str(info.value).startswith(f"{Path('pipe')}: ") and "not a session file" in str(
        info.value), info.value
    (tmp_path / "def").mkdir()  # the prefix of a session here: that session
    assert _id_of_path(resolve_session(sessions_home, CWD, "def")).startswith("def33333")


@pytest.mark.parametrize("ref", [r"C:\Users\ada\session", r"D:\s", r"\\server\share\s"])
def test_a_windows_path_is_a_path_not_an_id(sessions_home: Path, ref: str) -> None:
    """A Windows path (a copy from another machine's notes) was looked up as a session ID."""
    with pytest.raises(SessionFileError) as info:
        resolve_session(sessions_home, CWD, ref)
    assert str(info.value) == f"{ref}: no such session file", info.value


def _id_of_path(path: Path) -> str:
    return path.name.split("_", 1)[1]
