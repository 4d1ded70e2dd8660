"""Learning off means nothing said meanwhile is ever captured (docs/learning.md: turning learning
off stops capture). Capture took the last 16 statements of the whole session (Pi) or of
the transcript's tail (Claude Code) at every turn's end, so what was said while learning
was off, or before it was ever turned on, was captured at the first turn after ``learn
on`` and sent to the learning model. Each turn is judged at its own end now."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.evolution.test_capture import trust_project
from tests.hosts.test_pi_evolve import Bridge, _entry, _initialize
from waymarks.service.evolution import Evolution, drain_captures
from waymarks.service.learning import ledger_path, set_learning

SESSION = "5a5a5a5a-0000-4000-8000-00000000000a"


def _texts(home: Path, kind: str = "statement") -> list[str]:
    drain_captures(home)
    if not ledger_path(home).is_file():
        return []
    with Evolution(home) as evo:
        return [s.text for s in evo.store.sources() if s.kind == kind]


def test_pi_captures_only_the_turn_that_ended_under_the_switch_then(tmp_path: Path) -> None:
    """The reviewer's run in the real Pi, at the bridge: a statement before learning was
    ever on, one while it was off again, then a question with it on: only the statement
    made while it was on is a source."""
    home, project = tmp_path / "home", tmp_path / "a"
    project.mkdir()
    home.mkdir()
    bridge = Bridge(home, project)
    try:
        _initialize(bridge, project, tmp_path / "s.jsonl", [])

        def turn(n: int, text: str) -> dict[str, Any]:
            parent = f"r{n - 1}" if n > 1 else None
            return bridge.call("learn", {"event": "agent_end", "users": [f"u{n}"], "sync": {
                "entries": [_entry(f"u{n}", parent, "user", text),
                            _entry(f"r{n}", f"u{n}", "assistant", "Noted.")],
                "leafId": f"r{n}"}})

        assert turn(1, "Remember that my bank is Chase.")["skipped"] == "learning_off"
        set_learning(home, True)
        assert turn(2, "Remember that I prefer yarn over npm.")["captured"] == 1
        set_learning(home, False)
        assert turn(3, "Remember that my salary is 123k; note that, it is private.")[
            "skipped"] == "learning_off"
        set_learning(home, True)
        assert turn(4, "What is two plus two?")["captured"] == 0
        # a caller naming no turn (an older extension) gets the last user message only
        assert bridge.call("learn", {"event": "agent_end"})["captured"] == 0
    finally:
        bridge.close()
    assert _texts(home) == ["Remember that I prefer yarn over npm."]


def _line(kind: str, uuid: str, content: object) -> dict[str, Any]:
    return {"type": kind, "uuid": uuid, "sessionId": SESSION,
            "message": {"role": kind, "content": content}}


def _stop(home: Path, project: Path, transcript: Path, *turns: tuple[str, str]) -> int:
    """Append ``turns`` ((user text, reply)) to the transcript, then one ``Stop``."""
    from waymarks.hosts.claude_code_capture import capture

    with transcript.open("a") as out:
        for text, reply in turns:
            n = sum(1 for _ in transcript.open()) if transcript.exists() else 0
            out.write(json.dumps(_line("user", f"u{n}", text)) + "\n")
            out.write(json.dumps(_line("assistant", f"a{n}", [
                {"type": "text", "text": reply}])) + "\n")
            out.flush()
    payload = {"session_id": SESSION, "cwd": str(project), "hook_event_name": "Stop",
               "transcript_path": str(transcript)}
    return int(capture("Stop", payload, home, str(project))["captured"])


def _past(home: Path) -> None:
    """The configuration written well before the next capture (its end is newer)."""
    os.utime(home / "config.toml", (1_000_000, 1_000_000))


@pytest.fixture
def claude_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """A home, a project and the path of a Claude Code transcript (not yet written)."""
    monkeypatch.delenv("PI_SUBAGENT_AGENT_ID", raising=False)
    home, project = tmp_path / "home", tmp_path / "p"
    project.mkdir()
    home.mkdir()
    return home, project, tmp_path / "t.jsonl"


def test_claude_code_captures_only_turns_made_while_learning_was_on(
        claude_code: tuple[Path, Path, Path]) -> None:
    home, project, transcript = claude_code
    assert _stop(home, project, transcript, ("Remember that my bank is Chase.", "Ok.")) == 0
    set_learning(home, True)
    assert _stop(home, project, transcript,
                 ("Remember that I prefer yarn over npm.", "Noted.")) == 1
    set_learning(home, False)
    assert _stop(home, project, transcript,
                 ("Remember that my salary is 123k; it is private.", "Ok.")) == 0
    set_learning(home, True)
    assert _stop(home, project, transcript, ("What is two plus two?", "Four.")) == 0
    assert _texts(home) == ["Remember that I prefer yarn over npm."]

    # learning on all along: a Stop whose request was lost (replaced by the next turn's
    # before it was drained) is taken by the next Stop, since the last captured end
    _past(home)
    assert _stop(home, project, transcript, ("From now on, use pnpm here.", "Ok.")) == 1
    _past(home)
    with transcript.open("a") as out:  # a turn whose Stop never captured
        out.write(json.dumps(_line("user", "x1", "We decided to deploy on Fridays.")) + "\n")
        out.write(json.dumps(_line("assistant", "x2", [{"type": "text", "text": "Ok"}])) +
                  "\n")
    assert _stop(home, project, transcript, ("Always run the linter first.", "Ok.")) == 2
    assert "We decided to deploy on Fridays." in _texts(home)
    assert not any("salary" in t or "Chase" in t for t in _texts(home))


def test_pi_captures_the_summary_of_its_own_compaction_only(tmp_path: Path) -> None:
    """A compaction made while learning was off summarized what was said then; the next
    compaction's capture, with learning on, took the last two summaries: the salary said
    while off reached the learning model through its summary."""
    home, project = tmp_path / "home", tmp_path / "a"
    project.mkdir()
    home.mkdir()
    bridge = Bridge(home, project)

    def compaction(entry_id: str, parent: str, summary: str) -> dict[str, Any]:
        return {"type": "compaction", "id": entry_id, "parentId": parent,
                "timestamp": "2026-11-30T10:00:02.000Z", "summary": summary,
                "firstKeptEntryId": parent, "tokensBefore": 1000}

    trust_project(home, project)
    try:
        _initialize(bridge, project, tmp_path / "s.jsonl", [])
        said = [_entry("u1", None, "user", "My salary is 123k; it is private."),
                _entry("r1", "u1", "assistant", "Ok.")]
        off = bridge.call("learn", {"event": "session_compact", "sync": {
            "entries": [*said, compaction("c1", "r1", "The user's salary is 123k.")],
            "leafId": "c1"}})
        assert off["skipped"] == "learning_off"
        set_learning(home, True)
        on = bridge.call("learn", {"event": "session_compact", "sync": {
            "entries": [_entry("u2", "c1", "user", "What is two plus two?"),
                        _entry("r2", "u2", "assistant", "Four."),
                        compaction("c2", "r2", "Arithmetic question answered.")],
            "leafId": "c2"}})
        assert on["captured"] == 1
    finally:
        bridge.close()
    assert _texts(home, "summary") == ["Arithmetic question answered."]


def test_claude_code_captures_summaries_written_since_learning_was_switched(
        claude_code: tuple[Path, Path, Path]) -> None:
    from waymarks.hosts.claude_code_capture import capture

    home, project, transcript = claude_code

    def summary(uuid: str, text: str, at: str) -> str:
        return json.dumps({**_line("user", uuid, text), "isCompactSummary": True,
                           "timestamp": at}) + "\n"

    transcript.write_text(summary("s1", "Summary: the user's salary is 123k (private).",
                                  "2020-01-01T00:00:00.000Z"))
    trust_project(home, project)
    set_learning(home, True)  # written now: after the first summary
    with transcript.open("a") as out:
        out.write(summary("s2", "Summary: we deploy with Kamal.", "2099-01-01T00:00:00.000Z"))
    payload = {"session_id": SESSION, "cwd": str(project), "hook_event_name": "PreCompact",
               "transcript_path": str(transcript), "trigger": "auto"}
    assert capture("PreCompact", payload, home, str(project))["captured"] == 1
    assert _texts(home, "summary") == ["Summary: we deploy with Kamal."]
