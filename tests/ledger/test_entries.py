"""Entry bodies (``ledger.entries``), read from real session files by the reader's rules:
what a message, a compaction and a custom entry say, the first line of an ID wins, lines
the reader skipped or has not read yet never count, and the last entry is found from the
end of the file whatever its length. Nothing outside ``ledger/`` reads ledger bytes to
decode them."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from waymarks.ledger.entries import (
    TAIL_BYTES,
    Compaction,
    Custom,
    Message,
    Other,
    bodies,
    custom_entries,
    last_entry,
    messages,
)
from waymarks.ledger.session_file import SessionFile

SESSION_ID = "0f8fad5b-d9cb-469f-a165-70867728950e"
TS = "2026-01-01T00:00:00.000Z"
SRC = Path(__file__).resolve().parents[2] / "src" / "waymarks"


def line(entry: dict[str, Any]) -> bytes:
    return json.dumps(entry).encode() + b"\n"


def msg(entry_id: str, parent: str | None, role: str, content: object,
        sent: object = 1767225600000) -> dict[str, Any]:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": TS,
            "message": {"role": role, "content": content, "timestamp": sent}}


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line({"type": "session", "version": 3, "id": SESSION_ID,
                           "timestamp": TS, "cwd": str(tmp_path)}))
    return path


def write(path: Path, *entries: dict[str, Any] | bytes) -> SessionFile:
    with path.open("ab") as handle:
        for entry in entries:
            handle.write(entry if isinstance(entry, bytes) else line(entry))
    return SessionFile.open(path)


def test_messages_say_who_spoke_and_what_they_sent(ledger: Path) -> None:
    session = write(
        ledger,
        msg("a1", None, "user", [{"type": "text", "text": "Use port 5433"},
                                 {"type": "image", "data": "..."},
                                 {"type": "text", "text": "and tabs"}]),
        msg("a2", "a1", "assistant", "Noted", sent="yesterday"),
        {"type": "message", "id": "a3", "parentId": "a2", "timestamp": TS, "message": "?"},
        msg("a4", "a3", "toolResult", [{"type": "text", "text": 42}], sent=True),
    )
    assert list(messages(session)) == [
        Message("a1", None, "user", "Use port 5433\nand tabs", 1767225600000),
        Message("a2", "a1", "assistant", "Noted", None),
        Message("a3", "a2", "", "", None),  # not a message Pi writes: nothing said
        Message("a4", "a3", "toolResult", "", None),
    ]


def test_compactions_custom_entries_and_others(ledger: Path) -> None:
    session = write(
        ledger,
        msg("a1", None, "user", "hello"),
        {"type": "compaction", "id": "c1", "parentId": "a1", "timestamp": TS,
         "firstKeptEntryId": "a1", "summary": "..."},
        {"type": "compaction", "id": "c2", "parentId": "c1", "timestamp": TS,
         "firstKeptEntryId": 7},
        {"type": "custom", "id": "n1", "parentId": "c2", "timestamp": TS,
         "customType": "waymarks-note-v1", "data": {"event": "clear"}},
        {"type": "custom", "id": "n2", "parentId": "n1", "timestamp": TS,
         "customType": "other-v1", "data": [1, 2]},
        {"type": "branch_summary", "id": "b1", "parentId": "n2", "timestamp": TS},
    )
    assert list(bodies(session, ("compaction", "branch_summary"))) == [
        Compaction("c1", "a1", "a1", "..."), Compaction("c2", "c1", None), Other("b1", "n2",
                                                                          "branch_summary")]
    assert list(custom_entries(session, "waymarks-note-v1")) == [
        Custom("n1", "c2", "waymarks-note-v1", {"event": "clear"})]
    assert [b.id for b in bodies(session)] == ["a1", "c1", "c2", "n1", "n2", "b1"]
    assert [b.id for b in bodies(session)] == [e.id for e in session.entries]


def test_bodies_follow_the_reader_skipped_lines_duplicates_and_unread_tails(
        ledger: Path) -> None:
    session = write(
        ledger,
        msg("a1", None, "user", "the first a1"),
        b"not json at all\n",
        b"\n",
        {"type": "message", "id": "x1", "message": {"role": "user", "content": "no time"}},
        msg("a1", None, "user", "a later line reusing a1"),  # the reader skips it
        msg("a2", "a1", "user", "second"),
        b'{"type": "message", "id": "a3", "parentId": "a2", "timest',  # being written
    )
    assert [(m.id, m.text) for m in messages(session)] == [
        ("a1", "the first a1"), ("a2", "second")]
    assert [e.id for e in session.entries] == ["a1", "a2"]
    with ledger.open("ab") as handle:  # the writer finishes its line; unread until refresh
        handle.write(b'amp": "' + TS.encode() + b'", "message": {"role": "user", '
                     b'"content": "third"}}\n')
    assert [m.id for m in messages(session)] == ["a1", "a2"]
    session.refresh()
    assert [m.id for m in messages(session)] == ["a1", "a2", "a3"]


def test_the_last_entry_is_the_leaf_when_it_is_the_last_line(ledger: Path) -> None:
    session = SessionFile.open(ledger)
    assert last_entry(session) is None  # only the header
    session = write(ledger, msg("a1", None, "user", "hello"), b"\n\n")
    assert last_entry(session) == Message("a1", None, "user", "hello", 1767225600000)
    session = write(ledger, b"garbage after the leaf\n")
    assert last_entry(session) is None
    long_text = "x" * (3 * TAIL_BYTES)
    session = write(ledger, msg("a2", "a1", "user", long_text))
    last = last_entry(session)
    assert isinstance(last, Message) and last.id == "a2" and last.text == long_text
    session = write(ledger, msg("a2", "a1", "user", "a duplicate of the leaf"))
    assert last_entry(session) is None  # the reader skipped it: it is not the leaf


def test_appended_entries_read_back_through_the_api(ledger: Path) -> None:
    session = SessionFile.open(ledger)
    counter = iter(range(1, 100))
    with session.locked():
        session.append({"type": "message", "timestamp": TS, "message": {
            "role": "user", "content": [{"type": "text", "text": "Run ruff"}],
            "timestamp": 5}}, lambda: f"e{next(counter):07d}")
        session.append({"type": "custom", "timestamp": TS, "customType": "t-v1",
                        "data": {"k": "v"}}, lambda: f"e{next(counter):07d}")
    assert [(m.id, m.parent_id, m.role, m.text) for m in messages(session)] == [
        ("e0000001", None, "user", "Run ruff")]
    assert last_entry(session) == Custom("e0000002", "e0000001", "t-v1", {"k": "v"})


@pytest.mark.slow
def test_nothing_outside_the_ledger_reads_ledger_bytes() -> None:
    """Entry bodies come from ``ledger.entries``: no module elsewhere reads a ledger's
    bytes (``read_all``, ``tail_bytes``) to parse them itself."""
    found = []
    for path in SRC.rglob("*.py"):
        if path.parent.name == "ledger":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(SRC)}:{node.lineno}" for node in ast.walk(tree)
                  if isinstance(node, ast.Attribute) and node.attr in ("read_all", "tail_bytes")]
    assert found == []
