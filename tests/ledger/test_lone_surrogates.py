"""A ledger line escaping half of a surrogate pair (``"\\ud83d"``, as JavaScript's
``JSON.stringify`` writes a string cut inside an emoji) is read, each unpaired half as
U+FFFD: msgspec refused the line whole, the entry was dropped and the branch cut there
(a branch pin before it stopped applying)."""

from __future__ import annotations

from pathlib import Path

from waymarks.ledger.entries import Message, bodies, decode_entry
from waymarks.ledger.session_file import SessionFile

TS = "2026-01-01T00:00:01.000Z"
HEADER = ('{"type":"session","version":3,"id":"s-1","timestamp":"' + TS
          + '","cwd":"/project"}')


def message(entry_id: str, parent: str, text: str) -> str:
    return ('{"type":"message","id":"' + entry_id + '","parentId":"' + parent
            + '","timestamp":"' + TS + '","message":{"role":"toolResult","content":'
            '[{"type":"text","text":"' + text + '"}]}}')


def test_lines_with_lone_surrogate_escapes_keep_their_entries(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    lines = [HEADER,
             '{"type":"message","id":"e1","parentId":null,"timestamp":"' + TS + '",'
             '"message":{"role":"user","content":"hello"}}',
             message("e2", "e1", "cut mid-emoji: \\ud83d"),       # a lone high half
             message("e3", "e2", "\\udc00 a lone low half"),
             message("e4", "e3", "a whole pair \\ud83d\\ude00 and \\\\ud83d as text"),
             message("e5", "e4", "plain")]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    session = SessionFile.open(path)
    assert session.anomalies == []
    assert session.branch_ids() == ["e1", "e2", "e3", "e4", "e5"]
    texts = {b.id: b.text for b in bodies(session) if isinstance(b, Message)}
    assert texts["e2"] == "cut mid-emoji: \ufffd"
    assert texts["e3"] == "\ufffd a lone low half"
    assert texts["e4"] == "a whole pair \U0001f600 and \\ud83d as text"  # unchanged
    assert all(text.encode("utf-8") for text in texts.values())  # no surrogate left


def test_a_line_that_is_not_json_is_still_refused() -> None:
    import msgspec
    import pytest

    for line in (b'{"type":"message","id":"e1" \\ud83d', b"\\ud83d", b'"\\ud83d'):
        with pytest.raises(msgspec.DecodeError):
            decode_entry(line)
