"""Claude Code runs no hook while its merged settings say `"disableAllHooks": true` (user,
project or local settings; the last of them that says it decides): install wrote the hooks
and said "Restart Claude Code to load the hooks", which then never ran, nor said why."""

from __future__ import annotations

import json
from pathlib import Path

from tests.inprocess import waymarks


def _install(tmp_path: Path, *args: str) -> dict[str, object]:
    env = {"HOME": str(tmp_path / "user"), "WAYMARKS_HOME": str(tmp_path / "wm")}
    done = waymarks("--json", "--cwd", str(tmp_path / "project"), "claude-code", "install",
                    *args, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    answer: dict[str, object] = json.loads(done.stdout)
    text = waymarks("--cwd", str(tmp_path / "project"), "claude-code", "install", *args,
                    env=env).stdout
    answer["text"] = text
    return answer


def _settings(path: Path, **values: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values))


def test_install_says_when_claude_code_runs_no_hook(tmp_path: Path) -> None:
    (tmp_path / "user").mkdir()
    (tmp_path / "project").mkdir()
    local = tmp_path / "project" / ".claude" / "settings.local.json"
    _settings(local, disableAllHooks=True)
    said = _install(tmp_path)
    assert said["hooksDisabled"] == str(local)
    assert f'{local} sets "disableAllHooks": true' in str(said["text"])  # also when
    # nothing changed: the person re-running install to find out why learns it
    assert "Nothing to change" in str(said["text"])
    _settings(local, disableAllHooks=False)  # the local file's word wins over the user's
    _settings(tmp_path / "user" / ".claude" / "settings.json", disableAllHooks=True)
    assert _install(tmp_path)["hooksDisabled"] is None
    user = _install(tmp_path, "--user")  # for every project: the user's file decides
    assert user["hooksDisabled"] == str(tmp_path / "user" / ".claude" / "settings.json")
    _settings(tmp_path / "user" / ".claude" / "settings.json", model="opus")
    clean = _install(tmp_path)
    assert clean["hooksDisabled"] is None and "disableAllHooks" not in str(clean["text"])


def test_a_reinstall_that_changes_nothing_still_warns_of_the_other_scope(
        tmp_path: Path) -> None:
    """The warning that the other scope runs Waymarks' hooks with another home (each
    prompt recorded in both homes, its context added twice) was a note of the change
    install made: run again to check, install said "Nothing to change: already installed"
    and no more."""
    (tmp_path / "user").mkdir()
    (tmp_path / "project").mkdir()
    env = {"HOME": str(tmp_path / "user")}
    other = tmp_path / "other home"
    assert waymarks("--home", str(other), "claude-code", "install", "--user",
                    env=env).returncode == 0
    runs = [waymarks("--home", str(tmp_path / "wm"), "--cwd", str(tmp_path / "project"),
                     "claude-code", "install", env=env) for _ in range(2)]
    first, again = (run.stdout for run in runs)
    assert f"runs Waymarks' hooks with another home ({other})" in first
    assert "Restart Claude Code" in first
    assert f"runs Waymarks' hooks with another home ({other})" in again, again
    assert "Nothing to change: already installed." in again
    assert "Restart Claude Code" not in again  # nothing new to load


def test_managed_settings_that_allow_only_their_own_hooks_are_named(tmp_path: Path) -> None:
    """`"allowManagedHooksOnly": true` in the managed settings makes Claude Code run only
    the managed file's hooks: an install's never ran, as with `disableAllHooks`."""
    from waymarks.hosts import claude_code_install as cc

    managed = tmp_path / "managed-settings.json"
    _settings(managed, allowManagedHooksOnly=True)
    (tmp_path / "project").mkdir()
    found = cc.hooks_disabled("project", tmp_path / "project", tmp_path / "user", managed)
    assert found == (managed, "allowManagedHooksOnly")
    _settings(managed, allowManagedHooksOnly=False)
    assert cc.hooks_disabled("user", tmp_path / "project", tmp_path / "user", managed) is None


def test_a_project_install_into_a_file_git_tracks_says_so(tmp_path: Path) -> None:
    """A project's `.mcp.json` is often committed to share its servers: install wrote this
    machine's interpreter, launcher and home into it (and into a committed
    `.claude/settings.json`) without a word, and teammates who pulled it got hooks that
    fail on every prompt. docs/hosts.md's advice (keep them out of shared commits, or
    --user) is now said where it applies: for each file git tracks."""
    from waymarks.hosts import claude_code_install as cc

    project = _committed_servers(tmp_path)
    changes = {c.path.name: c for c in cc.install("project", project, tmp_path / "user",
                                                  tmp_path / "wm")}
    [note] = changes[".mcp.json"].notes
    assert note.startswith("warning: git tracks this file") and "--user" in note
    assert changes["settings.json"].notes == []  # not committed: nothing to say


def test_asking_git_runs_no_command_the_repository_names(tmp_path: Path) -> None:
    """A repository's own ``.git/config`` may name a command git runs as it reads the
    index (``core.fsmonitor``), and a project install need not be of a repository the
    person trusts (a downloaded archive holding its ``.git``): asking git whether it tracks
    the files ran that command, where install had run no git at all before."""
    import subprocess

    from waymarks.hosts import claude_code_install as cc

    project = _committed_servers(tmp_path)
    ran = tmp_path / "ran"
    subprocess.run(["git", "config", "core.fsmonitor", f"touch '{ran}'; false"],
                   cwd=project, check=True)
    changes = {c.path.name: c for c in cc.install("project", project, tmp_path / "user",
                                                  tmp_path / "wm")}
    assert not ran.exists()
    [note] = changes[".mcp.json"].notes  # git still answers
    assert note.startswith("warning: git tracks this file")


def _committed_servers(tmp_path: Path) -> Path:
    """A project (in a new repository) whose committed ``.mcp.json`` shares its servers."""
    import subprocess

    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "user").mkdir()
    (project / ".mcp.json").write_text('{"mcpServers": {}}')
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for args in (["init", "-q"], ["add", ".mcp.json"], ["commit", "-q", "-m", "servers"]):
        subprocess.run([*git, *args], cwd=project, check=True, capture_output=True)
    return project
