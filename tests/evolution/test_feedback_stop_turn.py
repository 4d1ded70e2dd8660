"""Natural feedback at Claude Code's ``Stop`` is the ended turn's own prompt only: a later
turn whose prompt the transcript does not list as the person's words (a slash command,
bash mode) must not re-apply an earlier turn's verdict under a new receipt key."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.evolution.test_end_to_end import _cli
from tests.evolution.test_feedback_claude_code import (
    SESSION,
    _prompt,
    _said,
    _stop,
    _told_incorrect,
)


@pytest.mark.slow
def test_an_undone_verdict_is_not_reapplied_by_a_later_slash_command_turn(
        tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "b"
    claim, feedback, event = _told_incorrect(tmp_path, home, project)
    transcript = tmp_path / "t.jsonl"
    _stop(home, project, _said(transcript, feedback))
    assert _cli(home, project, "evolution", "undo", str(event))["undone"] == event
    assert _cli(home, project, "evolution", "show", claim)["state"] == "provisional"
    # the next turn is a custom slash command: its prompt is recorded by the prompt hook,
    # and the transcript holds it as command text, not as the person's words
    _prompt(home, project, "/review")
    command = ("<command-message>review is running…</command-message>\n"
               "<command-name>/review</command-name>")
    _stop(home, project, _said(transcript, feedback, command))
    shown = _cli(home, project, "evolution", "show", claim)
    assert shown["state"] == "provisional"  # the undone verdict stays undone
    assert len(shown["receipts"]) == 1  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_stop_whose_transcript_is_behind_applies_no_earlier_verdict(tmp_path: Path) -> None:
    """The drain's last try takes what the transcript holds, which may still end with the
    previous turn: its prompt is not this turn's, so no verdict is read from it."""
    from waymarks.service.capture_spool import capture_transcript
    from waymarks.service.evolution import Evolution

    home, project = tmp_path / "home", tmp_path / "b"
    claim, feedback, event = _told_incorrect(tmp_path, home, project)
    transcript = _said(tmp_path / "t.jsonl", feedback)
    _stop(home, project, transcript)
    assert _cli(home, project, "evolution", "undo", str(event))["undone"] == event
    _prompt(home, project, "Which deployment tool do we use?")  # the next turn's prompt
    with Evolution(home) as evo:  # its Stop, the transcript not written yet
        capture_transcript(home, "Stop", SESSION, str(transcript), str(project), evo,
                           patient=False)
    shown = _cli(home, project, "evolution", "show", claim)
    assert shown["state"] == "provisional"
    assert len(shown["receipts"]) == 1  # type: ignore[arg-type]
