"""Findings of a review of the Pi host with the real Pi 0.73, where the bridge alone
decides: driven as the extension drives it (in-process pipes, or a real ``waymarks
bridge`` process where the files it opens are the point)."""

from __future__ import annotations

from pathlib import Path

from tests.hosts.test_bridge import HEADER, BridgeProcess, Host, converse, user


def test_a_file_at_bridges_is_named_as_the_file_in_the_way(tmp_path: Path) -> None:
    """A regular file where the folder ``<home>/bridges`` goes: the held-back notice named
    ``bridges/<session id>.lock``, which cannot exist, as the file to move aside. It names
    ``bridges`` now, and the file is left as it was."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    home.mkdir()
    (home / "bridges").write_text("not a folder")
    (tmp_path / "s.jsonl").touch()
    bridge = BridgeProcess(home, project)
    try:
        answer = bridge.call("initialize", cwd=str(project), sessionFile=str(
            tmp_path / "s.jsonl"), header={**HEADER, "cwd": str(project)},
            entries=[user("a1", None, "hi")], leafId="a1", hasUI=False)["result"]
    finally:
        bridge.close()
    assert answer["persistent"] is False
    assert f"({home / 'bridges'}: " in answer["heldBack"], answer
    assert ".lock" not in answer["heldBack"], answer
    assert (home / "bridges").read_text() == "not a folder"


def test_an_empty_pin_source_is_refused_in_pi_as_a_blank_one_is(tmp_path: Path) -> None:
    """``/context pin --source "" -- x`` was stored with no source while ``--source "  "``
    was refused (as off the branch): both are refused now as an empty ID, nothing
    appended."""
    host = Host()
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize"},
        {"id": 2, "method": "command", "params": {"text": 'pin --source "" -- Use ruff.'}},
        {"id": 3, "method": "command", "params": {"text": 'pin --source " " -- Use ruff.'}},
        {"id": 4, "method": "shutdown"}], host)
    results = {m["id"]: m["result"] for m in out if "result" in m}
    for n in (2, 3):
        assert results[n]["exitCode"] == 2 and results[n]["data"]["code"] == \
            "invalid_argument", results[n]
        assert "source entry ID is empty" in results[n]["text"]
    assert host.entries == []
