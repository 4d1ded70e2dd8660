"""Issue 16, defect 6: the wheel is a complete Waymarks. Built from a copy of the source
tree, installed into a fresh virtual environment, and used there: ``pi install`` (the
extension is package data) and ``claude-code install``, whose hook then runs from the
wheel; uninstall leaves nothing behind. The same wheel installed with ``pip install
--user``: the command ``claude-code install`` writes runs, in the hook's process and
through the warm helper it starts.

The fresh environment takes Waymarks only from the wheel. Its dependencies come from this
test environment through a path file (no network in the test), and ``pip check`` confirms
the wheel's declared requirements are met by them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import uuid
import zipfile
from pathlib import Path
from typing import Any

import pytest

from waymarks.hosts import claude_code_install as cc

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # builds a wheel and a virtual environment: ~20 s


def _run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, capture_output=True, text=True, timeout=600, check=False,
                          **kwargs)  # type: ignore[call-overload]
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
          "--quiet", "-w", str(out), str(source)])
    [built] = out.glob("waymarks-*.whl")
    return built


def test_the_wheel_carries_the_extension_and_the_license(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
        text = archive.read(metadata).decode()
        extension = {n: archive.read(n).decode() for n in names
                     if n.startswith("waymarks/hosts/pi_extension/")}
    # Pi loads index.ts from the installed package; it imports its sibling modules, each
    # of which must be in the wheel too (all of the source's, and every one imported)
    source = Path(cc.__file__).parent / "pi_extension"
    assert sorted(extension) == sorted(f"waymarks/hosts/pi_extension/{p.name}"
                                       for p in source.glob("*.ts"))
    assert "waymarks/hosts/pi_extension/index.ts" in extension
    imported = {f"waymarks/hosts/pi_extension/{module}" for text_ in extension.values()
                for module in re.findall(r'from "\./([^"]+)"', text_)}
    assert imported and imported <= set(extension), imported - set(extension)
    # the web inspector works offline from a wheel: templates and the vendored htmx
    assert {"waymarks/web/templates/overview.html", "waymarks/web/static/htmx.min.js",
            "waymarks/web/static/ui.css", "waymarks/web/static/LICENSE-htmx"} <= names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "License-Expression: MIT" in text
    for requirement in ("click", "rich", "pyyaml", "mcp", "msgspec", "jinja2"):
        assert f"Requires-Dist: {requirement}" in text.replace("PyYAML", "pyyaml")


def test_installed_from_the_wheel_the_installers_work(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    python = venv / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
          str(wheel)])
    purelib = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                         "['purelib'])"]).stdout.strip())
    (purelib / "_waymarks_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    where = _run([str(python), "-c", "import waymarks; print(waymarks.__file__)"]).stdout
    assert where.startswith(str(venv)), where
    _run([str(python), "-m", "pip", "check"])

    waymarks = venv / "bin" / "waymarks"
    home, project, user = tmp_path / "home", tmp_path / "project", tmp_path / "user"
    project.mkdir()
    user.mkdir()
    env = {**os.environ, "HOME": str(user), "WAYMARKS_HOME": str(home),
           "WAYMARKS_CC_HELPER": "off"}
    env.pop("PI_CODING_AGENT_DIR", None)
    assert _run([str(waymarks), "--version"], env=env).stdout.startswith("waymarks ")

    agent = user / ".pi" / "agent"
    installed = json.loads(_run([str(waymarks), "--json", "pi", "install"], env=env).stdout)
    loader = Path(installed["path"])
    assert loader == agent / "extensions" / "waymarks.ts"
    extension = Path(json.loads(loader.read_text().splitlines()[-1].split("from ")[1]
                                .rstrip(";")))
    assert extension.is_file() and str(extension).startswith(str(venv))
    assert json.dumps(str(waymarks)) in loader.read_text()

    changes = json.loads(_run([str(waymarks), "--json", "claude-code", "install"], env=env,
                              cwd=project).stdout)["changes"]
    assert len(changes) == 2
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    [group] = settings["hooks"]["SessionStart"]
    command = group["hooks"][0]["command"]
    # the installation's interpreter without `site`, on the wheel's own hook launcher
    assert cc.hook_argv(command)[:4] == [str(python), "-I", "-S",
                                        str(purelib / "waymarks" / "hosts" / "hook_entry.py")]
    start = json.dumps({"session_id": str(uuid.uuid4()), "cwd": str(project),
                        "hook_event_name": "SessionStart", "source": "startup"})
    _run(["sh", "-c", command], input=start, env=env, cwd=project)
    assert list((home / "sessions").rglob("*.jsonl")), "the hook from the wheel bound a ledger"

    _run([str(waymarks), "claude-code", "uninstall"], env=env, cwd=project)
    _run([str(waymarks), "pi", "uninstall"], env=env)
    assert list(project.iterdir()) == [] and list(user.iterdir()) == []


def _hook(settings: dict[str, Any], event: str, data: dict[str, object],
          env: dict[str, str], cwd: Path) -> str:
    """Run the command ``install`` wrote for ``event`` as Claude Code does (a shell)."""
    [group] = settings["hooks"][event]
    done = _run(["sh", "-c", group["hooks"][0]["command"]],
                input=json.dumps({**data, "hook_event_name": event}), env=env, cwd=cwd)
    return done.stdout


def test_a_user_install_runs_the_hook_command_install_writes(wheel: Path,
                                                             tmp_path: Path) -> None:
    """``pip install --user``: Waymarks in the user site, which ``-I`` leaves out of the
    import path; the launcher names its own directory, and the fallback and the helper
    read it as a site directory (its dependencies: a path file here, as pip --user would
    put them beside it)."""
    base = Path(sys.base_prefix) / "bin" / "python3"
    user_base = tmp_path / "userbase"
    env = {**os.environ, "PYTHONUSERBASE": str(user_base)}
    env.pop("PYTHONNOUSERSITE", None)
    _run([str(base), "-m", "pip", "install", "--user", "--quiet", "--no-deps", "--no-index",
          "--no-warn-script-location", str(wheel)], env=env)
    user_site = Path(_run([str(base), "-c", "import site; print(site.getusersitepackages())"],
                          env=env).stdout.strip())
    assert (user_site / "waymarks" / "hosts" / "hook_entry.py").is_file()
    (user_site / "_waymarks_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    run_env = {**env, "WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off",
               "WAYMARKS_CC_HELPER_IDLE": "3", "CLAUDE_PROJECT_DIR": str(project)}
    _run([str(base), "-m", "waymarks.cli.main", "claude-code", "install"], env=run_env,
         cwd=project)
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert cc.hook_argv(command)[:4] == [str(base), "-I", "-S",
                                        str(user_site / "waymarks" / "hosts" / "hook_entry.py")]
    # the MCP server: the script pip --user installed (none beside the interpreter)
    server = json.loads((project / ".mcp.json").read_text())["mcpServers"]["waymarks"]
    assert server["command"] == str(user_base / "bin" / "waymarks")
    assert Path(server["command"]).is_file()
    session = str(uuid.uuid4())
    start = {"session_id": session, "cwd": str(project), "source": "startup"}
    assert _hook(settings, "SessionStart", start, run_env, project) == ""
    [ledger] = list((home / "sessions").rglob(f"*_{session}.jsonl"))
    _run([str(base), "-m", "waymarks.cli.main", "--session", session, "pin", "--",
          "Always run the linters"], env=run_env, cwd=project)
    prompt = {"session_id": session, "cwd": str(project), "prompt": "lint it"}
    in_process = _hook(settings, "UserPromptSubmit", prompt, run_env, project)
    assert "Always run the linters" in in_process  # no helper: answered in the hook
    # with the helper: the first hook starts it (its own -I -S process from the user site)
    helped = {**run_env, "WAYMARKS_CC_HELPER": "on"}
    _hook(settings, "UserPromptSubmit", prompt, helped, project)
    from waymarks.hosts import cc_client

    socket = Path(cc_client.socket_path(home))
    for _ in range(200):
        if socket.exists():
            break
        time.sleep(0.05)
    assert socket.exists(), "the helper started from a user install"
    lines = len(ledger.read_text().splitlines())
    again = {**prompt, "prompt": "lint the other change"}  # (a retried prompt: once)
    assert "Always run the linters" in _hook(settings, "UserPromptSubmit", again, helped,
                                             project)
    assert len(ledger.read_text().splitlines()) > lines  # recorded (by the helper)
