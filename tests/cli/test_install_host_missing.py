"""An installer whose host is not on PATH says so: `claude-code install` ended with
"Restart Claude Code to load the hooks" and `pi install` with "restart Pi to load it"
where neither `claude` nor `pi` could be found. The real entry point, with a PATH of its
own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import waymarks

INSTALLS = [(["claude-code", "install", "--user"], "claude", "Claude Code"),
            (["pi", "install"], "pi", "Pi")]


def _install(tmp_path: Path, args: list[str], path: Path, *, as_json: bool = False) -> str:
    for folder in ("user", "project", "bin", "empty"):
        (tmp_path / folder).mkdir(exist_ok=True)
    env = {"HOME": str(tmp_path / "user"), "WAYMARKS_HOME": str(tmp_path / "wm"),
           "PI_CODING_AGENT_DIR": str(tmp_path / "pi"), "PATH": str(path)}
    done = waymarks(*(["--json"] if as_json else []), *args, env=env, cwd=tmp_path / "project")
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize(("args", "command", "host"), INSTALLS, ids=["claude-code", "pi"])
def test_an_install_without_its_host_on_path_says_it_was_not_found(
        tmp_path: Path, args: list[str], command: str, host: str) -> None:
    said = _install(tmp_path, args, tmp_path / "empty")
    assert f"`{command}` was not found on PATH: {host} is not installed" in said
    assert json.loads(_install(tmp_path, args, tmp_path / "empty",
                               as_json=True))["hostFound"] is False


@pytest.mark.parametrize(("args", "command", "host"), INSTALLS, ids=["claude-code", "pi"])
def test_an_install_with_its_host_on_path_says_nothing_of_it(
        tmp_path: Path, args: list[str], command: str, host: str) -> None:
    (tmp_path / "bin").mkdir()
    found = tmp_path / "bin" / command
    found.write_text("#!/bin/sh\nexit 0\n")
    found.chmod(0o755)
    assert "was not found on PATH" not in _install(tmp_path, args, tmp_path / "bin")
    assert json.loads(_install(tmp_path, args, tmp_path / "bin",
                               as_json=True))["hostFound"] is True
