"""Which ``waymarks`` script ``claude-code install`` writes into ``.mcp.json``: the one pip
installed beside this installation. A ``pip install --user`` puts it in the user scheme's
scripts directory (``~/.local/bin``), not beside the interpreter (``/usr/bin``): the path
is chosen from where the package (or, for an editable install, its metadata) lives, with
this interpreter's real ``sysconfig`` paths, and checked on a real ``--user`` layout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from waymarks.hosts import claude_code_install as cc

ROOT = Path(__file__).resolve().parents[2]
USER = sysconfig.get_preferred_scheme("user")


def test_the_scripts_directory_follows_the_installation() -> None:
    user_site = Path(sysconfig.get_path("purelib", USER))
    user_scripts = Path(sysconfig.get_path("scripts", USER))
    site = Path(sysconfig.get_path("purelib"))
    scripts = Path(sysconfig.get_path("scripts"))
    assert user_scripts != scripts and user_scripts != Path(sys.executable).parent
    checkout = ROOT / "src" / "waymarks"
    # pip install --user: the package in the user site, its script in the user's scripts
    assert cc.scripts_dir(user_site / "waymarks") == user_scripts
    assert cc.scripts_dir(user_site / "waymarks", site) == user_scripts  # the package wins
    # the interpreter's own site-packages (a venv, a system install)
    assert cc.scripts_dir(site / "waymarks") == scripts
    assert cc.scripts_dir(site / "waymarks", user_site) == scripts
    # editable: the package in a checkout; pip installed it where its metadata is
    assert cc.scripts_dir(checkout, user_site) == user_scripts
    assert cc.scripts_dir(checkout, site) == scripts
    assert cc.scripts_dir(checkout) == scripts  # not installed at all: the interpreter's


def test_this_installation_names_its_own_script() -> None:
    """This checkout is installed editable in the test environment: its script is there."""
    assert cc.waymarks_binary() == Path(sysconfig.get_path("scripts")) / "waymarks"
    assert cc.waymarks_binary().is_file()


def test_a_script_that_is_not_where_pip_puts_it_is_found_on_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nowhere, bin_dir = tmp_path / "empty", tmp_path / "bin"
    nowhere.mkdir()
    bin_dir.mkdir()
    monkeypatch.setattr(cc, "scripts_dir", lambda *_: nowhere)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert cc.waymarks_binary() == nowhere / "waymarks"  # nothing anywhere: the expected path
    on_path = bin_dir / "waymarks"
    on_path.write_text("#!/bin/sh\n")
    on_path.chmod(0o755)
    assert cc.waymarks_binary() == on_path


@pytest.mark.slow  # a pip install into a temporary user base: ~5 s
def test_an_editable_user_install_writes_its_user_script(tmp_path: Path) -> None:
    """``pip install --user -e``: the package stays in its checkout, the script and the
    metadata go to the user base. The MCP server ``claude-code install`` writes is that
    script (the interpreter's directory has none)."""
    base = Path(sys.base_prefix) / "bin" / "python3"
    checkout = tmp_path / "checkout"
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        (checkout / name).parent.mkdir(exist_ok=True)
        shutil.copy2(ROOT / name, checkout / name)
    shutil.copytree(ROOT / "src", checkout / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    user_base = tmp_path / "userbase"
    env = {**os.environ, "PYTHONUSERBASE": str(user_base)}
    env.pop("PYTHONNOUSERSITE", None)
    deps = sysconfig.get_paths()["purelib"]  # the build backend and the dependencies
    done = subprocess.run([str(base), "-m", "pip", "install", "--user", "--quiet", "--no-deps",
                           "--no-build-isolation", "--no-index", "--no-warn-script-location",
                           "-e", str(checkout)], env={**env, "PYTHONPATH": deps},
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    script = user_base / "bin" / "waymarks"
    assert script.is_file() and not (Path(sys.base_prefix) / "bin" / "waymarks").exists()
    user_site = Path(subprocess.run([str(base), "-c", "import site; print("
                                     "site.getusersitepackages())"], env=env,
                                    capture_output=True, text=True, check=True,
                                    timeout=60).stdout.strip())
    (user_site / "_waymarks_test_deps.pth").write_text(deps + "\n")
    project = tmp_path / "project"
    project.mkdir()
    run_env = {**env, "WAYMARKS_HOME": str(tmp_path / "home"), "WAYMARKS_CC_HELPER": "off"}
    where = subprocess.run([str(base), "-c", "import waymarks; print(waymarks.__file__)"],
                           env=run_env, capture_output=True, text=True, check=True,
                           timeout=60).stdout
    assert where.startswith(str(checkout / "src")), where  # editable: from the checkout
    installed = subprocess.run([str(base), "-m", "waymarks.cli.main", "claude-code",
                                "install"], env=run_env, cwd=project, capture_output=True,
                               text=True, timeout=120, check=False)
    assert installed.returncode == 0, installed.stderr
    server = json.loads((project / ".mcp.json").read_text())["mcpServers"]["waymarks"]
    assert server["command"] == str(script)
    version = subprocess.run([server["command"], "--version"], env=run_env,
                             capture_output=True, text=True, timeout=60, check=False)
    assert version.returncode == 0 and version.stdout.startswith("waymarks "), version.stderr
