"""Reads of a project whose sessions are all another host's (Pi's): the command line has
no session of its own there, and still sees the project's memory that its writes see."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_cli_input import pi_session, run


def test_project_memory_written_in_pi_is_read_without_a_session(
        home: Path, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A review: project memory written in Pi was invisible to the command line until it
    had a session of its own (`memory` said "No memory items in this session.", `recall`
    found nothing, `plan` left it out), yet a contradicting `memory add --scope project`
    was refused as a conflict naming it. Without a session, lists, recall and plans read
    the trusted project's items now, as the conflict check does."""
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    run(home, project, "trust", ".")
    ledger = pi_session(project.resolve(), tmp_path / "agent")
    run(home, project, "--session", str(ledger), "memory", "add", "--scope", "project",
        "--key", "staging-port", "--", "The staging port is 8443.")
    run(home, project, "--session", str(ledger), "pin", "--scope", "project", "--",
        "Deploy on Tuesdays only.")
    assert [s["sessionId"] for s in run(home, project, "session", "list")["sessions"]] \
        == []  # the command line has no session of its own here
    listed = run(home, project, "memory")["items"]
    assert [(i["text"], i["applies"]) for i in listed] == [("The staging port is 8443.", True)]
    assert [i["text"] for i in run(home, project, "pins")["items"]] == \
        ["Deploy on Tuesdays only."]
    recalled = run(home, project, "recall", "what is the staging port")
    assert recalled["selected"] == [listed[0]["id"]], recalled
    plan = run(home, project, "plan", "--prompt", "what is the staging port?", json_out=False)
    assert "8443" in plan and "Deploy on Tuesdays only." in plan
    # `status` counted nothing without a session (a re-read), and the model's
    # memory_recall gave the claim while saying there were no confirmed claims
    counts = run(home, project, "status")
    assert (counts["pins"]["applies"], counts["memory"]["applies"]) == (1, 1)
    from waymarks.service.app import Waymarks
    from waymarks.tool.recall import memory_recall

    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    with Waymarks(home, cwd=str(project)) as app:
        answer = memory_recall(app, "what is the staging port")
    assert [c["id"] for c in answer["claims"]] == [listed[0]["id"]]
    assert "confirmedUnavailable" not in answer
    run(home, project, "untrust", ".")  # untrusted: the project's items apply nowhere
    assert [i["applies"] for i in run(home, project, "memory")["items"]] == [False]
    assert run(home, project, "recall", "what is the staging port")["selected"] == []
    assert run(home, project, "status")["memory"]["applies"] == 0
