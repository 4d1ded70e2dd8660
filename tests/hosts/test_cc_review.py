"""Defects a review of the Claude Code integration reproduced: the installer took a
person's hook for its own, a reinstall after an upgrade left Waymarks' files behind, a
FIFO held the ``Stop`` hook, a busy database held a prompt past Claude Code's hook
timeout, and the warm helper answered with code an upgrade had replaced. Each test failed
before its fix."""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import isolated_python, suite_command
from waymarks.hosts import cc_client, cc_helper, claude_code
from waymarks.hosts import claude_code_install as cc
from waymarks.service.app import Waymarks
from waymarks.spawn import freshness
from waymarks.store.projection import Projection

AUDIT = "/opt/waymarks-audit/log.sh hook claude-code prompt"


def test_a_persons_hook_that_names_waymarks_is_theirs(tmp_path: Path, home: Path) -> None:
    """Any command holding "waymarks" and " hook claude-code " counted as Waymarks' own:
    install replaced the person's audit hook without a word, and uninstall deleted it,
    then the backup that held it."""
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    settings = project / ".claude" / "settings.json"
    wrapper = "/usr/local/bin/waymarks-wrapper --home /x hook claude-code UserPromptSubmit"
    settings.write_text(json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": AUDIT}, {"type": "command", "command": wrapper}]}]}}))
    before = settings.read_bytes()
    cc.install("project", project, tmp_path / "u", home)
    commands = [h["command"] for g in json.loads(settings.read_text())["hooks"][
        "UserPromptSubmit"] for h in g["hooks"]]
    assert commands[:2] == [AUDIT, wrapper] and len(commands) == 3
    cc.uninstall("project", project, tmp_path / "u", home)
    assert settings.read_bytes() == before


@pytest.mark.parametrize("command", [
    "/venv/bin/python -I -S /venv/lib/site-packages/waymarks/hosts/hook_entry.py --home "
    "/h hook claude-code Stop",
    "/venv/bin/waymarks --home '/h o/me' hook claude-code SessionStart",
    "test -f '/v v/waymarks/hosts/hook_entry.py' && /venv/bin/python -I -S "
    "'/v v/waymarks/hosts/hook_entry.py' --home /h hook claude-code UserPromptSubmit",
])
def test_the_shapes_an_install_wrote_are_recognised(command: str) -> None:
    assert cc._ours(command)
    assert not cc._ours(command.replace("hook claude-code", "hook claude-codes"))
    assert not cc._ours("sh -c " + shlex.quote(command))
    if "hook_entry.py" in command:  # another script is no launcher of Waymarks'
        assert not cc._ours(command.replace("hook_entry.py", "other.py"))


def test_a_hook_whose_launcher_is_gone_never_blocks_the_prompt(
        tmp_path: Path, home: Path, project: Path) -> None:
    """The package uninstalled (``pip uninstall waymarks``) with the hooks left in
    Claude Code's settings: Python exits 2 on a script it cannot open, and exit 2 from
    a prompt's hook is Claude Code's "block the prompt": every prompt was erased. The
    command install writes fails with 1 then (a hook error, the prompt goes on)."""
    gone = tmp_path / "site-packages" / "waymarks" / "hosts" / "hook_entry.py"
    for event in ("UserPromptSubmit", "Stop", "PreCompact"):
        command = cc.hook_command(Path(sys.executable), home, event, entry=gone)
        done = subprocess.run(["sh", "-c", command], input=json.dumps({
            "session_id": str(uuid.uuid4()), "cwd": str(project), "prompt": "hi"}),
            capture_output=True, text=True, timeout=60)
        assert done.returncode == 1, (event, done.returncode, done.stderr)
        assert done.stdout == ""
        assert cc._ours(command) and cc.hook_argv(command)[3] == str(gone)  # uninstallable
    real = cc.hook_command(Path(sys.executable), home, "SessionStart")  # still runs
    assert subprocess.run(["sh", "-c", suite_command(real)], input=json.dumps({
        "session_id": str(uuid.uuid4()), "cwd": str(project), "source": "startup"}),
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "WAYMARKS_CC_HELPER": "off"}).returncode == 0  # (none left)
    assert list((home / "sessions").rglob("*.jsonl"))


def test_a_reinstall_after_an_upgrade_leaves_nothing_behind_on_uninstall(
        tmp_path: Path, home: Path) -> None:
    """The first install (another interpreter: before an upgrade) made the files; the
    second backed them up, Waymarks' entries and all, and uninstall then wrote ``{}``
    into each instead of removing them."""
    project = tmp_path / "p"
    project.mkdir()
    cc.install("project", project, tmp_path / "u", home,
               python_path=tmp_path / "old-venv" / "bin" / "python")
    changes = cc.install("project", project, tmp_path / "u", home)
    assert changes  # the hooks moved to this interpreter
    assert not list(project.rglob("*.waymarks-backup"))
    cc.uninstall("project", project, tmp_path / "u", home)
    assert list(project.iterdir()) == []


def _stop_hook(home: Path, project: Path) -> subprocess.CompletedProcess[bytes]:
    payload = {"session_id": str(uuid.uuid4()), "cwd": str(project), "hook_event_name": "Stop",
               "transcript_path": str(project / "t.jsonl")}
    return subprocess.run([*isolated_python(), str(cc.hook_entry()), "--home",
                           str(home), "hook", "claude-code", "Stop"],
                          input=json.dumps(payload).encode(), capture_output=True,
                          timeout=120, env={**os.environ, "WAYMARKS_CC_HELPER": "off"})


def test_a_fifo_in_place_of_the_configuration_never_holds_the_stop_hook(
        tmp_path: Path, project: Path) -> None:
    """The ``Stop`` client opened ``config.toml`` with a plain open: a FIFO there held it
    until Claude Code killed it, after every turn. No writer ever opens the FIFO here:
    before, the hook waited until the 120 s timeout of this test."""
    home = tmp_path / "home"
    home.mkdir()
    os.mkfifo(home / "config.toml")
    done = _stop_hook(home, project)
    assert done.returncode == 0 and done.stdout == b""
    assert cc_client._config_bytes(str(home)) is None
    (home / "config.toml").unlink()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    assert cc_client._config_bytes(str(home)) == b"[evolution]\nlearn = true\n"


def test_the_hook_paths_wait_briefly_for_a_busy_database(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every hook path opened the database with the projection's 30 s wait: a process
    holding it held each prompt past Claude Code's 10 s timeout. The in-process hook and
    the helper's warm apps wait ``HOOK_BUSY_TIMEOUT_MS`` (1 s)."""
    made: list[int] = []
    real = Waymarks.__init__

    def recording(self: Waymarks, *args: Any, **kwargs: Any) -> None:
        real(self, *args, **kwargs)
        made.append(self.busy_timeout_ms)

    monkeypatch.setattr(Waymarks, "__init__", recording)
    sid = str(uuid.uuid4())
    raw = json.dumps({"session_id": sid, "cwd": str(project), "prompt": "what port?",
                      "hook_event_name": "UserPromptSubmit"}).encode()
    claude_code.handle("UserPromptSubmit", claude_code.parse_input("UserPromptSubmit", raw),
                       home)
    apps: dict[tuple[str, str], Any] = {}
    cc_helper._answer("UserPromptSubmit", raw, home, apps, None)
    assert made and set(made) == {claude_code.HOOK_BUSY_TIMEOUT_MS}
    for app in apps.values():
        assert app.projection.db.execute("PRAGMA busy_timeout").fetchone()[0] == 1000
        app.close()


def test_a_short_busy_timeout_gives_up_on_a_held_database(tmp_path: Path) -> None:
    """The wait the projection is given is the one it keeps: a write meeting a database
    another connection holds gets a busy error once that wait is over (with the fixed
    30 s wait, a hook could not give up before Claude Code killed it)."""
    path = tmp_path / "waymarks.db"
    projection = Projection(path, 0, busy_timeout_ms=200)
    assert projection.db.execute("PRAGMA busy_timeout").fetchone()[0] == 200
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"), projection.transaction():
            pass
    finally:
        holder.execute("COMMIT")
        holder.close()
    with projection.transaction():  # free again: the same connection writes
        pass
    projection.close()


def test_a_helper_whose_code_changed_stops_answering(
        home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The helper kept its imported code for as long as hooks came (an upgrade, a ``git
    pull`` of an editable install): redaction fixed on disk, old redaction answering. It
    now answers "protocol" (the client does the hook itself) and exits, so the next
    helper starts on the new code."""
    module = tmp_path / "waymarks_probe_module.py"
    module.write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import waymarks_probe_module  # noqa: F401

    files = freshness.module_files()
    assert str(module) in files and not freshness.changed(files)
    module.write_text("VALUE = 22\n")
    assert freshness.changed(files)
    # (gone from this process: a helper counts a file modified just before it started as
    # changed, and another test's helper here would stop at its first request)
    del sys.modules["waymarks_probe_module"]

    monkeypatch.setattr(cc_helper.LoadedCode, "changed", lambda self: True)
    served = threading.Thread(target=cc_helper.serve, args=(home, 60.0))
    served.start()
    socket = Path(cc_client.socket_path(home))
    for _ in range(2400):
        if socket.exists():
            break
        threading.Event().wait(0.05)
    try:
        assert cc_client._ask(home, "UserPromptSubmit", b"{}") is None
    finally:
        served.join(120)
    assert not served.is_alive() and not socket.exists()


def test_the_helper_reads_no_more_than_a_hook_may_send() -> None:
    """The helper read a request to its end, however large: a client on its socket could
    make it hold any amount. Past a hook's input and its two lines it stops."""
    import socket

    ours, theirs = socket.socketpair()
    sent: list[int] = []

    def flood() -> None:
        chunk = b"x" * 65536
        try:
            for _ in range(200):  # 13 MiB
                theirs.sendall(chunk)
                sent.append(len(chunk))
        except OSError:
            pass
        finally:
            theirs.close()

    writer = threading.Thread(target=flood)
    writer.start()
    with pytest.raises(ValueError):
        cc_helper._receive(ours)
    ours.close()
    writer.join(30)
    assert sum(sent) < 200 * 65536  # it stopped reading: the flood could not finish


def test_a_helper_switched_off_is_not_asked(tmp_path: Path, home: Path) -> None:
    """``WAYMARKS_CC_HELPER=off`` kept new helpers from starting, but a hook still asked
    one already running (the switch is how a person takes the helper out of the path)."""
    project = tmp_path / "p"
    project.mkdir()
    request = json.dumps({"session_id": str(uuid.uuid4()), "cwd": str(project),
                          "hook_event_name": "UserPromptSubmit", "prompt": "hello"})
    done = subprocess.run([sys.executable, "-c", (
        "import sys, json\nfrom waymarks.hosts import cc_client\n"
        "cc_client._ask = lambda *a, **k: sys.exit('asked the helper')\n"
        f"sys.exit(cc_client.run(['UserPromptSubmit'], {str(home)!r}))")],
        input=request.encode(), capture_output=True, timeout=120,
        env={**os.environ, "WAYMARKS_CC_HELPER": "off", "WAYMARKS_HOME": str(home)})
    assert done.returncode == 0, done.stderr.decode()


@pytest.mark.parametrize("old", ["waymarks-cc-helper-v1", "waymarks-cc-helper-v2",
                                 "waymarks-cc-helper-v3"])
def test_a_helper_of_a_release_before_its_own_freshness_check_is_not_answered(
        home: Path, monkeypatch: pytest.MonkeyPatch, old: str) -> None:
    """A helper started by a release before 2026-12-04 never compared its code with the
    disk and spoke ``waymarks-cc-helper-v1``: after an upgrade in place, the new hooks
    reached it and it answered every prompt with the old code (text the new privacy
    policy withholds; rows of an old schema the new code then set aside as damage). The
    hooks speak another protocol now: such a helper answers "protocol", the hook does
    the work itself, and the next helper takes the socket over."""
    # v2: requests did not say whether the hook was a subagent's (two installations on
    # one home learned a subagent's statements); v3: nor which installation sent them (an
    # older installation's helper answered a newer one's hooks)
    monkeypatch.setattr(cc_helper, "PROTOCOL", old)
    served = threading.Thread(target=cc_helper.serve, args=(home, 3.0))
    served.start()
    socket = Path(cc_client.socket_path(home))
    try:
        for _ in range(2400):
            if socket.exists():
                break
            threading.Event().wait(0.05)
        assert socket.exists()
        assert cc_client._ask(home, "ping", b"") is None
        assert cc_client._ask(home, "UserPromptSubmit", b"{}") is None
    finally:
        served.join(120)
    assert not served.is_alive()


def test_the_architecture_names_the_helper_protocol_the_hooks_speak() -> None:
    """docs/architecture.md described protocol v3 after the hooks moved to v4 (a request
    names its installation): the protocol a reader of the docs implements is the code's."""
    doc = (Path(__file__).parents[2] / "docs" / "architecture.md").read_text()
    assert f"**Claude Code helper protocol** (`{cc_client.PROTOCOL}`)" in doc
