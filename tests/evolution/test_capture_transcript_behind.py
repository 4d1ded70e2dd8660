"""A ``Stop`` whose transcript Claude Code has not written yet (CI's kept runs: the file was
created ~40 ms after the detached drainer had looked for it, found nothing to capture and
removed the request; ``evolve`` then found no work). The request now waits, with the fixed
code ``transcript_behind``, until the file exists and holds the turn, and after
``BEHIND_TRIES`` drains takes what the file holds."""

from __future__ import annotations

import json
from pathlib import Path

from waymarks.core.evolution.transcript import turn_written
from waymarks.service.capture_spool import BEHIND_TRIES, pending, write_request
from waymarks.service.evolution import Evolution, drain_captures

SESSION = "b41d0000-0000-4000-8000-0000000b41d0"
STATEMENT = "From now on I prefer pnpm over npm for every package"
USER = {"type": "user", "uuid": "u1", "message": {"role": "user", "content": STATEMENT}}
ASSISTANT = {"type": "assistant", "uuid": "a1", "message": {
    "role": "assistant", "content": [{"type": "text", "text": "Noted."}]}}
QUEUED = {"type": "queue-operation", "operation": "enqueue"}


def lines(*entries: dict[str, object]) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in entries)


def test_a_turn_is_written_once_the_assistants_reply_follows_the_persons_words() -> None:
    assert not turn_written(b"")
    assert not turn_written(lines(QUEUED, QUEUED))  # the turn not written yet
    assert not turn_written(lines(QUEUED, USER))
    assert turn_written(lines(QUEUED, USER, ASSISTANT))
    sidechain = {**ASSISTANT, "isSidechain": True}  # a subagent's reply is not the turn's
    assert not turn_written(lines(USER, sidechain))
    assert turn_written(lines(USER, ASSISTANT) + b'{"type": "user", "mess')  # being written
    interrupted = {"type": "user", "message": {"role": "user", "content": [
        {"type": "text", "text": "[Request interrupted by user for tool use]"}]}}
    assert turn_written(lines(USER, ASSISTANT, interrupted))  # the person stopped the turn


def _home(tmp_path: Path) -> tuple[Path, Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n", encoding="utf-8")
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_bytes(lines(QUEUED, QUEUED))
    assert write_request(home, "claude-code", "Stop", SESSION, str(transcript),
                         str(project))
    return home, project, transcript


def _statements(home: Path) -> list[str]:
    with Evolution(home) as evo:
        return [s.text for s in evo.store.sources() if s.kind == "statement"]


def test_the_request_waits_until_the_turn_is_in_the_transcript(tmp_path: Path) -> None:
    home, _, transcript = _home(tmp_path)
    for _ in range(2):
        drained = drain_captures(home)
        assert drained["kept"] == 1 and drained["errors"] == {"transcript_behind": 1}
        assert len(pending(home)) == 1
    assert _statements(home) == []
    transcript.write_bytes(lines(QUEUED, QUEUED, USER, ASSISTANT))  # Claude Code wrote it
    drained = drain_captures(home)
    assert (drained["captured"], drained["done"], pending(home)) == (1, 1, [])
    assert [STATEMENT in text for text in _statements(home)] == [True]


def test_the_request_waits_for_a_transcript_not_created_yet(tmp_path: Path) -> None:
    """What CI's kept runs showed: Claude Code created the transcript after the Stop hook,
    and the drainer, faster, dropped the request as having nothing to capture."""
    home, _, transcript = _home(tmp_path)
    transcript.unlink()
    drained = drain_captures(home)
    assert drained["kept"] == 1 and drained["errors"] == {"transcript_behind": 1}
    transcript.write_bytes(lines(QUEUED, USER, ASSISTANT))
    drained = drain_captures(home)
    assert (drained["captured"], drained["done"], pending(home)) == (1, 1, [])
    assert [STATEMENT in text for text in _statements(home)] == [True]


def test_after_enough_drains_what_the_file_holds_is_captured(tmp_path: Path) -> None:
    """A turn whose reply never reaches the file (Claude Code stopped) does not wait
    forever: its words are captured."""
    home, _, transcript = _home(tmp_path)
    transcript.write_bytes(lines(QUEUED, USER))
    for _ in range(BEHIND_TRIES):
        assert drain_captures(home)["errors"] == {"transcript_behind": 1}
    drained = drain_captures(home)
    assert (drained["captured"], drained["done"], pending(home)) == (1, 1, [])
