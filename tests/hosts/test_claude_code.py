"""Claude Code: hooks through the real entry point, install/uninstall on existing files, the
warm helper, the MCP server following the hooks' session, and the real Claude Code from
npm against a loopback fake Anthropic Messages server."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import suite_bytecode, suite_command
from tests.hosts.fake_anthropic import FakeAnthropic
from tests.hosts.fake_cc_window import memory_add_over_mcp
from tests.install_once import install_once
from waymarks.hosts import cc_client
from waymarks.hosts import claude_code_install as cc
from waymarks.service.app import Waymarks

WAYMARKS = Path(sys.executable).parent / "waymarks"
PIN_BEGIN = "[WAYMARKS PINNED CONTEXT — USER-CONFIRMED]"


def hook(home: Path, event: str, payload: object, *, helper: bool = False,
         raw: bytes | None = None, idle: str = "5") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WAYMARKS_CC_HELPER": "on" if helper else "off",
           "WAYMARKS_CC_HELPER_IDLE": idle}
    data = raw if raw is not None else json.dumps(payload).encode()
    done = subprocess.run([str(WAYMARKS), "--home", str(home), "hook", "claude-code", event],
                          input=data, env=env, capture_output=True, timeout=60)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(),
                                       done.stderr.decode())


def payload(session_id: str, cwd: Path, event: str, **extra: Any) -> dict[str, Any]:
    return {"session_id": session_id, "transcript_path": str(cwd / "transcript.jsonl"),
            "cwd": str(cwd), "hook_event_name": event, **extra}


@pytest.fixture
def sid() -> str:
    return str(uuid.uuid4())


def ledger(home: Path, project: Path, session_id: str) -> list[dict[str, Any]]:
    [path] = list((home / "sessions").rglob(f"*_{session_id}.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.slow
def test_every_event_through_the_real_entry_point(home: Path, project: Path,
                                                  sid: str) -> None:
    start = hook(home, "SessionStart", payload(sid, project, "SessionStart", source="startup"))
    assert (start.returncode, start.stdout) == (0, "")
    assert ledger(home, project, sid)[0]["id"] == sid  # the ledger is Claude Code's session
    with Waymarks(home, cwd=str(project), session=sid) as app:
        app.pin("Always run the linters")
    submitted = hook(home, "UserPromptSubmit",
                     payload(sid, project, "UserPromptSubmit", prompt="lint my change"))
    output = json.loads(submitted.stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == "UserPromptSubmit"
    assert output["additionalContext"].startswith(PIN_BEGIN)
    assert '"Always run the linters"' in output["additionalContext"]
    compact = hook(home, "PreCompact", payload(sid, project, "PreCompact", trigger="auto",
                                                custom_instructions=""))
    end = hook(home, "SessionEnd", payload(sid, project, "SessionEnd", reason="exit"))
    assert compact.stdout == end.stdout == "" and compact.returncode == end.returncode == 0
    kinds = [(e["type"], e.get("customType") or e.get("message", {}).get("role"))
             for e in ledger(home, project, sid)[1:]]
    assert kinds == [("custom", "ds4-context-pin-v1"), ("message", "user"),
                     ("custom", "waymarks-compaction-v1"), ("custom", "waymarks-session-end-v1")]


def test_a_prompt_with_nothing_to_add_prints_nothing(home: Path, project: Path,
                                                     sid: str) -> None:
    result = hook(home, "UserPromptSubmit",
                  payload(sid, project, "UserPromptSubmit", prompt="hello"))
    assert (result.returncode, result.stdout) == (0, "")
    assert ledger(home, project, sid)[-1]["message"]["content"][0]["text"] == "hello"


@pytest.mark.parametrize(("event", "body", "code"), [
    ("UserPromptSubmit", b"not json at all", "input_not_json"),
    ("UserPromptSubmit", b"[1, 2]", "input_not_object"),
    ("UserPromptSubmit", b"\xff\xfe", "input_not_json"),
    ("PostToolUse", b'{"tool_input":' + b"[" * 5000 + b"]" * 5000 + b"}",
     "input_not_json"),  # nested too deep: RecursionError in the decoder
    ("UserPromptSubmit", {"cwd": "/", "prompt": "SECRET-PROMPT"}, "bad_session_id"),
    ("UserPromptSubmit", {"session_id": "../../etc", "cwd": "/", "prompt": "x"},
     "bad_session_id"),
    ("UserPromptSubmit", {"session_id": "S", "cwd": "relative/dir", "prompt": "x"}, "bad_cwd"),
    ("UserPromptSubmit", {"session_id": "S", "cwd": "/no/such/dir", "prompt": "x"}, "bad_cwd"),
    ("UserPromptSubmit", {"session_id": "S", "cwd": "P", "prompt": 42}, "bad_prompt"),
    ("UserPromptSubmit", {"session_id": "S", "cwd": "P", "hook_event_name": "SessionEnd",
                          "prompt": "x"}, "event_mismatch"),
    ("Notification", {"session_id": "S", "cwd": "P"}, "unknown_event"),
])
def test_bad_input_never_blocks_and_is_logged_without_content(
        home: Path, project: Path, sid: str, event: str, body: object, code: str) -> None:
    if isinstance(body, dict):
        body = {k: (sid if v == "S" else str(project) if v == "P" else v)
                for k, v in body.items()}
        raw = json.dumps(body).encode()
    else:
        raw = body  # type: ignore[assignment]
    result = hook(home, event, None, raw=raw)
    assert (result.returncode, result.stdout) == (0, "")
    log = (home / "logs" / "waymarks.jsonl").read_text()
    assert json.loads(log.splitlines()[-1])["code"] == code
    assert "SECRET-PROMPT" not in log and not (home / "sessions").exists()


def start_with_helper(home: Path, project: Path, sid: str, idle: str = "5") -> Path:
    """A SessionStart that starts the helper (idle for ``idle`` seconds, it exits); its
    socket once it listens."""
    hook(home, "SessionStart", payload(sid, project, "SessionStart"), helper=True, idle=idle)
    return helper_socket(home)


def helper_socket(home: Path) -> Path:
    """The helper's socket, once the helper started in the background answers (it stays
    while the helper idles: its idle time starts once it listens). Its path is there from
    its bind, before it listens: a hook sent then was refused and ran in its own process
    (tests/hosts/test_cc_helper_idle.py reproduces it)."""
    socket = Path(cc_client.socket_path(home))
    deadline = time.monotonic() + 60  # a loaded machine (the suite on both cores) is slow
    while cc_client._ask(home, "ping", b"") is None and time.monotonic() < deadline:
        time.sleep(0.05)
    return socket


@pytest.mark.slow
def test_the_warm_helper_answers_the_same_and_stops_when_idle(home: Path, project: Path,
                                                              sid: str) -> None:
    socket = start_with_helper(home, project, sid)
    assert socket.exists() and oct(socket.stat().st_mode & 0o777) == "0o600"
    with Waymarks(home, cwd=str(project), session=sid) as app:
        app.pin("Prefer small commits")
    answers = [hook(home, "UserPromptSubmit", payload(sid, project, "UserPromptSubmit",
                                                      prompt=f"commit {n}"), helper=True)
               for n in range(3)]
    assert all('"Prefer small commits"' in
               json.loads(a.stdout)["hookSpecificOutput"]["additionalContext"] for a in answers)
    bad = hook(home, "UserPromptSubmit", None, raw=b"{broken", helper=True)
    assert (bad.returncode, bad.stdout) == (0, "")
    prompts = [e["message"]["content"][0]["text"] for e in ledger(home, project, sid)
               if e["type"] == "message"]
    assert prompts == ["commit 0", "commit 1", "commit 2"]
    for _ in range(200):  # idle for 5 s: the helper exits and removes its socket
        if not socket.exists():
            break
        time.sleep(0.05)
    assert not socket.exists()


@pytest.mark.slow
def test_mcp_follows_the_hooks_session_and_the_prompt_is_provenance(
        home: Path, project: Path, sid: str) -> None:
    hook(home, "SessionStart", payload(sid, project, "SessionStart"))
    hook(home, "UserPromptSubmit", payload(sid, project, "UserPromptSubmit",
                                           prompt="remember: staging uses port 5433"))
    prompt_entry = ledger(home, project, sid)[-1]["id"]
    added = memory_add_over_mcp(str(home), str(project), "Staging uses port 5433",
                                dict(os.environ))
    assert added["outcome"] == "committed"
    with Waymarks(home, cwd=str(project), session=sid) as app:
        [memory] = app.items("memory")
    assert memory.source_entry_ids == (prompt_entry,)


OTHER_SETTINGS = {
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo hi"}]}],
              "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command",
                                                              "command": "fmt"}]}]},
}
OTHER_MCP = {"mcpServers": {"github": {"command": "gh-mcp", "args": []}}}


@pytest.mark.parametrize("scope", ["project", "user"])
def test_install_merges_is_idempotent_and_uninstall_restores(tmp_path: Path, scope: str,
                                                             home: Path) -> None:
    project, user = tmp_path / "p", tmp_path / "u"
    settings_path, mcp_path = cc.files(scope, project, user)  # type: ignore[arg-type]
    settings_path.parent.mkdir(parents=True)
    mcp_path.parent.mkdir(parents=True, exist_ok=True)
    settings_path.write_text(json.dumps(OTHER_SETTINGS))
    mcp_path.write_text(json.dumps(OTHER_MCP, indent=4))  # a layout of its own: kept exactly
    before = {p: p.read_bytes() for p in (settings_path, mcp_path)}
    changes = cc.install(scope, project, user, home)  # type: ignore[arg-type]
    assert {str(c.path) for c in changes} == {str(settings_path), str(mcp_path)}
    settings = json.loads(settings_path.read_text())
    assert settings["permissions"] == OTHER_SETTINGS["permissions"]
    # the person's own PostToolUse group stays first and unchanged; ours follows it
    assert settings["hooks"]["PostToolUse"][:1] == OTHER_SETTINGS["hooks"]["PostToolUse"]
    assert "hook claude-code PostToolUse" in \
        settings["hooks"]["PostToolUse"][1]["hooks"][0]["command"]
    assert "PostToolUseFailure" in settings["hooks"]
    prompt_hooks = [h["command"] for g in settings["hooks"]["UserPromptSubmit"]
                    for h in g["hooks"]]
    assert prompt_hooks[0] == "echo hi" and "hook claude-code UserPromptSubmit" in prompt_hooks[1]
    assert cc.hook_argv(prompt_hooks[1])[:4] == [sys.executable, "-I", "-S",
                                                str(cc.hook_entry())]
    assert set(json.loads(mcp_path.read_text())["mcpServers"]) == {"github", "waymarks"}
    assert Path(str(settings_path) + ".waymarks-backup").exists()
    assert cc.install(scope, project, user, home) == []  # type: ignore[arg-type]
    removed = cc.uninstall(scope, project, user)  # type: ignore[arg-type]
    assert len(removed) == 2
    assert {p: p.read_bytes() for p in before} == before  # byte for byte, as it was
    assert not list(tmp_path.rglob("*.waymarks-backup"))
    assert cc.uninstall(scope, project, user) == []  # type: ignore[arg-type]


def test_uninstall_keeps_what_changed_since_install_and_drops_the_backup(
        tmp_path: Path, home: Path) -> None:
    project, user = tmp_path / "p", tmp_path / "u"
    settings_path, mcp_path = cc.files("project", project, user)
    settings_path.parent.mkdir(parents=True)
    mcp_path.write_text(json.dumps(OTHER_MCP))
    cc.install("project", project, user, home)
    edited = json.loads(mcp_path.read_text())
    edited["mcpServers"]["linear"] = {"command": "linear-mcp"}  # the person added one
    mcp_path.write_text(json.dumps(edited))
    cc.uninstall("project", project, user, home)
    assert json.loads(mcp_path.read_text()) == {
        "mcpServers": {**OTHER_MCP["mcpServers"], "linear": {"command": "linear-mcp"}}}
    assert not settings_path.exists() and settings_path.parent.is_dir()  # it was there
    assert not list(tmp_path.rglob("*.waymarks-backup"))


def test_install_into_nothing_and_out_again_leaves_nothing(tmp_path: Path, home: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    cc.install("project", project, tmp_path / "u", home)
    cc.uninstall("project", project, tmp_path / "u", home)
    assert list(project.iterdir()) == []  # no `{}` files, no backups, no empty .claude/


def test_install_refuses_broken_or_foreign_files_and_changes_nothing(tmp_path: Path,
                                                                   home: Path) -> None:
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    settings = project / ".claude" / "settings.json"
    settings.write_text("{ not json")
    with pytest.raises(cc.InstallError, match="not valid JSON"):
        cc.install("project", project, tmp_path / "u", home)
    assert settings.read_text() == "{ not json" and not (project / ".mcp.json").exists()
    settings.write_text("{}")
    (project / ".mcp.json").write_text(json.dumps(
        {"mcpServers": {"waymarks": {"command": "something-else"}}}))
    with pytest.raises(cc.InstallError, match="not Waymarks"):
        cc.install("project", project, tmp_path / "u", home)
    assert settings.read_text() == "{}"


@pytest.mark.slow
def test_install_and_uninstall_from_the_cli(tmp_path: Path, home: Path, project: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path)}
    run = [str(WAYMARKS), "--home", str(home), "--cwd", str(project), "--json", "claude-code"]
    installed = json.loads(subprocess.run([*run, "install"], env=env, capture_output=True,
                                          text=True, check=True).stdout)
    assert {c["file"] for c in installed["changes"]} == {
        str(project / ".claude" / "settings.json"), str(project / ".mcp.json")}
    removed = json.loads(subprocess.run([*run, "uninstall"], env=env, capture_output=True,
                                        text=True, check=True).stdout)
    assert len(removed["changes"]) == 2
    assert sorted(p.name for p in project.iterdir()) == []  # what install wrote, and no more


def claude_code() -> list[str] | None:
    """The real Claude Code from npm, installed on first use (``None`` without npm)."""
    prefix = Path(os.environ.get("WAYMARKS_CC_CACHE") or
                  Path(__file__).resolve().parents[2] / ".cache" / "claude-code")
    cli = prefix / "node_modules" / ".bin" / "claude"
    npm = shutil.which("npm")
    if npm is None and not cli.exists():
        return None

    def run_npm() -> None:
        subprocess.run([str(npm), "install", "--prefix", str(prefix), "--no-audit", "--no-fund",
                        "--loglevel", "error", "@anthropic-ai/claude-code@2.1.197"],
                       check=True, timeout=900, capture_output=True)

    install_once(prefix.parent / "claude-code.lock", cli.exists, run_npm)
    return [str(cli)]


@pytest.mark.slow
def test_the_real_claude_code_sends_the_pinned_block(tmp_path: Path, home: Path,
                                                     project: Path) -> None:
    command = claude_code()
    assert command is not None, "npm is needed to install Claude Code for this test"
    user_home = tmp_path / "user"
    user_home.mkdir()
    cc.install("project", project, user_home, home)
    with FakeAnthropic("Bonjour") as fake:
        env = {**os.environ, "HOME": str(user_home), "ANTHROPIC_BASE_URL": fake.base_url,
               "ANTHROPIC_API_KEY": "sk-ant-test-0000", "DISABLE_TELEMETRY": "1",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
               "WAYMARKS_CC_HELPER": "off"}
        first = subprocess.run([*command, "-p", "hello", "--output-format", "json"],
                               cwd=project, env=env, capture_output=True, text=True,
                               timeout=180)
        assert first.returncode == 0, first.stderr[-2000:]
        session_id = json.loads(first.stdout)["session_id"]
        with Waymarks(home, cwd=str(project), session=session_id) as app:
            app.pin("Always answer in French")
        second = subprocess.run([*command, "-p", "--resume", session_id, "which language?",
                                 "--output-format", "json"], cwd=project, env=env,
                                capture_output=True, text=True, timeout=180)
        assert second.returncode == 0, second.stderr[-2000:]
    sent = json.dumps(fake.bodies[-1], ensure_ascii=False)
    assert PIN_BEGIN in sent and "Always answer in French" in sent
    assert PIN_BEGIN not in json.dumps(fake.bodies[0], ensure_ascii=False)
    prompts = [e["message"]["content"][0]["text"] for e in ledger(home, project, session_id)
               if e["type"] == "message"]
    assert prompts == ["hello", "which language?"]


@pytest.mark.slow
def test_the_session_stays_one_ledger_when_claude_changes_directory(
        home: Path, project: Path, sid: str) -> None:
    sub = project / "src"
    sub.mkdir()
    env_project = {"CLAUDE_PROJECT_DIR": str(project)}
    hook_env(home, "SessionStart", payload(sid, project, "SessionStart"), env_project)
    with Waymarks(home, cwd=str(project), session=sid) as app:
        app.pin("Pinned at the root")
    moved = hook_env(home, "UserPromptSubmit",
                     payload(sid, sub, "UserPromptSubmit", prompt="now in src"), env_project)
    assert '"Pinned at the root"' in json.loads(moved.stdout)["hookSpecificOutput"][
        "additionalContext"]
    assert len(list((home / "sessions").rglob(f"*_{sid}.jsonl"))) == 1


def hook_env(home: Path, event: str, body: object,
             extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WAYMARKS_CC_HELPER": "off", **extra}
    done = subprocess.run([str(WAYMARKS), "--home", str(home), "hook", "claude-code", event],
                          input=json.dumps(body).encode(), env=env, capture_output=True,
                          timeout=60)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(),
                                       done.stderr.decode())


@pytest.mark.slow
def test_a_non_utf8_locale_cannot_break_the_hook(home: Path, project: Path, sid: str) -> None:
    hook(home, "SessionStart", payload(sid, project, "SessionStart"))
    with Waymarks(home, cwd=str(project), session=sid) as app:
        app.pin("Uses an em dash — here")
    result = hook_env(home, "UserPromptSubmit",
                      payload(sid, project, "UserPromptSubmit", prompt="go"),
                      {"PYTHONIOENCODING": "ascii", "LANG": "C", "LC_ALL": "C"})
    assert result.returncode == 0
    assert "em dash" in json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]


def test_nothing_in_the_project_runs_in_the_helper(home: Path, project: Path, sid: str,
                                                  tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    for name in ("socket.py", "json.py", "datetime.py"):
        (project / name).write_text(f"open({str(marker)!r}, 'w').close()\n")
    # idle 15 s, not 2: the helper's idle time starts once it listens, and at CI's load the
    # test's first ping could come after a 2-second helper had already ended
    env = {**os.environ, "WAYMARKS_CC_HELPER": "on", "WAYMARKS_CC_HELPER_IDLE": "15"}
    subprocess.run([str(WAYMARKS), "--home", str(home), "hook", "claude-code", "SessionStart"],
                   input=json.dumps(payload(sid, project, "SessionStart")).encode(),
                   cwd=project, env=env, capture_output=True, timeout=60, check=True)
    # (it waited 5 s: a race with CI's load, where a Python process takes seconds to start)
    assert helper_socket(home).exists() and not marker.exists()


def test_install_keeps_modes_links_and_the_first_backup(tmp_path: Path, home: Path) -> None:
    user = tmp_path / "u"
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (user / ".claude").mkdir(parents=True)
    real_settings = dotfiles / "settings.json"
    real_settings.write_text(json.dumps(OTHER_SETTINGS))
    (user / ".claude" / "settings.json").symlink_to(real_settings)
    private = user / ".claude.json"
    private.write_text(json.dumps({"oauthAccount": "x", **OTHER_MCP}))
    private.chmod(0o600)
    cc.install("user", tmp_path / "p", user, home)
    assert (user / ".claude" / "settings.json").is_symlink()
    assert "hook claude-code" in real_settings.read_text()
    assert oct(private.stat().st_mode & 0o777) == "0o600"
    cc.uninstall("user", tmp_path / "p", user)
    cc.install("user", tmp_path / "p", user, home)
    backup = user / ".claude.json.waymarks-backup"
    assert json.loads(backup.read_text()) == {"oauthAccount": "x", **OTHER_MCP}


@pytest.mark.slow
def test_a_failure_inside_the_helper_records_the_prompt_once(home: Path, project: Path,
                                                             sid: str) -> None:
    assert start_with_helper(home, project, sid).exists()
    hook(home, "UserPromptSubmit", payload(sid, project, "UserPromptSubmit", prompt="first"),
         helper=True)  # the helper holds the session warm: the prompt is recorded first
    # the plan fails (an unusable configuration file or trust list is answered with a
    # message: test_cc_bad_config); a database held past the hook's wait is a failure
    with held(home):
        result = hook(home, "UserPromptSubmit",
                      payload(sid, project, "UserPromptSubmit", prompt="only once"),
                      helper=True)
    assert (result.returncode, result.stdout) == (0, "")
    prompts = [e for e in ledger(home, project, sid) if e["type"] == "message"]
    assert [p["message"]["content"][0]["text"] for p in prompts] == ["first", "only once"]


@contextlib.contextmanager
def held(home: Path) -> Any:
    """The home's database held by another writer past a hook's wait (1 s): the plan
    fails inside the helper (an unusable trust list, which these tests used, is answered
    with a message since a review)."""
    holder = sqlite3.connect(home / "waymarks.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        holder.execute("COMMIT")
        holder.close()


def _helper_pid(home: Path) -> int:
    """The process of the helper serving ``home``."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if str(home).encode() in argv and any(b"cc_helper" in a for a in argv):
            return int(pid)
    raise AssertionError("no helper serves this home")


@pytest.mark.slow  # seven hooks, each a process
def test_apps_dropped_after_a_failure_inside_the_helper_are_closed(
        home: Path, project: Path, sid: str) -> None:
    """After a failure the helper starts clean: it dropped every warm ``Waymarks``
    without closing it, each holding its database connection until the collector
    happened to find it (never, for those its heap settling had frozen). A typo in
    ``config.toml`` while Claude Code runs failed every prompt (one is answered with a
    message now, and so is an unreadable trust list; a database held by another writer
    still fails them): a connection leaked per prompt for as long as it lasted."""
    # the same helper serves every hook only if none comes after it idled: 5 s, less than
    # a hook process may take to start at CI's load; 600 s a hang alone exceeds (the
    # helper is ended below, the one process the test started)
    assert start_with_helper(home, project, sid, idle="600").exists()
    helper = _helper_pid(home)
    try:
        _prompts_through_a_failure(home, project, sid, helper)
    finally:
        with contextlib.suppress(ProcessLookupError):  # (ended already: a failure said)
            os.kill(helper, signal.SIGTERM)


def _prompts_through_a_failure(home: Path, project: Path, sid: str, helper: int) -> None:
    """Seven prompts through the one ``helper``: its database connections as they go."""

    def connections() -> int:
        found = 0
        for fd in os.listdir(f"/proc/{helper}/fd"):
            with contextlib.suppress(OSError):
                found += os.readlink(f"/proc/{helper}/fd/{fd}") == str(home / "waymarks.db")
        return found

    def prompt(text: str) -> None:
        done = hook(home, "UserPromptSubmit", payload(sid, project, "UserPromptSubmit",
                                                      prompt=text), helper=True, idle="600")
        assert (done.returncode, done.stdout) == (0, "")

    prompt("first")
    assert connections() == 1  # the session's warm app
    with held(home):
        for n in range(3):
            prompt(f"fails {n}")  # the plan fails: answered with nothing
        assert connections() == 0
    prompt("works again")  # the database is free again
    assert connections() == 1
    assert _helper_pid(home) == helper  # the same helper served them all


@pytest.mark.slow
def test_the_helper_answers_from_a_home_past_the_socket_address_limit(
        tmp_path: Path, project: Path, sid: str) -> None:
    """A socket address holds at most 107 bytes: a deep home (here 150 bytes of socket
    path) once made every hook quietly run without the helper."""
    home = tmp_path / ("h" * max(1, 150 - len(str(tmp_path / "claude-code/helper.sock"))))
    assert len(str(home / "claude-code" / "helper.sock")) > 107
    socket = start_with_helper(home, project, sid)
    assert socket.exists()
    with Waymarks(home, cwd=str(project), session=sid) as app:
        app.pin("Prefer small commits")
    answer = hook(home, "UserPromptSubmit",
                  payload(sid, project, "UserPromptSubmit", prompt="commit"), helper=True)
    context = json.loads(answer.stdout)["hookSpecificOutput"]["additionalContext"]
    assert '"Prefer small commits"' in context
    assert socket.exists(), "the helper is still the one listening"


@pytest.mark.slow
def test_a_repeated_prompt_is_recorded_each_time_and_the_pointer_written_only_on_change(
        home: Path, project: Path, sid: str) -> None:
    """The person saying the same thing again moments later ("yes", "yes") is a new turn:
    it was taken for a retried hook and dropped (a hook done twice, by a stalled helper
    and its own process, is told apart by the hook's start: test_cc_helper_stalled)."""
    from waymarks.hosts.claude_code import TWIN_HOOK_MS, current_session_id, pointer_path

    prompt = "Which port does staging use?\nAnd the second line."
    for turn in range(2):  # the same prompt again, from the next hook, after a model turn
        if turn:
            time.sleep(TWIN_HOOK_MS / 1000 + 0.2)  # (a turn: nothing is that quick)
        done = hook(home, "UserPromptSubmit", payload(sid, project, "UserPromptSubmit",
                                                      prompt=prompt))
        assert done.returncode == 0 and done.stderr == ""
    users = [e for e in ledger(home, project, sid) if e["type"] == "message"]
    assert [u["message"]["content"][0]["text"] for u in users] == [prompt, prompt]
    assert users[0]["id"] != users[1]["id"]
    pointer = pointer_path(home, str(project))
    written = pointer.stat().st_ino
    hook(home, "UserPromptSubmit", payload(sid, project, "UserPromptSubmit", prompt="Next"))
    assert pointer.stat().st_ino == written  # already right: not rewritten
    users = [e for e in ledger(home, project, sid) if e["type"] == "message"]
    assert [u["message"]["content"][0]["text"] for u in users] == [prompt, prompt, "Next"]
    other = str(uuid.uuid4())
    hook(home, "SessionStart", payload(other, project, "SessionStart", source="startup"))
    assert current_session_id(home, str(project)) == other
    assert pointer.stat().st_ino != written and sorted(
        p.name for p in pointer.parent.iterdir()
        if not p.name.startswith("pid-")) == [pointer.name]  # no temporary left


@pytest.mark.slow
def test_the_installed_command_runs_from_an_editable_install(tmp_path: Path, home: Path,
                                                            project: Path, sid: str) -> None:
    """This checkout is installed editable (its ``src`` reached through a path file,
    which ``-S`` does not read): the command ``install`` writes runs the hook in its
    own process without the helper (the site directories added first), as the console
    script does, with ``--json`` too wherever the console script's hook path takes it; a
    request that is not a hook is refused with the fix, changing nothing, and never with
    exit 2 (Claude Code blocks the tool call or prompt on a hook's exit 2)."""
    cc.install("project", project, tmp_path / "u", home)
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    command = {event: settings["hooks"][event][0]["hooks"][0]["command"]
               for event in ("SessionStart", "UserPromptSubmit")}
    assert str(cc.hook_entry()).startswith(str(Path(__file__).resolve().parents[2] / "src"))
    env = {**os.environ, "WAYMARKS_CC_HELPER": "off"}

    def run(event: str, data: dict[str, Any]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["sh", "-c", suite_command(command[event])],
                              input=json.dumps(data), env=env, cwd=project,
                              capture_output=True, text=True, timeout=60)

    assert run("SessionStart", payload(sid, project, "SessionStart")).returncode == 0
    with Waymarks(home, cwd=str(project), session=sid) as app:
        app.pin("Always run the linters")
    done = run("UserPromptSubmit", payload(sid, project, "UserPromptSubmit", prompt="lint"))
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert '"Always run the linters"' in context
    python = cc.hook_argv(command["SessionStart"])[:4]  # the interpreter, -I -S, launcher
    python[1:1] = suite_bytecode()  # (not into the checkout's src)
    prompt = json.dumps(payload(sid, project, "UserPromptSubmit", prompt="lint again"))
    for options in (["--json", "--home", str(home)], ["--home", str(home), "--json"]):
        json_form = subprocess.run([*python, *options, "hook", "claude-code",
                                    "UserPromptSubmit"], input=prompt, env=env, cwd=project,
                                   capture_output=True, text=True, timeout=60)
        assert json_form.returncode == 0, (options, json_form.stderr)
        assert '"Always run the linters"' in json.loads(json_form.stdout)[
            "hookSpecificOutput"]["additionalContext"]
    before = sorted((str(p), p.stat().st_size) for p in home.rglob("*") if p.is_file())
    for line in (["--home", str(home), "pins"], ["--json", "hook", "claude-code", "Stop"],
                 ["--home", str(home), "hook", "claude-code"],
                 ["--home", str(home), "hook", "claude-code", "Stop", "--json"]):
        wrong = subprocess.run([*python, *line], input="{}", env=env, cwd=project,
                               capture_output=True, text=True, timeout=60)
        assert wrong.returncode == 1, (line, wrong.returncode, wrong.stderr)
        assert "waymarks claude-code install" in wrong.stderr and wrong.stdout == ""
    assert sorted((str(p), p.stat().st_size) for p in home.rglob("*") if p.is_file()) == before


@pytest.mark.slow
def test_a_prompt_whose_transcript_is_a_fifo_or_a_device_answers_at_once(
        home: Path, project: Path, sid: str, tmp_path: Path) -> None:
    """The prompt hook read the transcript's tail for the model's limits with a plain
    open and read: a FIFO blocked it for ever, /dev/zero grew it by gigabytes."""
    fifo = tmp_path / "transcript.fifo"
    os.mkfifo(fifo)
    for transcript in (str(fifo), "/dev/zero", str(tmp_path)):
        done = hook(home, "UserPromptSubmit", payload(sid, project, "UserPromptSubmit",
                                                       prompt="hello there",
                                                       transcript_path=transcript))
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("raw", [b"{", b'{"a"', b'{"a":1', b'"x', b"{" + b" " * 4_200_000])
def test_a_stop_with_an_unterminated_payload_exits_quietly(home: Path, raw: bytes) -> None:
    """With learning on, the Stop hook parses its payload with the C scanner before any
    json module is imported: Python 3.11 then raised SystemError for an unterminated
    string or object, and the hook printed a traceback and exited 1."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    done = hook(home, "Stop", None, raw=raw)
    assert (done.returncode, done.stdout) == (0, "") and "Traceback" not in done.stderr


@pytest.mark.slow
def test_the_helper_keeps_a_bounded_number_of_sessions_warm(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A session whose ``SessionEnd`` never came (Claude Code killed, its terminal closed)
    kept its ``Waymarks`` open in the helper for as long as the helper ran: a connection
    (two descriptors) and a recall index each, without bound, until the helper ran out of
    descriptors. The least recently served are closed past ``WARM_APPS``."""
    from waymarks.hosts import cc_helper

    monkeypatch.setenv("WAYMARKS_CC_HELPER", "off")
    apps: dict[tuple[str, str], Any] = {}

    def prompt(session_id: str, text: str) -> Waymarks:
        raw = json.dumps(payload(session_id, project, "UserPromptSubmit", prompt=text))
        cc_helper._answer("UserPromptSubmit", raw.encode(), home, apps, str(project))
        return apps[(str(project), session_id)]

    first = str(uuid.uuid4())
    served = [prompt(first, "commit 0")]
    descriptors = len(os.listdir("/proc/self/fd"))
    for n in range(20):  # sessions that never end
        served.append(prompt(str(uuid.uuid4()), f"commit {n}"))
        if n == 2:
            assert prompt(first, "commit again") is served[0]  # served last: kept warm
    assert len(apps) < len(served), "every session that never ended is still open"
    assert len(apps) == cc_helper.WARM_APPS == 16
    assert (str(project), first) not in apps  # the least recently served are closed
    assert [app for app in served if app._projection is None] == [served[0], *served[1:5]]
    assert len(os.listdir("/proc/self/fd")) <= descriptors + 2 * cc_helper.WARM_APPS


@pytest.mark.slow
@pytest.mark.parametrize("helper", [False, True], ids=["in-process", "helper"])
def test_two_windows_on_one_project_each_write_into_their_own_session(
        home: Path, project: Path, helper: bool) -> None:
    """A review: with two Claude Code sessions open in one project, the MCP server acted
    on the session of whichever window ran the last hook, so a memory the person added
    in one window went into the other's session. Each server now acts on the session its
    own Claude Code's hooks noted (its parent process)."""
    window = [sys.executable, str(Path(__file__).parent / "fake_cc_window.py"), str(home),
              str(project)]
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    extra = ["helper"] if helper else []
    a = subprocess.Popen([*window, first, "Deploys happen on Fridays", *extra],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert a.stdout is not None and a.stdout.readline().strip() == "ready"
        b = subprocess.run([*window, second, "The cache holds 500 rows", *extra],
                           input="\n", capture_output=True, text=True, timeout=120)
        assert b.returncode == 0, b.stderr
        assert json.loads(b.stdout.splitlines()[-1])["outcome"] == "committed"
        out, _ = a.communicate("\n", timeout=120)
    finally:
        a.kill()
    assert json.loads(out.splitlines()[-1])["outcome"] == "committed"
    with Waymarks(home, cwd=str(project), session=first) as app:
        assert [m.text for m in app.items("memory")] == ["Deploys happen on Fridays"]
    with Waymarks(home, cwd=str(project), session=second) as app:
        assert [m.text for m in app.items("memory")] == ["The cache holds 500 rows"]


def test_one_prompt_hooked_from_two_scopes_is_recorded_once(home: Path, project: Path,
                                                            sid: str) -> None:
    """A re-read: with the 30 s text-and-age rule gone, one prompt whose hook Claude Code
    runs from two install scopes at once was recorded twice whenever the hook a warm
    helper answered recorded it before the other's process had taken its start time."""
    from waymarks.hosts.claude_code import handle
    from waymarks.service.ports import epoch_ms

    body = payload(sid, project, "UserPromptSubmit", prompt="tag release 2")
    handle("UserPromptSubmit", body, home, project=str(project))
    recorded = [e for e in ledger(home, project, sid) if e["type"] == "message"]
    assert len(recorded) == 1
    # the other scope's hook, its process started just after the first recorded
    later = epoch_ms(datetime.fromisoformat(recorded[0]["timestamp"])) + 500
    handle("UserPromptSubmit", body, home, project=str(project), started_ms=later)
    users = [e for e in ledger(home, project, sid) if e["type"] == "message"]
    assert [u["id"] for u in users] == [recorded[0]["id"]]
