"""One Claude Code session, one ledger.

Hooks of one session started together (6 ``UserPromptSubmit`` at once in a new home) each
looked for the session's ledger, found none and made one named by its own time: 2 to 6
files for one session ID. The hooks then used the first by name, the CLI the newest, so a
pin the CLI reported committed to the session was never planned for it; ``--session <id>``
said "ambiguous … type more of it", and ``health`` said OK. The lookup and the creation
now hold the project's ``.create.lock``, as a project's first session does; ``health``
names a session ID with several files, and so does ``--session``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CountingIds
from waymarks.hosts import claude_code
from waymarks.ledger import discovery
from waymarks.ledger.discovery import ledger_of, session_dir, session_file_name
from waymarks.ledger.session_file import SessionFile
from waymarks.service import sessions_api
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import ServiceError

WAYMARKS = Path(sys.executable).parent / "waymarks"


def _prompt(sid: str, project: Path, text: str) -> dict[str, object]:
    return {"session_id": sid, "cwd": str(project), "hook_event_name": "UserPromptSubmit",
            "prompt": text}


def test_a_ledger_made_after_the_lookup_is_used_not_doubled(
        make_app: Callable[..., Waymarks], home: Path, project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The other hook makes the session's ledger between this one's lookup and its
    creation: this one uses that ledger."""
    sid = str(uuid.uuid4())
    other = make_app(ids=CountingIds(1))
    looked: list[str] = []

    def lookup(found: Callable[..., Path | None]) -> None:
        for module in (discovery, sessions_api):  # wherever the hook looks it up
            monkeypatch.setattr(module, "ledger_of", found, raising=False)

    def not_yet(home_: Path, session_id: str, cwd: str | None = None) -> Path | None:
        if not looked:  # the other hook runs right after this one looked
            looked.append(session_id)
            lookup(ledger_of)
            claude_code.handle("UserPromptSubmit", _prompt(sid, project, "first"), home,
                               other)
            lookup(not_yet)
            return None
        return ledger_of(home_, session_id, cwd)

    lookup(not_yet)
    here = make_app(ids=CountingIds(2))
    claude_code.handle("UserPromptSubmit", _prompt(sid, project, "second"), home, here)
    assert looked == [sid]
    files = list(session_dir(home, str(project)).glob(f"*_{sid}.jsonl"))
    assert len(files) == 1
    texts = [json.loads(line).get("message", {}).get("content", [{}])[0].get("text")
             for line in files[0].read_text().splitlines()[1:]]
    assert texts == ["first", "second"]


@pytest.mark.slow
def test_six_hooks_at_once_make_one_ledger_the_cli_shares(tmp_path: Path) -> None:
    home, project = tmp_path / "wm", tmp_path / "p"
    project.mkdir()
    sid = str(uuid.uuid4())
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "WAYMARKS_HOME": str(home),
           "PYTHONDONTWRITEBYTECODE": "1", "WAYMARKS_CC_HELPER": "off",
           "PYTHONPATH": os.environ.get("PYTHONPATH", "")}  # the code under test
    runs = [subprocess.Popen([str(WAYMARKS), "hook", "claude-code", "UserPromptSubmit"],
                             cwd=project, env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL) for _ in range(6)]
    for number, run in enumerate(runs):
        assert run.stdin is not None
        run.stdin.write(json.dumps(_prompt(sid, project, f"prompt {number}")).encode())
        run.stdin.close()
    for run in runs:
        assert run.wait(timeout=120) == 0
    [ledger] = list((home / "sessions").rglob(f"*_{sid}.jsonl"))
    prompts = [line for line in ledger.read_text().splitlines() if '"role":"user"' in line]
    assert len(prompts) == 6
    subprocess.run([str(WAYMARKS), "--session", sid, "pin", "--", "Always run ruff first"],
                   cwd=project, env=env, check=True, capture_output=True)
    done = subprocess.run([str(WAYMARKS), "hook", "claude-code", "UserPromptSubmit"],
                          cwd=project, env=env, capture_output=True, check=True,
                          input=json.dumps(_prompt(sid, project, "how do I commit")).encode())
    assert "Always run ruff first" in json.loads(done.stdout)["hookSpecificOutput"][
        "additionalContext"]


def _two_ledgers(app: Waymarks, sid: str) -> list[Path]:
    """Two files for one session ID, as the race left them."""
    directory = session_dir(app.home, app.cwd)
    directory.mkdir(parents=True)
    paths = [directory / session_file_name(f"2026-12-05T10:00:0{n}.000Z", sid)
             for n in (1, 2)]
    for path in paths:
        SessionFile.create(path, sid, "2026-12-05T10:00:00.000Z", app.cwd)
    return paths


def test_health_names_a_session_id_with_two_ledgers(
        make_app: Callable[..., Waymarks]) -> None:
    app = make_app()
    sid = str(uuid.uuid4())
    paths = _two_ledgers(app, sid)
    report = app.health()
    assert not report["ok"]
    [problem] = [p for p in report["problems"] if sid in p]
    assert "2 ledger files" in problem and all(p.name in problem for p in paths)


def test_the_full_id_of_a_session_with_two_ledgers_says_so(
        make_app: Callable[..., Waymarks], home: Path, project: Path) -> None:
    paths = _two_ledgers(make_app(), sid := str(uuid.uuid4()))
    for given in (sid, sid[:8]):
        with pytest.raises(ServiceError) as raised, \
                Waymarks(home, cwd=str(project), session=given) as app:
            app.current_session()
        said = str(raised.value)
        assert f"session {sid} has 2 ledger files" in said and "type more" not in said
        assert all(str(p) in said for p in paths)
    assert os.path.exists(paths[0]) and os.path.exists(paths[1])
