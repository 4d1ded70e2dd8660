"""``claude-code install | uninstall`` against files that are not what they seem: links, a
FIFO, values Python would change, a backup name a repository planted. Each is refused in
one line with nothing written, or kept exactly as the person wrote it."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import Ran, waymarks
from waymarks.hosts import claude_code_install as cc


def _arguments(home: Path, project: Path, *args: str) -> list[str]:
    return ["--home", str(home), "--cwd", str(project), "claude-code", *args]


def _env(home: Path, user: Path) -> dict[str, str]:
    return {"HOME": str(user), "WAYMARKS_HOME": str(home)}


def cli(home: Path, project: Path, user: Path, *args: str) -> Ran:
    """``waymarks claude-code ARGS``: the real entry point, in this process."""
    return waymarks(*_arguments(home, project, *args), env=_env(home, user))


def in_a_process(home: Path, project: Path, user: Path, *args: str) -> dict[str, Any]:
    """``subprocess`` arguments for the same command in a new process (one that could hang,
    or must wait for a lock)."""
    return {"args": [sys.executable, "-m", "waymarks.cli.main",
                     *_arguments(home, project, *args)],
            "env": {**os.environ, **_env(home, user)}}


def tree(root: Path) -> dict[str, bytes | str]:
    """Every name under ``root``: a file's bytes, a link's target."""
    found: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        name = str(path.relative_to(root))
        if path.is_symlink():
            found[name] = "-> " + os.readlink(path)
        elif path.is_file():
            found[name] = path.read_bytes()
        else:
            found[name] = "dir"
    return found


def test_a_planted_backup_link_cannot_write_the_persons_user_settings(
        tmp_path: Path, home: Path, project: Path) -> None:
    user = tmp_path / "user"
    (user / ".claude").mkdir(parents=True)
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": "touch PWNED"}]}]}}))
    user_settings = user / ".claude" / "settings.json"  # does not exist: the link dangles
    (project / ".claude" / "settings.json.waymarks-backup").symlink_to(user_settings)
    before = tree(project)
    with pytest.raises(cc.InstallError, match=r"waymarks-backup is a symbolic link.*remove "
                                              r"it.*Nothing was changed"):
        cc.install("project", project, user, home)
    assert not user_settings.exists() and not os.path.lexists(user_settings)
    assert tree(project) == before
    with pytest.raises(cc.InstallError, match="waymarks-backup is a symbolic link"):
        cc.uninstall("project", project, user, home)  # never read through either
    assert tree(project) == before and not os.path.lexists(user_settings)


def test_a_backup_is_written_with_the_files_mode_and_never_through_a_link(
        tmp_path: Path, home: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    private = user / ".claude.json"
    private.write_text('{"oauthAccount": "secret"}')
    private.chmod(0o600)
    cc.install("user", tmp_path / "p", user, home)
    backup = user / ".claude.json.waymarks-backup"
    assert not backup.is_symlink() and backup.read_text() == '{"oauthAccount": "secret"}'
    assert oct(backup.stat().st_mode & 0o777) == "0o600"


@pytest.mark.parametrize("content, message", [
    ('{"x": "\\ud800"}', "lone surrogate"),
    ('{"x": NaN}', "not valid JSON"),
    ('{"x": -Infinity}', "not valid JSON"),
    ('{"hooks": {"Stop": [{"hooks": null}]}}', r"hooks.Stop\[0\].hooks is not a list"),
    ('{"hooks": {"SessionEnd": [3, {"hooks": 5}]}}', r"hooks.SessionEnd\[1\].hooks is not"),
])
def test_a_file_waymarks_cannot_rewrite_exactly_is_refused_and_nothing_written(
        tmp_path: Path, home: Path, project: Path, content: str, message: str) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(content)
    with pytest.raises(cc.InstallError, match=message) as refused:
        cc.install("project", project, tmp_path / "u", home)
    assert "\n" not in str(refused.value)
    assert tree(project) == {".claude": "dir", ".claude/settings.json": content.encode()}


def _not_json(constant: str) -> None:
    raise AssertionError(f"{constant} written, which JSON has not")


def test_numbers_and_values_are_kept_as_the_person_wrote_them(
        tmp_path: Path, home: Path, project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"big": 1e400, "exp": 1E2, "precise": 0.10000000000000000000001,'
                        ' "int": 123456789012345678901234567890, "neg": -0, "b": true}')
    cc.install("project", project, tmp_path / "u", home)
    written = settings.read_text()
    for literal in ('"big": 1e400', '"exp": 1E2', '"precise": 0.10000000000000000000001',
                    '"int": 123456789012345678901234567890', '"neg": -0', '"b": true'):
        assert literal in written
    # (read as JSON, not searched: the hooks' paths carry the temporary root's random name)
    json.loads(written, parse_constant=_not_json)  # no NaN nor Infinity written
    node = subprocess.run(["node", "-e", "JSON.parse(require('fs').readFileSync(0, 'utf8'))"],
                          input=written, capture_output=True, text=True) \
        if any((Path(p) / "node").is_file() for p in os.get_exec_path()) else None
    assert node is None or node.returncode == 0, node.stderr


@pytest.mark.parametrize("original, edited", [
    ('{\n    "verbose": 1\n}\n', '"verbose": true'),   # 1 == True in Python
    ('{\n    "verbose": 1\n}\n', '"verbose": 1.0'),    # 1 == 1.0
    ('{"a": 1, "b": 2}', None),                        # the person reordered the keys
])
def test_an_edit_made_after_install_survives_uninstall(
        tmp_path: Path, home: Path, project: Path, original: str, edited: str | None) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(original)
    cc.install("project", project, tmp_path / "u", home)
    data = json.loads(settings.read_text())
    if edited is None:
        data = {"b": data["b"], "a": data["a"], "hooks": data["hooks"]}
        settings.write_text(json.dumps(data))
    else:
        settings.write_text(settings.read_text().replace('"verbose": 1', edited))
    cc.uninstall("project", project, tmp_path / "u", home)
    after = settings.read_text()
    if edited is None:
        assert list(json.loads(after)) == ["b", "a"]
    else:
        assert edited in after
    assert "hook claude-code" not in after
    assert not list(project.rglob("*.waymarks-backup"))


@pytest.mark.slow
def test_a_fifo_in_place_of_the_settings_is_refused_at_once(
        tmp_path: Path, home: Path, project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    os.mkfifo(settings)
    for action in ("install", "uninstall"):  # in a new process: a read would hang it
        done = subprocess.run(**in_a_process(home, project, tmp_path / "u", action),
                              capture_output=True, text=True, timeout=30)
        assert done.returncode == 2, done
        assert "is a FIFO, not a file; move it away" in done.stdout + done.stderr
        assert "Traceback" not in done.stderr
    assert sorted(p.name for p in project.rglob("*")) == [".claude", "settings.json"]


@pytest.mark.parametrize("link", ["settings.json", "../outside/deep/x.json"])
def test_a_settings_link_that_leads_nowhere_is_refused(
        tmp_path: Path, home: Path, project: Path, link: str) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.symlink_to(link)
    for action in (cc.install, cc.uninstall):
        with pytest.raises(cc.InstallError, match=r"a symbolic link that leads to no file.*"
                                                  r"Nothing was changed"):
            action("project", project, tmp_path / "u", home)  # type: ignore[operator]
    assert not (project / "outside").exists() and not (project / ".mcp.json").exists()
    assert os.readlink(settings) == link


def test_uninstall_changes_nothing_when_one_file_cannot_be_read(
        tmp_path: Path, home: Path, project: Path) -> None:
    cc.install("project", project, tmp_path / "u", home)
    (project / ".mcp.json").write_text('{"mcpServers": {,}')
    before = tree(project)
    done = cli(home, project, tmp_path / "u", "uninstall")
    assert done.returncode == 2 and "Nothing was changed" in done.stderr
    assert tree(project) == before  # the settings still hold the hooks: nothing was changed


def _waits_for(lock: Path) -> bool:
    """Whether a process is blocked asking for ``lock`` (Linux lists it in /proc/locks
    with ``->``); elsewhere, after five seconds of waiting."""
    if not os.path.exists("/proc/locks"):
        time.sleep(5)
        return True
    inode = f":{os.stat(lock).st_ino} "
    with open("/proc/locks") as table:
        return any("->" in line and inode in line for line in table)


def test_installs_take_turns(tmp_path: Path, home: Path, project: Path) -> None:
    """Two installs at once would each back up what the other just wrote (a backup holding
    Waymarks' own server, restored by uninstall): each waits for the lock in the home."""
    (project / ".mcp.json").write_text('{"mcpServers": {}}')
    lock = home / "claude-code" / "install.lock"
    lock.parent.mkdir(parents=True)
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        waiting = subprocess.Popen(**in_a_process(home, project, tmp_path / "u", "install"),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while not _waits_for(lock) and waiting.poll() is None:
            assert time.monotonic() < deadline, "the install never asked for the lock"
            time.sleep(0.05)
        assert waiting.poll() is None  # still waiting for the lock
        assert (project / ".mcp.json").read_text() == '{"mcpServers": {}}'
    assert waiting.wait(60) == 0
    assert "waymarks" in json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert (project / ".mcp.json.waymarks-backup").read_text() == '{"mcpServers": {}}'


def test_a_backup_made_redundant_by_hand_goes_and_one_still_needed_is_named(
        tmp_path: Path, home: Path, project: Path) -> None:
    user = tmp_path / "u"
    mcp = project / ".mcp.json"
    backup = project / ".mcp.json.waymarks-backup"
    mcp.write_text('{"mcpServers": {"gh": {"command": "gh"}}}')
    cc.install("project", project, user, home)
    mcp.write_text('{"mcpServers": {"gh": {"command": "gh"}}}')  # Waymarks removed by hand
    changes = {c.path.name: c for c in cc.uninstall("project", project, user, home)}
    assert changes[".mcp.json"].notes == ["removed .mcp.json.waymarks-backup"]
    assert not backup.exists() and mcp.read_text() == '{"mcpServers": {"gh": {"command": "gh"}}}'
    cc.install("project", project, user, home)
    mcp.write_text('{"mcpServers": {"linear": {"command": "linear"}}}')  # and changed more
    changes = {c.path.name: c for c in cc.uninstall("project", project, user, home)}
    assert "kept .mcp.json.waymarks-backup" in changes[".mcp.json"].notes[0]
    assert backup.read_text() == '{"mcpServers": {"gh": {"command": "gh"}}}'
    done = cli(home, project, user, "uninstall")
    assert done.returncode == 0 and "kept .mcp.json.waymarks-backup" in done.stdout


def test_project_and_user_together_are_refused_not_one_chosen(tmp_path: Path, home: Path,
                                                              project: Path) -> None:
    """``install --project --user`` installed into the user's settings alone, exit 0: one
    of the two scopes asked for was silently dropped."""
    user = tmp_path / "user"
    user.mkdir()
    for action in ("install", "uninstall"):
        done = cli(home, project, user, action, "--project", "--user")
        assert done.returncode == 2, (done.stdout, done.stderr)
        assert "--project or --user, not both" in done.stderr and "Traceback" not in done.stderr
        assert tree(user) == {} and tree(project) == {}


def test_a_read_only_settings_file_is_refused_and_left_alone(tmp_path: Path, home: Path,
                                                             project: Path) -> None:
    """A settings file the person made read-only (0444) was replaced all the same (a
    rename needs only the folder to be writable), its new content read-only too."""
    user = tmp_path / "user"
    user.mkdir()
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n    "model": "opus"\n}\n')
    settings.chmod(0o444)
    before = tree(project)
    done = cli(home, project, user, "install")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "is read-only" in done.stderr and "chmod u+w" in done.stderr
    assert "Nothing was changed" in done.stderr
    assert tree(project) == before and settings.stat().st_mode & 0o777 == 0o444
    settings.chmod(0o644)  # made writable: installed; read-only again: not uninstalled
    assert cc.install("project", project, user, home)
    settings.chmod(0o444)
    before = tree(project)
    with pytest.raises(cc.InstallError, match=r"settings.json is read-only \(mode 444\)"):
        cc.uninstall("project", project, user, home)
    assert tree(project) == before


def test_a_huge_settings_file_is_refused_before_it_is_read(tmp_path: Path, home: Path,
                                                           project: Path) -> None:
    """A settings file of gigabytes (a sparse file, a mistake) was read whole into
    memory: a MemoryError traceback under a memory limit, else seconds of reading to say
    it was not JSON."""
    from waymarks.hosts import claude_code_files

    limit = getattr(claude_code_files, "MAX_FILE_BYTES", 256 << 20)
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    with settings.open("wb") as out:
        out.truncate(limit + 1)  # sparse: no disk, and nothing to read quickly
    with pytest.raises(cc.InstallError, match=r"larger than 256 MiB.*Nothing was changed"):
        cc.install("project", project, tmp_path / "user", home)
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]
    assert settings.stat().st_size == limit + 1 and not (project / ".mcp.json").exists()


def test_a_file_where_the_claude_folder_goes_is_named_with_the_right_fix(
        tmp_path: Path, home: Path, project: Path) -> None:
    """A file named ``.claude`` in the project was refused as "cannot be read (Not a
    directory); fix its permissions": no permission is wrong, the fix is to move it."""
    (project / ".claude").write_text("notes\n")
    before = tree(project)
    done = cli(home, project, tmp_path / "user", "install")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"{project / '.claude'} is a file, not a folder" in done.stderr
    assert "permissions" not in done.stderr and "Nothing was changed" in done.stderr
    assert tree(project) == before


@pytest.mark.parametrize("link", [".claude", ".claude/settings.json", ".mcp.json"])
def test_a_project_file_linked_out_of_the_project_is_refused(
        tmp_path: Path, home: Path, project: Path, link: str) -> None:
    """A repository can ship ``.claude/settings.json`` (or ``.claude``, or ``.mcp.json``) as
    a symbolic link to a file of the person's: ``install --project`` changed that file and
    uninstall too. Both refuse it now, changing nothing."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "settings.json").write_text('{"theirs": 1}\n')
    (outside / "other.json").write_text('{"theirs": 2}\n')
    target = {".claude": outside, ".claude/settings.json": outside / "settings.json",
              ".mcp.json": outside / "other.json"}[link]
    (project / link).parent.mkdir(parents=True, exist_ok=True)
    (project / link).symlink_to(target)
    before = tree(outside)
    for action in (cc.install, cc.uninstall):
        with pytest.raises(cc.InstallError, match=r"leads out of the project.*--user.*"
                                                  r"Nothing was changed"):
            action("project", project, tmp_path / "u", home)  # type: ignore[operator]
    assert tree(outside) == before
    assert (project / link).is_symlink()


@pytest.mark.parametrize("original", [
    '{\n  "model": "sonnet",\n  "hooks": {}\n}\n',
    '{"hooks": {}, "env": {"A": "1"}}',
])
def test_uninstall_gives_back_the_bytes_of_a_file_with_an_empty_hooks_object(
        tmp_path: Path, home: Path, project: Path, original: str) -> None:
    """The removal drops the containers it empties: the person's own empty ``hooks``
    went, the file no longer matched its backup, and uninstall wrote it over (their
    formatting gone) and kept a backup it said had changed."""
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(original)
    cc.install("project", project, tmp_path / "u", home)
    cc.uninstall("project", project, tmp_path / "u", home)
    assert tree(project / ".claude") == {"settings.json": original.encode()}


@pytest.mark.parametrize(("name", "original"), [
    (".claude/settings.json", '{\n  "hooks": {\n    "Stop": []\n  }\n}\n'),
    (".claude/settings.json", '{"hooks": {"Stop": [], "PreToolUse": []}, "model": "opus"}'),
    (".mcp.json", '{\n  "mcpServers": {}\n}\n'),
    (".mcp.json", '{"mcpServers": {}, "other": 1}'),
])
def test_uninstall_gives_back_the_bytes_of_a_file_whose_containers_it_empties(
        tmp_path: Path, home: Path, project: Path, name: str, original: str) -> None:
    """An empty list of one of the events install adds to (``"Stop": []``) or an empty
    ``mcpServers``: install filled it, uninstall's removal dropped it once emptied, and
    the file then no longer matched its backup: it came back rewritten, not byte for
    byte, and the backup was dropped."""
    path = project / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(original)
    before = tree(project)
    cc.install("project", project, tmp_path / "u", home)
    assert tree(project) != before
    cc.uninstall("project", project, tmp_path / "u", home)
    assert tree(project) == before


def test_a_backup_holding_waymarks_hooks_is_never_written_back(
        tmp_path: Path, home: Path, project: Path) -> None:
    """A backup made by an install over an older one holds Waymarks' own hooks: uninstall
    writes what is left without them, not that backup."""
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "sonnet"}')
    cc.install("project", project, tmp_path / "u", home)
    backup = settings.with_name("settings.json.waymarks-backup")
    backup.write_bytes(settings.read_bytes())  # as if made when these hooks were there
    cc.uninstall("project", project, tmp_path / "u", home)
    left = json.loads(settings.read_text())
    assert left == {"model": "sonnet"} and "hooks" not in left


def test_a_project_install_in_the_home_folder_is_refused_both_ways(tmp_path: Path) -> None:
    """``claude-code install`` run from ``~`` wrote Claude Code's *user* settings: every
    project got the hooks; ``uninstall`` there took a ``--user`` install's hooks and left
    its MCP server behind."""
    user, home = tmp_path / "user", tmp_path / "wm"
    user.mkdir()
    with pytest.raises(cc.InstallError, match="home folder"):
        cc.install("project", user, user, home)
    assert list(user.iterdir()) == []
    cc.install("user", user, user, home)
    before = {p: p.read_bytes() for p in (user / ".claude" / "settings.json",
                                          user / ".claude.json")}
    with pytest.raises(cc.InstallError, match="--user"):
        cc.uninstall("project", user, user, home)
    assert {p: p.read_bytes() for p in before} == before


def test_uninstall_never_removes_the_file_a_settings_link_leads_to(tmp_path: Path,
                                                                   home: Path) -> None:
    """A dotfiles checkout's settings file, linked from ``~/.claude``, that holds only an
    earlier install's hooks (synced from another machine): uninstall removed the file the
    link leads to, leaving the link leading nowhere (the next install refused it) and the
    file gone from the checkout. It is written without Waymarks' entries instead."""
    user, dotfiles = tmp_path / "user", tmp_path / "dotfiles"
    (user / ".claude").mkdir(parents=True)
    dotfiles.mkdir()
    assert cli(tmp_path / "other-home", user, user, "install", "--user").returncode == 0
    (user / ".claude" / "settings.json").rename(dotfiles / "settings.json")
    (user / ".claude" / "settings.json").symlink_to(dotfiles / "settings.json")
    (user / ".claude.json").unlink()
    assert cli(home, user, user, "install", "--user").returncode == 0
    done = cli(home, user, user, "uninstall", "--user")
    assert done.returncode == 0, done.stderr
    assert os.readlink(user / ".claude" / "settings.json") == str(dotfiles / "settings.json")
    assert json.loads((dotfiles / "settings.json").read_text()) == {}
    assert cli(home, user, user, "install", "--user").returncode == 0  # not refused


def test_an_install_into_a_home_that_cannot_be_written_gives_that_fix(
        tmp_path: Path, project: Path) -> None:
    """The install lock could not be made in a read-only home, and the refusal said to
    "remove whatever is there": nothing was there to remove."""
    from tests.durability.test_disk_full import tmpfs

    (project / ".mcp.json").write_text('{"mcpServers": {}}')
    before = tree(project)
    with tmpfs(tmp_path / "home", "ro,size=64k") as home:
        done = cli(home, project, tmp_path / "u", "install")
    said = done.stdout + done.stderr
    assert done.returncode == 2, said
    assert f"{home / 'claude-code' / 'install.lock'} cannot be opened" in said
    assert "Remount it read-write" in said and "remove whatever is there" not in said, said
    assert tree(project) == before and not (tmp_path / "u").exists()


@pytest.mark.parametrize("kept", [b"MY OWN NOTES\n", b'{\n  "theme": "light"\n}\n'])
def test_uninstall_keeps_a_backup_no_install_wrote(
        tmp_path: Path, home: Path, project: Path, kept: bytes) -> None:
    """A ``.waymarks-backup`` that was there before install (the person's own copy by that
    name; install writes none over it) was deleted by uninstall, its bytes nowhere else;
    one that parsed was even written back over the file. It stays as it is, and is named."""
    user = tmp_path / "u"
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"theme": "dark"}')
    theirs = settings.with_name("settings.json.waymarks-backup")
    theirs.write_bytes(kept)
    done = cli(home, project, user, "install")
    assert done.returncode == 0, done.stderr
    done = cli(home, project, user, "uninstall")
    assert done.returncode == 0, done.stderr
    assert theirs.read_bytes() == kept
    assert json.loads(settings.read_text()) == {"theme": "dark"}
    assert "kept settings.json.waymarks-backup (no install noted writing it" in done.stdout


def test_a_backup_install_wrote_goes_also_after_a_reinstall_under_another_home(
        tmp_path: Path, project: Path) -> None:
    """The backup install noted in its home is that install's: a re-install under another
    home (which backs up nothing, the backup being there) and its uninstall still put the
    file back and remove it."""
    user, first, second = tmp_path / "u", tmp_path / "h1", tmp_path / "h2"
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"theme": "dark"}')
    cc.install("project", project, user, first)
    cc.install("project", project, user, second)
    cc.uninstall("project", project, user, second)
    assert settings.read_text() == '{"theme": "dark"}'  # byte for byte, from the backup
    assert not settings.with_name("settings.json.waymarks-backup").exists()
    assert not (first / "claude-code" / "backups.json").exists()  # forgotten with it


def test_an_uninstall_run_for_another_home_removes_the_folder_install_created(
        tmp_path: Path, project: Path) -> None:
    """Installed with `--home H` and uninstalled from a shell without it (the default
    home: what `waymarks claude-code uninstall` runs), the hooks and the server went but
    the `.claude/` folder install had made was left, empty, and H's record still named it:
    the folders were looked up in the uninstalling home alone, not in the homes the
    removed entries name, as the backups are."""
    user, first, other = tmp_path / "u", tmp_path / "h1", tmp_path / "default"
    before = tree(project)
    cc.install("project", project, user, first)
    assert (project / ".claude").is_dir()
    cc.uninstall("project", project, user, other)
    assert tree(project) == before  # nothing of Waymarks is left
    assert not (first / "claude-code" / "created-folders.json").exists()


def test_an_uninstall_for_a_home_that_was_never_made_does_not_make_it(
        tmp_path: Path, project: Path) -> None:
    """Run from a shell without the install's `--home`, uninstall made the default home
    (`~/.local/share/waymarks/claude-code/install.lock`) only to take its lock: a home
    nothing had used, left behind by the command that promises nothing of Waymarks stays."""
    user, first, never = tmp_path / "u", tmp_path / "h1", tmp_path / "share" / "waymarks"
    cc.install("project", project, user, first)
    cc.uninstall("project", project, user, never)
    assert not never.exists() and not never.parent.exists()
    assert not (project / ".claude").exists()


@pytest.mark.slow
@pytest.mark.parametrize("record", ["created-folders.json", "backups.json"])
def test_a_fifo_in_place_of_another_homes_record_does_not_hang_uninstall(
        tmp_path: Path, home: Path, project: Path, record: str) -> None:
    """Uninstall reads the records of the homes the removed entries name (any absolute
    path a settings file's hook says, a hostile one's too): a FIFO in place of one
    (`created-folders.json`, read since c2e0777c on every uninstall; `backups.json`, where
    a backup is there) was opened and waited on, and uninstall hung, its files already
    changed. A record that is no regular file is none, as an unreadable one is."""
    named = tmp_path / "named"
    (project / ".mcp.json").write_text('{"mcpServers": {}}')
    cc.install("project", project, tmp_path / "u", named)
    path = named / "claude-code" / record
    path.unlink()
    os.mkfifo(path)
    done = subprocess.run(**in_a_process(home, project, tmp_path / "u", "uninstall"),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done
    assert not (project / ".claude" / "settings.json").exists()
    left = [p.read_text() for p in project.rglob("*") if p.is_file()]  # (the record
    # unreadable, the backup is kept, named, rather than written back)
    assert left and all("--claude-code" not in text for text in left)


def test_an_immutable_settings_file_is_named_not_given_chmod(
        tmp_path: Path, home: Path, project: Path) -> None:
    """Claude Code's settings marked immutable (``chattr +i``: an administrator's lock) were
    "read-only (mode 600) … chmod u+w", which changed nothing: the attribute refuses root
    too. The refusal names it and ``chattr -i``; nothing is written."""
    from tests.durability.test_immutable_files import clearing, immutable

    cc.install("project", project, tmp_path / "u", home)
    settings = project / ".claude" / "settings.json"
    before = tree(project)
    with immutable(settings):
        done = cli(home, project, tmp_path / "u", "uninstall")
    assert done.returncode == 2 and "Nothing was changed" in done.stderr, done.stderr
    assert f"{settings} is marked immutable" in done.stderr, done.stderr
    assert clearing(settings) in done.stderr and "chmod" not in done.stderr
    assert tree(project) == before
