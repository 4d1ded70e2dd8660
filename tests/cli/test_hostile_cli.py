"""Defects a hostile-user test found, through a real ``waymarks`` subprocess: a refusal
exits 2 with one JSON document under ``--json`` and changes nothing.

1. ``export -o`` replaced a FIFO, a device node or a symbolic link with a regular file;
2. ``memory edit`` with an editor that saves non-UTF-8 bytes escaped as a traceback;
3. ``--home`` naming a regular file was taken as an empty home;
4. an unknown ``--session`` exited 1 (an environment problem) instead of 2;
5. ``--json ui`` printed the text for people.
"""

from __future__ import annotations

import json
import os
import select
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_everyday import _on_a_terminal
from tests.inprocess import waymarks as run_waymarks


def waymarks(home: Path, project: Path, *args: str, env: dict[str, str] | None = None,
             expect: int = 0) -> dict:  # type: ignore[type-arg]
    done = run_waymarks("--home", str(home), "--cwd", str(project), "--json", *args,
                        env=env, cwd=project)
    assert done.returncode == expect, (args, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, "--json prints exactly one document"
    parsed: dict = json.loads(lines[0])  # type: ignore[type-arg]
    return parsed


def test_export_never_replaces_what_is_not_a_regular_file(home: Path, project: Path,
                                                          tmp_path: Path) -> None:
    waymarks(home, project, "pin", "--", "Run the tests first")
    fifo, link, real = tmp_path / "fifo", tmp_path / "link", tmp_path / "real.jsonl"
    os.mkfifo(fifo)
    real.write_text("kept\n")
    link.symlink_to(real)
    for target, kind in ((fifo, "a FIFO"), (link, "a symbolic link")):
        refused = waymarks(home, project, "export", "-o", str(target), expect=2)
        assert refused["code"] == "invalid_argument" and str(target) in refused["message"]
        assert kind in refused["message"] and "nothing was written" in refused["message"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and link.is_symlink()
    assert real.read_text() == "kept\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    written = waymarks(home, project, "export", "-o", str(real))  # a regular file: replaced
    assert written["count"] == 1 and "Run the tests first" in real.read_text()


def test_export_to_a_device_node_is_refused(home: Path, project: Path, tmp_path: Path) -> None:
    # a node of its own, never /dev/null: run against a build without the fix (a baseline),
    # this test would otherwise destroy the machine's /dev/null
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError):
        pytest.skip("cannot make a device node here (needs CAP_MKNOD)")
    refused = waymarks(home, project, "export", "-o", str(device), expect=2)
    assert "a character device" in refused["message"]
    assert device.is_char_device()


def test_export_never_writes_over_waymarks_own_files(home: Path, project: Path,
                                                     tmp_path: Path) -> None:
    """``-o`` naming the database, a session ledger or the settings replaced it with the
    export (atomically, and for good): the home and Pi's session roots are refused."""
    roots = tmp_path / "pi-sessions"
    (roots / "--p--").mkdir(parents=True)
    pi_ledger = roots / "--p--" / "2026-01-01_s.jsonl"
    pi_ledger.write_text("kept\n")
    waymarks(home, project, "pin", "--", "Run the tests first")
    (home / "config.toml").write_text(f'[memory]\nsessionRoots = ["{roots}"]\n')
    database = home / "waymarks.db"
    ledger = next((home / "sessions").rglob("*.jsonl"))
    kept = {path: path.read_bytes() for path in (database, ledger, home / "config.toml")}
    for target in (database, ledger, home / "config.toml", home / "new.jsonl", pi_ledger,
                   project / ".." / home.name / "waymarks.db"):
        refused = waymarks(home, project, "export", "-o", str(target), expect=2)
        assert refused["code"] == "invalid_argument", target
        assert "nothing was written" in refused["message"]
    assert {path: path.read_bytes() for path in kept} == kept
    assert pi_ledger.read_text() == "kept\n" and not (home / "new.jsonl").exists()
    beside = home.parent / "export.jsonl"  # next to the home, not in it: written
    assert waymarks(home, project, "export", "-o", str(beside))["count"] == 1


def test_export_never_writes_over_the_projects_waymarks_folder(home: Path, project: Path
                                                               ) -> None:
    """``-o .waymarks/team/<me>.jsonl`` replaced the person's team ledger with the export
    (its entries not yet committed lost for good; every clone then read the file as
    tampered and withdrew the contributor's items), and ``-o .waymarks/config.toml`` the
    project's settings: the project's ``.waymarks`` folder is Waymarks' own, as the home is."""
    team = project / ".waymarks" / "team"
    team.mkdir(parents=True)
    ledger, config = team / "alice.jsonl", project / ".waymarks" / "config.toml"
    ledger.write_text('{"format": "waymarks-team-v1"}\n')
    config.write_text("[memory]\n")
    waymarks(home, project, "pin", "--", "Run the tests first")
    for target in (ledger, config, team / "new.jsonl", project / "sub" / ".." / ".waymarks"
                   / "team" / "alice.jsonl"):
        refused = waymarks(home, project, "export", "-o", str(target), expect=2)
        assert refused["code"] == "invalid_argument", target
        assert f"inside {project / '.waymarks'}" in refused["message"]
        assert "nothing was written" in refused["message"]
    assert ledger.read_text() == '{"format": "waymarks-team-v1"}\n'
    assert config.read_text() == "[memory]\n" and sorted(p.name for p in team.iterdir()) == [
        "alice.jsonl"]
    assert waymarks(home, project, "export", "-o", str(project / "export.jsonl"))["count"] == 1


def test_export_dash_is_standard_output(home: Path, project: Path) -> None:
    waymarks(home, project, "pin", "--", "Run the tests first")
    shown = waymarks(home, project, "export", "-o", "-")
    assert [i["text"] for i in shown["items"]] == ["Run the tests first"]
    assert not (project / "-").exists()  # (the subprocess runs in the project)


def test_memory_edit_refuses_text_that_is_not_utf8(home: Path, project: Path,
                                                   tmp_path: Path) -> None:
    claim = waymarks(home, project, "memory", "add", "--", "The port is 5433")
    editor = tmp_path / "editor.py"
    editor.write_text("import sys\nopen(sys.argv[1], 'wb').write(b'Port \\xff\\xfe 6000\\n')\n")
    before = waymarks(home, project, "memory")["items"]
    env = {**os.environ, "WAYMARKS_CC_HELPER": "off", "EDITOR": f"{sys.executable} {editor}",
           "VISUAL": ""}
    shown = _on_a_terminal(["--home", str(home), "--json", "memory", "edit", claim["id"]],
                           env, project)  # an editor opens only for a person at a terminal
    refused = json.loads(next(line for line in shown.splitlines() if line.startswith("{")))
    assert refused["code"] == "invalid_argument" and "UTF-8" in refused["message"]
    assert waymarks(home, project, "memory")["items"] == before


@pytest.mark.parametrize("command", [["pins"], ["status"], ["health"]])
def test_a_home_that_is_a_file_is_refused(project: Path, tmp_path: Path,
                                          command: list[str]) -> None:
    home = tmp_path / "home-file"
    home.write_text("not a home\n")
    refused = waymarks(home, project, *command, expect=2)
    assert refused["code"] == "invalid_argument" and "not a directory" in refused["message"]
    assert str(home) in refused["message"]
    assert home.read_text() == "not a home\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home-file", "project"]


def test_an_unknown_session_is_a_bad_argument(home: Path, project: Path) -> None:
    waymarks(home, project, "pin", "--", "Run the tests first")
    for ref in ("nonexist", "/no/such/session.jsonl"):
        refused = waymarks(home, project, "--session", ref, "pins", expect=2)
        assert refused["code"] == "bad_session" and ref in refused["message"]


@pytest.mark.slow
def test_json_ui_announces_itself_as_one_json_object(home: Path, project: Path) -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "--cwd", str(project),
         "--json", "ui", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, "WAYMARKS_CC_HELPER": "off"})
    try:
        assert server.stdout is not None
        ready, _, _ = select.select([server.stdout], [], [], 120)
        assert ready, "the inspector announced nothing"
        announced = json.loads(server.stdout.readline())
        assert announced["outcome"] == "serving" and announced["host"] == "127.0.0.1"
        assert isinstance(announced["port"], int) and announced["port"] > 0
        assert announced["url"].startswith(f"http://127.0.0.1:{announced['port']}/")
        assert "token=" in announced["url"]
        assert announced["project"] == str(project)
    finally:
        server.terminate()  # (a SIGINT before uvicorn installs its handler is a traceback)
        rest, _errors = server.communicate(timeout=60)
    assert rest.strip() == "", "nothing else on standard output"


#: what the servers of the test below answer once they serve (the bridge: an unknown method)
_FIRST_REQUEST = {
    "bridge": {"id": 1, "method": "none"},
    "mcp": {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}}


@pytest.mark.slow
@pytest.mark.parametrize("command", [["bridge"], ["mcp"], ["ui", "--port", "0"]])
def test_ctrl_c_writes_nothing_into_a_protocol_stream(home: Path, project: Path,
                                                      command: list[str]) -> None:
    """A README audit: with ``--json``, Ctrl-C wrote an ``aborted`` document onto the
    standard output of ``bridge``, ``mcp`` and ``ui``: their protocol stream (after the
    inspector's one announced line). It is said on standard error now."""
    import signal
    import urllib.request

    server = subprocess.Popen(
        [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "--cwd", str(project),
         "--json", *command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env={**os.environ, "WAYMARKS_CC_HELPER": "off"})
    try:
        assert server.stdout is not None and server.stdin is not None
        if command[0] != "ui":  # a request answered: serving, its handlers installed (a
            # fixed 1.5 s was too short for the MCP server on a loaded machine: the signal
            # came before it served, "interrupted" where "stopped (Ctrl-C)" was expected)
            server.stdin.write(json.dumps(_FIRST_REQUEST[command[0]]) + "\n")
            server.stdin.flush()
        ready, _, _ = select.select([server.stdout], [], [], 120)
        assert ready
        said = json.loads(server.stdout.readline())
        if command[0] == "ui":  # listening, then answering: its server runs
            assert said["outcome"] == "serving"
            urllib.request.urlopen(said["url"], timeout=120).close()
        else:
            assert said["id"] == 1, said
        server.send_signal(signal.SIGINT)
        rest, errors = server.communicate(timeout=60)
    finally:
        server.kill()
    assert server.returncode == 130, errors[-500:]
    assert "aborted" not in rest  # said on standard error: the server stopped
    assert ("interrupted" if command[0] == "bridge" else "stopped (Ctrl-C)") in errors, errors


def test_health_refuses_an_unknown_session_as_every_command_does(
        home: Path, project: Path) -> None:
    """A README audit: `health --session nosuch` reported it as a problem and exited 0;
    docs/cli.md says an unknown `--session` is a bad argument (exit 2, `bad_session`)."""
    waymarks(home, project, "pin", "--", "Run the tests first")
    refused = waymarks(home, project, "--session", "nosuch", "health", expect=2)
    assert refused["code"] == "bad_session" and "nosuch" in refused["message"]


def _not_utf8_project(tmp_path: Path) -> Path:
    """A project directory whose name is not UTF-8 (as Python names it: ``\\udcff``)."""
    odd = Path(os.fsdecode(bytes(tmp_path) + b"/odd\xffdir"))
    odd.mkdir()
    return odd


@pytest.mark.parametrize("command", [["pins"], ["memory", "list"], ["status"],
                                     ["recall", "port"], ["pin", "--", "Run ruff"]])
def test_a_project_directory_that_is_not_utf8_is_refused_by_every_command(
        home: Path, project: Path, tmp_path: Path, command: list[str]) -> None:
    """Reads run from such a directory passed its name to SQLite and ended in a traceback
    (``--json`` printed nothing); writes were refused. Every command now refuses it alike,
    with one JSON document and nothing made."""
    waymarks(home, project, "pin", "--", "The dev port is 8080")
    before = sorted(p.relative_to(home) for p in home.rglob("*"))
    odd = _not_utf8_project(tmp_path)
    done = run_waymarks("--home", str(home), "--json", *command,
                        env={"WAYMARKS_CLI_HELPER": "off"}, cwd=odd)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    refused = json.loads(done.stdout)
    assert refused["code"] == "invalid_argument"
    assert "odd\\xffdir is not a UTF-8 path" in refused["message"]
    assert sorted(p.relative_to(home) for p in home.rglob("*")) == before
    link = tmp_path / "nice-name"  # a UTF-8 name that leads there: the same project
    link.symlink_to(odd)
    done = run_waymarks("--home", str(home), "--cwd", str(link), "--json", *command,
                        cwd=project)
    assert done.returncode == 2 and "not a UTF-8 path" in json.loads(done.stdout)["message"]


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_the_mcp_server_started_in_a_directory_that_is_not_utf8_says_why(
        home: Path, tmp_path: Path) -> None:
    """It started, then every tool call failed on the directory's name: it refuses to
    start instead, and says why on standard error (its standard output is the protocol)."""
    odd = _not_utf8_project(tmp_path)
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "mcp"], cwd=odd, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "WAYMARKS_SEMANTIC": "off"})
    assert done.returncode == 2 and done.stdout == ""
    assert "odd\\xffdir is not a UTF-8 path" in done.stderr and "Traceback" not in done.stderr
