"""A session file that cannot be read (its permissions) was passed over as if absent:
`pins` listed nothing (exit 0), and a write started a NEW session, which then hid the
old one for good, its pins included. The newest session's file, or the project's session
folder, that cannot be read is now an error naming it (exit 1), and nothing is written.

Root reads any file, so the denial is stood in for where the file is read."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.inprocess import waymarks as run_waymarks
from waymarks.ledger import discovery
from waymarks.ledger.session_file import SessionFile

_REAL = SessionFile.read_header_line


def _deny(monkeypatch: pytest.MonkeyPatch, *paths: Path) -> None:
    """Reading ``paths`` is denied from now on (root reads anything)."""
    def denied(self: SessionFile) -> bytes | None:
        if self.path in paths:
            raise PermissionError(13, "Permission denied", str(self.path))
        return _REAL(self)

    monkeypatch.setattr(SessionFile, "read_header_line", denied)


def _run(home: Path, project: Path, *args: str) -> tuple[int, str]:
    done = run_waymarks("--home", str(home), "--cwd", str(project), *args, cwd=project)
    return done.returncode, done.stdout + done.stderr


def test_an_unreadable_newest_session_is_an_error_not_a_new_session(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(home, project, "pin", "--", "Pin one.")[0] == 0
    [session] = list((home / "sessions").glob("*/*.jsonl"))
    _deny(monkeypatch, session)
    for args in (("pins",), ("memory", "add", "--", "Ledger test fact.")):
        code, said = _run(home, project, *args)
        assert code == 1, said
        assert f"{session}: cannot read it (Permission denied)" in said
    assert list((home / "sessions").glob("*/*.jsonl")) == [session]  # no new session
    code, said = _run(home, project, "--json", "health")  # the check reports it
    report = json.loads(said)
    assert code == 1 and report["ok"] is False
    assert f"{session}: cannot read it" in report["activeSessionProblem"]
    stray = session.parent / "zz-notes-backup.jsonl"  # not named as a session file is
    stray.write_text("{}\n")
    _deny(monkeypatch, session, stray)
    code, said = _run(home, project, "--json", "health")
    assert str(stray) not in json.loads(said)["activeSessionProblem"]
    monkeypatch.setattr(SessionFile, "read_header_line", _REAL)
    code, said = _run(home, project, "--json", "pins")
    assert code == 0 and [i["text"] for i in json.loads(said)["items"]] == ["Pin one."]


def test_an_unlistable_session_folder_is_an_error(home: Path, project: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(home, project, "pin", "--", "Pin one.")[0] == 0
    folder = discovery.session_dir(home, str(project.resolve()))
    monkeypatch.setattr(discovery.os, "access", lambda path, mode: Path(path) != folder)
    code, said = _run(home, project, "memory", "add", "--", "Ledger test fact.")
    assert code == 1 and "cannot list this project's sessions" in said, said


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_health_says_an_indexed_sibling_cannot_be_read(home: Path, project: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A sibling session that cannot be read any more was reported as "it has no session
    header now", which sends a person looking for the wrong damage."""
    import time

    assert _run(home, project, "trust", ".")[0] == 0
    assert _run(home, project, "memory", "add", "--scope", "project", "--",
                "The build uses make.")[0] == 0
    [sibling] = list((home / "sessions").glob("*/*.jsonl"))
    time.sleep(1.1)
    assert _run(home, project, "session", "new")[0] == 0
    assert _run(home, project, "memory")[0] == 0  # the sibling is indexed as a source
    _deny(monkeypatch, sibling)
    code, said = _run(home, project, "--json", "health")
    problems = json.loads(said)["problems"]
    assert code == 1
    assert any(str(sibling) in p and "it cannot be read (Permission denied)" in p
               for p in problems), problems


@pytest.mark.parametrize("kind", ["dangling link", "FIFO", "directory", "link loop"])
def test_a_newest_session_that_is_no_regular_file_is_an_error(
        home: Path, project: Path, tmp_path: Path, kind: str) -> None:
    """A session file symlinked from elsewhere whose target went away (or a FIFO or a
    directory under its name) was skipped in silence: `pins` said no pins, and a write
    started a new session that hid the old one, its pins too, once the target was back."""
    import os

    assert _run(home, project, "pin", "--", "Pin one.")[0] == 0
    [session] = list((home / "sessions").glob("*/*.jsonl"))
    kept = tmp_path / "kept.jsonl"
    os.replace(session, kept)
    if kind == "dangling link":
        session.symlink_to(kept)
        kept.rename(tmp_path / "away.jsonl")  # the target unavailable (a disk unmounted)
    elif kind == "FIFO":
        os.mkfifo(session)
    elif kind == "link loop":  # a link to itself (a hand-made link gone wrong)
        session.symlink_to(session.name)
    else:
        session.mkdir()
    for args in (("pins",), ("pin", "--", "Pin two.")):
        code, said = _run(home, project, *args)
        assert code == 1, said
        assert f"{session}: cannot read it" in said and "Nothing was written" in said
    assert list((home / "sessions").glob("*/*.jsonl")) == [session]  # no new session
    if kind == "FIFO":  # was "no such session file", though the name is there
        said = _run(home, project, "rebuild-index")[1]
        assert f"{session}: a FIFO (named pipe), not a session file" in said
    if kind == "link loop":  # so was a link that loops, which the fix is to mend
        said = _run(home, project, "rebuild-index")[1]
        assert f"{session}: a symbolic link that loops, not a session file" in said, said
    if kind == "dangling link":
        (tmp_path / "away.jsonl").rename(kept)  # the target is back
    else:
        (session.rmdir if kind == "directory" else session.unlink)()
        os.replace(kept, session)
    code, said = _run(home, project, "--json", "pins")
    assert code == 0 and [i["text"] for i in json.loads(said)["items"]] == ["Pin one."]


#: root enters any folder: a real denial needs a process without those capabilities
#: (``setpriv``, util-linux); another user enters neither a folder under /root
_SHUT_OUT: tuple[str, ...] = (
    "setpriv", "--bounding-set", "-dac_override,-dac_read_search",
    "--inh-caps", "-dac_override,-dac_read_search") if os.geteuid() == 0 else ()


def _denied(home: Path, project: Path, *args: str,
            input: str | None = None) -> subprocess.CompletedProcess[str]:
    """``waymarks ARGS`` in a process that folders of mode 000 keep out, as a user's."""
    if _SHUT_OUT and shutil.which("setpriv") is None:
        pytest.skip("running as root, and no setpriv to run a process root's rights skip")
    return subprocess.run([*_SHUT_OUT, sys.executable, "-m", "waymarks.cli.main", *args],
                          cwd=project, capture_output=True, text=True, timeout=120,
                          input=input,
                          env={**os.environ, "WAYMARKS_HOME": str(home),
                               "WAYMARKS_CLI_HELPER": "off", "WAYMARKS_SEMANTIC": "off",
                               # no Claude Code helper left running after the test
                               "WAYMARKS_CC_HELPER": "off"})


@pytest.mark.slow  # processes of their own
def test_a_shut_sessions_folder_is_named_and_health_reports_it(home: Path,
                                                               project: Path) -> None:
    """With ``sessions/`` at mode 000 the errors named the project's folder inside it
    (whose mode was fine), ``health`` ended in that I/O error (exit 1, no report), and
    the session file behind it was "missing", to be dropped by a rebuild."""
    assert _run(home, project, "memory", "add", "--", "The port is 5433.")[0] == 0
    sessions = home / "sessions"
    sessions.chmod(0)
    try:
        health = _denied(home, project, "--json", "health")
        listed = _denied(home, project, "session", "list")
    finally:
        sessions.chmod(0o700)
    assert "Traceback" not in health.stderr, health.stderr
    report = json.loads(health.stdout)
    assert health.returncode == 1 and report["ok"] is False, health.stderr
    assert any(p.startswith(f"{sessions}: cannot list this project's sessions")
               for p in [report["activeSessionProblem"], *report["problems"]]), report
    assert not any("missing" in p or "rebuild-index" in p for p in report["problems"]), report
    assert [s["exists"] for s in report["sources"]] == [True]
    assert listed.returncode == 1 and f"Permission denied ({sessions})" in listed.stderr, \
        listed.stderr


@pytest.mark.slow  # a process of its own
def test_a_shut_home_is_named(home: Path, project: Path) -> None:
    """A home at mode 000 was named as its ``waymarks.db`` (or ``config.toml``), whose own
    mode was fine."""
    assert _run(home, project, "memory", "add", "--", "The port is 5433.")[0] == 0
    home.chmod(0)
    try:
        done = _denied(home, project, "status")
    finally:
        home.chmod(0o700)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"; the folder {home} cannot be entered by this user)" in done.stderr, done.stderr


@pytest.mark.slow  # processes of their own
def test_a_prompt_hook_says_a_shut_sessions_folder(home: Path, project: Path) -> None:
    """The prompt hook met ``sessions/`` at mode 000 and exited with nothing, the prompt
    unrecorded and every pin gone from the model's context, only the log saying why."""
    sid = "3f1d2c4e-1111-4222-8333-444455556666"
    body = {"session_id": sid, "cwd": str(project)}
    hook = ("--home", str(home), "hook", "claude-code")
    start = _denied(home, project, *hook, "SessionStart",
                    input=json.dumps({**body, "hook_event_name": "SessionStart"}))
    assert start.returncode == 0, start.stderr
    sessions = home / "sessions"
    sessions.chmod(0)
    try:
        done = _denied(home, project, *hook, "UserPromptSubmit", input=json.dumps(
            {**body, "hook_event_name": "UserPromptSubmit", "prompt": "tag it"}))
    finally:
        sessions.chmod(0o700)
    assert done.returncode == 0, done.stderr
    message = json.loads(done.stdout or "{}").get("systemMessage", "")
    assert message.startswith("Waymarks added no context and did not record this prompt: "
                              "Permission denied (") and \
        f"the folder {sessions} cannot be entered by this user" in message, done.stdout
