"""``claude-code install | uninstall`` when a write fails part way (a full disk, an I/O
error): every file is checked before the first write, but a write can still fail, and the
settings written while the MCP file could not be left hooks installed without their
server. What was written before the failure gets its bytes back."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hosts.test_cc_install_files import tree
from waymarks.hosts import claude_code_files
from waymarks.hosts import claude_code_install as cc

SETTINGS = ('{\n  "model": "sonnet",\n  "hooks": {"Stop": [{"hooks": [{"type": "command", '
            '"command": "notify-send done"}]}]}\n}\n')
MCP = '{"mcpServers": {"other": {"command": "other-server"}}}\n'


def full_disk(monkeypatch: pytest.MonkeyPatch, fails: Callable[[Path], bool]) -> None:
    """Each atomic write of a file ``fails`` chooses fails as a full disk does."""
    real = claude_code_files.write_atomic

    def write_atomic(path: Path | str, data: bytes | str, *, mode: int | None = None) -> None:
        if fails(Path(path)):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real(path, data, mode=mode)

    monkeypatch.setattr(claude_code_files, "write_atomic", write_atomic)


def named(name: str) -> Callable[[Path], bool]:
    return lambda path: path.name == name


@pytest.fixture
def person(project: Path) -> dict[str, bytes | str]:
    """A project with the person's own settings and MCP servers, as the files stand."""
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(SETTINGS)
    (project / ".mcp.json").write_text(MCP)
    return tree(project)


def test_an_install_whose_second_file_fails_puts_the_first_back(
        tmp_path: Path, home: Path, project: Path, person: dict[str, bytes | str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    full_disk(monkeypatch, named(".mcp.json"))
    with pytest.raises(cc.InstallError, match=r"\.mcp\.json could not be written \(No space "
                                              r"left on device\).*Nothing was changed"):
        cc.install("project", project, tmp_path / "u", home)
    assert tree(project) == person  # the settings' bytes, and no backup of either
    monkeypatch.undo()
    assert [c.path.name for c in cc.install("project", project, tmp_path / "u", home)] == [
        "settings.json", ".mcp.json"]  # nothing was left that makes it think it is done


def test_an_install_into_a_new_folder_leaves_no_folder_behind(
        tmp_path: Path, home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    full_disk(monkeypatch, named(".mcp.json"))
    with pytest.raises(cc.InstallError, match="Nothing was changed"):
        cc.install("project", project, tmp_path / "u", home)
    assert tree(project) == {}  # neither settings.json nor the .claude folder made for it


def test_an_uninstall_whose_second_file_fails_puts_the_first_back(
        tmp_path: Path, home: Path, project: Path, person: dict[str, bytes | str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    cc.install("project", project, tmp_path / "u", home)
    installed = tree(project)
    assert ".claude/settings.json.waymarks-backup" in installed
    full_disk(monkeypatch, named(".mcp.json"))
    with pytest.raises(cc.InstallError, match=r"\.mcp\.json could not be written.*Nothing "
                                              r"was changed"):
        cc.uninstall("project", project, tmp_path / "u", home)
    assert tree(project) == installed  # hooks, server and both backups as install left them
    monkeypatch.undo()
    cc.uninstall("project", project, tmp_path / "u", home)
    assert tree(project) == person


def test_a_put_back_that_fails_too_is_named(
        tmp_path: Path, home: Path, project: Path, person: dict[str, bytes | str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    settings = project / ".claude" / "settings.json"
    writes: list[str] = []

    def fails(path: Path) -> bool:
        writes.append(path.name)
        return path.name == ".mcp.json" or writes.count("settings.json") > 1

    full_disk(monkeypatch, fails)
    with pytest.raises(cc.InstallError) as failed:
        cc.install("project", project, tmp_path / "u", home)
    message = str(failed.value)
    assert "could not all be put back" in message and str(settings) in message
    assert "Nothing was changed" not in message
    assert json.loads(settings.read_text())["hooks"]  # what is left is said, not hidden
