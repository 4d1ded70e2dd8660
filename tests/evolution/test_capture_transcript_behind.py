"""A ``Stop`` whose transcript Claude Code has not written yet (CI's kept runs: the file was
created ~40 ms after the detached drainer had looked for it, found nothing to capture and
removed the request; ``evolve`` then found no work). The request now waits, with the fixed
code ``transcript_behind``, until the file exists and holds the turn, and after
``BEHIND_TRIES`` drains takes what the file holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from waymarks.core.evolution.transcript import turn_end, turn_written
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


def test_a_transcript_that_never_appears_is_given_up_and_logged(tmp_path: Path) -> None:
    """After ``BEHIND_TRIES`` drains without the file the request is dropped (nothing to
    capture), and the log says so with a fixed code (before, it left without a word)."""
    home, _, transcript = _home(tmp_path)
    transcript.unlink()
    for _ in range(BEHIND_TRIES):
        assert drain_captures(home)["errors"] == {"transcript_behind": 1}
    drained = drain_captures(home)
    assert (drained["captured"], drained["done"], pending(home)) == (0, 1, [])
    logged = [json.loads(line) for path in (home / "logs").glob("*")
              for line in path.read_text().splitlines()]
    assert [(e["event"], e["code"]) for e in logged if e["event"] != "evolution_capture_queued"
            and e["event"].startswith("evolution_capture")] == [
        ("evolution_capture_dropped", "transcript_missing")]


def test_after_enough_drains_what_the_file_holds_is_captured(tmp_path: Path) -> None:
    """A turn whose reply never reaches the file (Claude Code stopped) does not wait
    forever: its words are captured."""
    home, _, transcript = _home(tmp_path)
    transcript.write_bytes(lines(QUEUED, USER))
    for _ in range(BEHIND_TRIES):
        assert drain_captures(home)["errors"] == {"transcript_behind": 1}
    drained = drain_captures(home)
    assert (drained["captured"], drained["done"], pending(home)) == (1, 1, [])


SECOND = "From now on I prefer tabs over spaces in every Makefile"
USER2 = {"type": "user", "uuid": "u2", "message": {"role": "user", "content": SECOND}}
ASSISTANT2 = {"type": "assistant", "uuid": "a2", "message": {
    "role": "assistant", "content": [{"type": "text", "text": "Tabs it is."}]}}


def test_a_resumed_sessions_next_turn_waits_for_its_own_reply(tmp_path: Path) -> None:
    """``claude -p --resume``: the file already holds the last turn, ending with its reply,
    when the next turn's ``Stop`` is drained. That reply is the one the session's previous
    capture found, so the request waits for the new turn's (the file alone said "written",
    and the new turn's words were never captured once the request was gone)."""
    home, project, transcript = _home(tmp_path)
    transcript.write_bytes(lines(QUEUED, USER, ASSISTANT))
    assert drain_captures(home)["captured"] == 1
    assert write_request(home, "claude-code", "Stop", SESSION, str(transcript), str(project))
    drained = drain_captures(home)
    assert drained["kept"] == 1 and drained["errors"] == {"transcript_behind": 1}
    with transcript.open("ab") as handle:  # Claude Code writes the new turn
        handle.write(lines(USER2, ASSISTANT2))
    drained = drain_captures(home)
    assert (drained["captured"], drained["done"], pending(home)) == (1, 1, [])
    assert sorted(_statements(home)) == sorted([STATEMENT, SECOND])


def test_a_turn_written_before_its_stop_is_drained_is_captured_at_once(
        tmp_path: Path) -> None:
    """Interactive Claude Code writes each turn as it goes: every ``Stop`` finds its own
    reply already in the file and waits for nothing."""
    home, project, transcript = _home(tmp_path)
    transcript.write_bytes(lines(QUEUED, USER, ASSISTANT))
    assert drain_captures(home)["captured"] == 1
    with transcript.open("ab") as handle:
        handle.write(lines(USER2, ASSISTANT2))
    assert write_request(home, "claude-code", "Stop", SESSION, str(transcript), str(project))
    drained = drain_captures(home)
    assert (drained["captured"], drained["done"], drained["errors"]) == (1, 1, {})


def test_the_turn_end_is_the_last_main_thread_messages_id() -> None:
    assert turn_end(lines(USER, ASSISTANT)) == "a1"
    assert turn_end(lines(USER, ASSISTANT, {**ASSISTANT2, "isSidechain": True})) == "a1"
    assert turn_end(lines(USER)) is None
    no_id = {k: v for k, v in ASSISTANT.items() if k != "uuid"}
    assert turn_end(lines(USER, no_id)) == ""
    assert turn_written(lines(USER, no_id), "")  # no ID to compare: the file alone decides
    assert not turn_written(lines(USER, ASSISTANT), "a1")
    assert turn_written(lines(USER, ASSISTANT, USER2, ASSISTANT2), "a1")


def test_the_kept_turn_ends_are_bounded(tmp_path: Path) -> None:
    """One small file per session: past ``MAX_ENDS`` the oldest half is forgotten (a
    forgotten session's next ``Stop`` is judged by the file alone)."""
    import os

    from waymarks.service import capture_turns as turns
    from waymarks.service.capture_spool import end_path

    def end(session: str) -> str:
        return end_path(tmp_path, session)

    for n in range(turns.MAX_ENDS):
        turns.remember_end(end(f"session-{n:04d}"), f"a{n}")
        os.utime(end(f"session-{n:04d}"), (n, n))  # creation order, whatever the clock
    assert turns.last_end(end("session-0000")) == "a0"
    turns.remember_end(end("session-new"), "z")
    kept = os.listdir(os.path.dirname(end("session-new")))
    assert len(kept) == turns.MAX_ENDS // 2 + 1
    assert turns.last_end(end("session-0000")) is None  # the oldest: forgotten
    assert turns.last_end(end(f"session-{turns.MAX_ENDS - 1:04d}")) == \
        f"a{turns.MAX_ENDS - 1}"
    assert turns.last_end(end("session-new")) == "z"
    turns.remember_end(end("session-new"), "x" * (turns.MAX_END_BYTES + 1))
    assert turns.last_end(end("session-new")) == "z"  # an oversized ID is not kept


FIFO_DRAIN = """
import json, os, sys
from pathlib import Path
from waymarks.service.evolution import drain_captures
if len(sys.argv) > 2:  # the FIFO swapped in after the isfile check, as a race would do it
    real = os.path.isfile
    os.path.isfile = lambda p: p == sys.argv[2] or real(p)
print(json.dumps(drain_captures(Path(sys.argv[1]))))
"""


@pytest.mark.parametrize("where", ["end", "transcript"])
def test_a_fifo_never_holds_the_drain(tmp_path: Path, where: str) -> None:
    """A FIFO where the session's last turn end is kept, or in place of the transcript:
    opened plainly, the drain would wait for a writer forever, holding the spool's lock.
    The end is then unknown (the file alone decides); the transcript is an error the
    request keeps (set aside after enough tries)."""
    import os
    import subprocess
    import sys

    from waymarks.service.capture_spool import end_path

    home, _, transcript = _home(tmp_path)
    transcript.write_bytes(lines(QUEUED, USER, ASSISTANT))
    argv = [sys.executable, "-c", FIFO_DRAIN, str(home)]
    if where == "end":
        path = Path(end_path(home, SESSION))
        path.parent.mkdir(parents=True)
    else:
        path = transcript
        path.unlink()
        argv.append(str(path))
    os.mkfifo(path)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    drained = json.loads(done.stdout)
    if where == "end":
        assert (drained["captured"], drained["done"]) == (1, 1)
    else:
        assert drained["kept"] == 1 and drained["errors"] == {"os_error": 1}
