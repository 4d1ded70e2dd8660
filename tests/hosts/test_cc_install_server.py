"""``claude-code install`` run again (docs/hosts.md asks for it after an upgrade) keeps what the
person added to Waymarks' own MCP server entry: only its command is Waymarks' to decide."""

from __future__ import annotations

import json
from pathlib import Path

from tests.hosts.test_cc_install_files import cli


def test_a_reinstall_keeps_the_persons_env_and_timeout_on_the_server_entry(
        tmp_path: Path, home: Path, project: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    assert cli(home, project, user, "install").returncode == 0
    mcp = project / ".mcp.json"
    data = json.loads(mcp.read_text())
    data["mcpServers"]["waymarks"]["env"] = {"WAYMARKS_SEMANTIC": "0"}
    data["mcpServers"]["waymarks"]["timeout"] = 60000
    mcp.write_text(json.dumps(data, indent=2) + "\n")
    edited = mcp.read_bytes()

    again = cli(home, project, user, "install")
    assert again.returncode == 0, again.stderr
    assert mcp.read_bytes() == edited  # nothing of Waymarks changed: nothing written
    assert str(mcp) not in again.stdout

    other = tmp_path / "other-home"  # a re-install that does change the command
    moved = cli(other, project, user, "install")
    assert moved.returncode == 0, moved.stderr
    server = json.loads(mcp.read_text())["mcpServers"]["waymarks"]
    assert server["args"][:2] == ["--home", str(other)]
    assert server["env"] == {"WAYMARKS_SEMANTIC": "0"} and server["timeout"] == 60000
    assert list(server) == ["type", "command", "args", "env", "timeout"]


def test_uninstall_names_the_backup_it_keeps_of_a_file_removed_by_hand(
        tmp_path: Path, home: Path, project: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "opus"}\n')
    assert cli(home, project, user, "install").returncode == 0
    settings.unlink()  # the person took the hooks out by removing the file

    done = cli(home, project, user, "uninstall")
    assert done.returncode == 0, done.stderr
    backup = settings.with_name("settings.json.waymarks-backup")
    assert backup.read_text() == '{"model": "opus"}\n'  # theirs: kept
    assert f"{settings}: kept settings.json.waymarks-backup" in done.stdout  # and named
    assert not (project / ".mcp.json").exists()
