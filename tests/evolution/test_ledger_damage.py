"""A damaged evolution ledger (empty, bytes before its header, not a regular file) is
canonical: nothing moves or rewrites it. Plans and recall go on without learned memory and
say why in one line; the learning commands refuse with that line (``learn status`` reports
it, with the fix: it is what a person runs to find out); ``health`` names it; the
Claude Code prompt hook still injects the pins. Real files, real SQLite, the real CLI and
the real hook entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from waymarks.service.app import Waymarks
from waymarks.service.learning import ledger_path

WAYMARKS = Path(sys.executable).parent / "waymarks"
PIN = "Always run the linters before committing"


def _damage(home: Path, how: str) -> bytes | None:
    path = ledger_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    if how == "empty":
        path.write_bytes(b"")
    elif how == "garbage_header":
        path.write_bytes(os.urandom(64).replace(b"\n", b"x") + b"\n" + b'{"type":"custom"}\n')
    elif how == "directory":
        path.mkdir()
        return None
    elif how == "fifo":
        os.mkfifo(path)
        return None
    return path.read_bytes()


@pytest.fixture
def pinned(home: Path, project: Path) -> None:
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        app.pin(PIN, scope="project")


@pytest.mark.parametrize("how", ["empty", "garbage_header", "directory", "fifo"])
def test_plan_and_recall_go_on_without_learned_memory(
        how: str, home: Path, project: Path, pinned: None, cli: Callable[..., dict]) -> None:
    before = _damage(home, how)
    (home / "config.toml").write_text("[evolution]\nlearn = true\n", encoding="utf-8")
    plan = cli("plan", "--prompt", "how do we lint?")
    assert [m["kind"] for m in plan["messages"]] == ["pins", "request"]
    assert PIN in plan["messages"][0]["content"]
    [note] = plan["manifest"]["notes"]
    assert str(ledger_path(home)) in note and "move it aside" in note
    recalled = cli("recall", "lint")
    assert recalled["notes"] == [note]
    # a learning command refuses with the same one line (exit 1: the home, not the request)
    for args in (["learn", "list"], ["evolve"], ["evolution", "status"]):
        refused = cli(*args, expect=1)
        assert (refused["code"], refused["message"]) == ("bad_state", note)
    # except `learn status`: what a person runs to find out what is wrong (and the fix)
    status = cli("learn", "status")
    assert status["learning"] is True and status["ledgerProblem"] == note
    assert f"mv {ledger_path(home)} {ledger_path(home)}.aside" in note
    rebuilt = cli("rebuild-index")
    assert rebuilt["unreadable"] == [note] and rebuilt["mutations"] == 1
    report = cli("health", expect=1)
    assert report["ok"] is False and note in report["problems"]
    # canonical: never moved, deleted or rewritten
    path = ledger_path(home)
    assert os.path.lexists(path)
    if before is not None:
        assert path.read_bytes() == before


def test_learn_status_names_the_damage_and_the_fix_in_text(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from waymarks.cli.main import main

    _damage(home, "garbage_header")
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    assert main(["learn", "status"]) == 0
    out = capsys.readouterr().out
    assert "learning: off" in out
    assert f"problem: {ledger_path(home)}: the learned ledger cannot be read" in out
    assert f"mv {ledger_path(home)} {ledger_path(home)}.aside" in out


def test_health_lists_what_of_the_learned_ledger_was_not_used(
        home: Path, project: Path, cli: Callable[..., dict],
        capsys: pytest.CaptureFixture[str]) -> None:
    """Garbage lines and a record this version does not understand are counted and
    listed, by the session files' rule (not problems: nothing acknowledged was lost), and
    a half-written last line is a problem, as the active session's is; the learned memory
    around them is still read."""
    from waymarks.cli.main import main
    from waymarks.service.evolution import Evolution

    with Evolution(home) as evo:
        evo.capture("/p", "statement", "Remember: we deploy on Fridays.", session="s",
                    key="k1")
    path = ledger_path(home)
    unknown = {"type": "custom", "id": "feedf00d", "parentId": None,
               "timestamp": "2026-01-01T00:00:00.000Z",
               "customType": "waymarks-evolution-v1", "data": {"v": 99}}
    path.write_bytes(path.read_bytes() + b"\x00garbage\n" + json.dumps(unknown).encode()
                     + b"\n" + b'{"type":"cus')
    report = cli("health", expect=1)
    ledger = report["learnedLedger"]
    assert ledger["path"] == str(path) and ledger["partialTailBytes"] == 12
    assert ledger["anomalyCounts"] == {"skipped": 1, "unknown": 1}
    assert [(a["line"], a["kind"]) for a in ledger["anomalies"]] == [(3, "skipped"),
                                                                      (None, "unknown")]
    assert ledger["anomalies"][1]["entryId"] == "feedf00d"
    assert report["ok"] is False and [p for p in report["problems"] if str(path) in p] == [
        f"learned ledger {path}: a half-written last line (12 bytes)"]
    assert main(["health"]) == 1
    out = capsys.readouterr().out
    assert f"Learned ledger {path}: lines skipped: 1, entries not understood: 1" in out
    assert "  line 3 (skipped): not a valid entry" in out
    assert "  entry feedf00d (unknown)" in out and "half-written last line: 12 bytes" in out
    assert cli("learn", "status")["counts"]["sources_pending"] == 1  # the rest is read


def test_health_of_a_clean_learned_ledger_lists_nothing(
        home: Path, project: Path, cli: Callable[..., dict]) -> None:
    from waymarks.service.evolution import Evolution

    assert cli("health")["learnedLedger"] is None  # nothing learned: no ledger
    with Evolution(home) as evo:
        evo.capture("/p", "statement", "Remember: we deploy on Fridays.", session="s",
                    key="k1")
    report = cli("health")
    ledger = report["learnedLedger"]
    assert report["ok"] is True and ledger["anomalyCounts"] == {"skipped": 0, "unknown": 0}
    assert (ledger["anomalies"], ledger["partialTailBytes"]) == ([], 0)


def test_the_prompt_hook_still_injects_the_pins(home: Path, project: Path,
                                                pinned: None) -> None:
    _damage(home, "empty")
    sid = str(uuid.uuid4())
    payload = {"session_id": sid, "cwd": str(project), "hook_event_name": "UserPromptSubmit",
               "transcript_path": str(project / "t.jsonl"), "prompt": "how do we lint?"}
    env = {**os.environ, "WAYMARKS_CC_HELPER": "off"}
    done = subprocess.run([str(WAYMARKS), "--home", str(home), "hook", "claude-code",
                           "UserPromptSubmit"], input=json.dumps(payload), env=env, cwd=project,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert PIN in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert ledger_path(home).read_bytes() == b""


def test_the_hosts_say_why_learned_memory_is_left_out(home: Path, project: Path,
                                                     pinned: None) -> None:
    """docs/learning.md: with learning on and the learned ledger unreadable, plans and the Claude
    Code hook leave learned memory out "with a one-line note naming the file and the mv".
    The command line's plan had it; the hook (and Pi's plan) passed on a plan's note only
    when it began "learned memory left out of this prompt", so the person using them
    never heard that learning had stopped, nor how to fix it."""
    import io

    from waymarks.hosts.pi_bridge import Bridge

    _damage(home, "empty")
    (home / "config.toml").write_text("[evolution]\nlearn = true\n", encoding="utf-8")
    payload = {"session_id": str(uuid.uuid4()), "cwd": str(project),
               "hook_event_name": "UserPromptSubmit",
               "transcript_path": str(project / "t.jsonl"), "prompt": "how do we lint?"}
    env = {**os.environ, "WAYMARKS_CC_HELPER": "off"}
    done = subprocess.run([str(WAYMARKS), "--home", str(home), "hook", "claude-code",
                           "UserPromptSubmit"], input=json.dumps(payload), env=env, cwd=project,
                          capture_output=True, text=True, timeout=60)
    answer = json.loads(done.stdout)
    assert str(ledger_path(home)) in answer["systemMessage"]
    assert f"mv {ledger_path(home)}" in answer["systemMessage"]
    assert PIN in answer["hookSpecificOutput"]["additionalContext"]
    requests = [{"id": 1, "method": "initialize", "params": {"cwd": str(project)}},
                {"id": 2, "method": "plan", "params": {"prompt": "how do we lint?"}},
                {"id": 3, "method": "shutdown"}]
    stdout = io.StringIO()
    Bridge(home, io.StringIO("".join(json.dumps(r) + "\n" for r in requests)),
           stdout).serve()
    planned = json.loads(stdout.getvalue().splitlines()[1])["result"]
    assert f"mv {ledger_path(home)}" in planned["learnedLeftOut"]
