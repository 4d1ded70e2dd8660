"""A newer session file cut short (another tool's crash, a bad sync) is passed over, as an
interrupted creation is (``test_files_without_a_complete_header_are_never_picked``), but
never in silence: `pins` said "No pin items in this session." with exit 0, and the next
`pin` started a new session beside it, and only `health` told of it."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_cli_input import run
from waymarks.ledger.discovery import canonical_project_path, session_dir


def test_reads_and_writes_name_a_newer_session_file_cut_short(home: Path,
                                                               project: Path) -> None:
    run(home, project, "pin", "--", "Deploy with make ship.")
    [ledger] = session_dir(home, canonical_project_path(project)).glob("*.jsonl")
    ledger.write_bytes(ledger.read_bytes()[:40])  # `head -c 40 F > F.cut; mv F.cut F`
    cut = ledger.read_bytes()
    shown = run(home, project, "pins", json_out=False)
    assert "No pin items" in shown
    assert f"{ledger}: newer than the session used, with no session header" in shown
    assert "`waymarks health`" in shown
    listed = run(home, project, "pins")
    assert listed["items"] == [] and listed["passedOver"]["files"] == [str(ledger)]
    assert "what is shown comes from an older session" in listed["passedOver"]["message"]
    written = run(home, project, "pin", "--", "Second pin.")
    assert written["outcome"] == "committed"
    assert "this write started a new session" in written["passedOver"]["message"]
    assert ledger.read_bytes() == cut  # nothing lost: the cut file is left as it was
    again = run(home, project, "pins")  # the new session is the newest now: nothing to say
    assert [i["text"] for i in again["items"]] == ["Second pin."]
    assert "passedOver" not in again


def test_an_empty_newer_file_holds_nothing_and_is_not_named(home: Path,
                                                            project: Path) -> None:
    run(home, project, "pin", "--", "Deploy with make ship.")
    [ledger] = session_dir(home, canonical_project_path(project)).glob("*.jsonl")
    (ledger.parent / ("9" + ledger.name[1:])).write_bytes(b"")  # sorts after it
    listed = run(home, project, "pins")
    assert [i["text"] for i in listed["items"]] == ["Deploy with make ship."]
    assert "passedOver" not in listed


def test_health_names_a_newer_file_cut_short_that_was_never_indexed(home: Path,
                                                                    project: Path) -> None:
    """The notes send the person to `health`, which said OK of a file it never indexed."""
    run(home, project, "pin", "--", "Deploy with make ship.")
    [ledger] = session_dir(home, canonical_project_path(project)).glob("*.jsonl")
    cut = ledger.parent / ("9" + ledger.name[1:])
    cut.write_bytes(ledger.read_bytes()[:40])
    report = run(home, project, "health", expect=1)
    assert report["ok"] is False
    [problem] = [p for p in report["problems"] if str(cut) in p]
    assert "no complete session header" in problem and "mv " in problem
    assert cut.read_bytes() == ledger.read_bytes()[:40]
