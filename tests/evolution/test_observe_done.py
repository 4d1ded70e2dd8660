"""Issue 19's done-means on real processes (slow): a real temporary git repository and a bare
remote; a work turn commits, then the push fails (the remote refuses every update: a
pre-receive hook, since file modes do not stop root); twelve later inspection calls do not
displace the commit and the failed push; the pending project_state claim is nominated and
updated by the loopback fake model to "committed, not pushed"; the next session's prompt
carries it.

This module drives Claude Code's hook entry points (``waymarks hook claude-code EVENT``,
the hook inputs Claude Code sends: tool_name, tool_input, tool_response, tool_use_id,
session_id, transcript_path, cwd) and ``waymarks evolve`` with a loopback
Anthropic-compatible model; ``test_observe_pi.py`` does the same through the real Pi."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.evolution.conftest import wait_for_captures, wait_for_decision
from tests.evolution.fake_provider import FakeProvider, anthropic_ok
from waymarks.core.evolution.model import claim_id
from waymarks.service.evolution_observe import last_capture

pytestmark = pytest.mark.slow

PENDING = "The shop login fix is not committed yet"
UPDATED = "The shop login fix is committed locally but not pushed: the push was rejected"
TOKEN = "ghp_" + "d" * 36


def git(repo: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                          timeout=60, env={**os.environ, "GIT_AUTHOR_NAME": "t",
                                           "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
                                           "GIT_COMMITTER_EMAIL": "t@e"})
    assert (done.returncode == 0) == ok, done.stdout + done.stderr
    return done


def make_repo(tmp: Path) -> tuple[Path, Path]:
    """A checkout ``shop`` whose ``origin`` is a bare repository that then refuses pushes."""
    remote, shop = tmp / "remote.git", tmp / "shop"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(remote))
    git(tmp, "init", "-q", "-b", "main", str(shop))
    (shop / "login.py").write_text("def login():\n    return False\n")
    git(shop, "add", "login.py")
    git(shop, "commit", "-q", "-m", "initial")
    git(shop, "remote", "add", "origin", str(remote))
    git(shop, "push", "-q", "origin", "main")
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'remote is read-only' >&2\nexit 1\n")
    hook.chmod(0o755)
    for path in remote.rglob("*"):  # read-only as well (for anyone but root)
        path.chmod(path.stat().st_mode & ~0o222)
    return remote, shop


def hook(home: Path, cwd: Path, event: str, payload: dict[str, Any]) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PI_SUBAGENT_AGENT_ID"}
    env.update({"WAYMARKS_CC_HELPER": "off", "CLAUDE_PROJECT_DIR": str(cwd)})
    done = subprocess.run(
        [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "hook",
         "claude-code", event], input=json.dumps({**payload, "hook_event_name": event}),
        env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def cli(home: Path, cwd: Path, *args: str, env: dict[str, str] | None = None
        ) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--json", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(json.loads(done.stdout))


def test_claude_code_hooks_learn_committed_not_pushed(tmp_path: Path) -> None:
    remote, shop = make_repo(tmp_path)
    home = tmp_path / "home"
    origin = str(shop.resolve())
    target = claim_id(origin, "project_state", PENDING)
    first = json.dumps({"claims": [{"kind": "project_state", "content": PENDING,
                                    "searchTerms": ["login fix", "shop"]}]})
    second = json.dumps({"claims": [{"kind": "project_state", "content": UPDATED,
                                     "replaces": target, "searchTerms": ["login fix"]}]})
    key = "sk-ant-obs-" + "k" * 24
    with FakeProvider([anthropic_ok(first), anthropic_ok(second)]) as fake:
        home.mkdir()
        (home / "config.toml").write_text(
            f'[evolution]\nlearn = true\nprovider = "anthropic"\napi = "anthropic"\n'
            f'endpoint = "{fake.origin}"\nmodel = "claude-test"\nkeyEnv = "OBS_KEY"\n',
            encoding="utf-8")
        env = {"OBS_KEY": key}
        cli(home, shop, "trust", str(shop))  # an untrusted project's work is not captured

        # an earlier session said where things stand: learned as a pending project state
        s0 = "0a0a0a0a-0a0a-4a0a-8a0a-0a0a0a0a0a0a"
        t0 = tmp_path / "t0.jsonl"
        t0.write_text(json.dumps({"type": "user", "uuid": "u0", "message": {
            "role": "user", "content": f"Remember: {PENDING}."}}) + "\n" + json.dumps(
            {"type": "assistant", "uuid": "a0", "message": {  # the turn's reply: written
                "role": "assistant", "content": [{"type": "text", "text": "Noted."}]}}) + "\n")
        hook(home, shop, "Stop", {"session_id": s0, "cwd": str(shop),
                                  "transcript_path": str(t0)})
        wait_for_captures(home)
        assert cli(home, shop, "evolve", env=env)["outcome"] == "settled"
        assert any(c["id"] == target for c in cli(home, shop, "learn", "list")["claims"])

        # the work turn, with the hook inputs Claude Code sends, around real git commands
        s1 = "1b1b1b1b-1b1b-4b1b-8b1b-1b1b1b1b1b1b"
        before = last_capture(home)
        base = {"session_id": s1, "cwd": str(shop), "transcript_path": str(tmp_path / "t1")}
        hook(home, shop, "SessionStart", {**base, "source": "startup"})
        hook(home, shop, "UserPromptSubmit", {**base, "prompt":
                                              "Fix the login bug in shop, commit it and push"})
        (shop / "login.py").write_text("def login():\n    return True\n")
        hook(home, shop, "PostToolUse", {**base, "tool_name": "Write", "tool_use_id": "tu_1",
                                         "tool_input": {"file_path": str(shop / "login.py"),
                                                        "content": "def login(): ..."},
                                         "tool_response": {"type": "update",
                                                           "filePath": str(shop / "login.py")}})
        commit = git(shop, "commit", "-am", "fix login")
        hook(home, shop, "PostToolUse", {**base, "tool_name": "Bash", "tool_use_id": "tu_2",
                                         "tool_input": {"command": f"cd {shop} && git commit "
                                                        "-am 'fix login'"},
                                         "tool_response": {"stdout": commit.stdout,
                                                           "stderr": commit.stderr,
                                                           "interrupted": False}})
        push = git(shop, "push", "origin", "main", ok=False)
        assert "read-only" in push.stderr
        hook(home, shop, "PostToolUseFailure", {
            **base, "tool_name": "Bash", "tool_use_id": "tu_3",
            "tool_input": {"command": f"git -C {shop} push origin main"},
            "error": f"Exit code 1\n{push.stderr}\ntoken {TOKEN}", "is_interrupt": False})
        for i in range(12):  # twelve later inspections
            shown = subprocess.run(["ls", "-la", str(shop)], capture_output=True, text=True)
            hook(home, shop, "PostToolUse", {**base, "tool_name": "Bash",
                                             "tool_use_id": f"tu_i{i}",
                                             "tool_input": {"command": f"ls -la {shop}"},
                                             "tool_response": {"stdout": shown.stdout,
                                                               "stderr": "",
                                                               "interrupted": False}})
        hook(home, shop, "PostToolUse", {**base, "tool_name": "mcp__waymarks__memory_recall",
                                         "tool_use_id": "tu_m", "tool_input": {"query": "x"},
                                         "tool_response": PENDING})
        transcript = tmp_path / "t1"
        transcript.write_text(json.dumps({"type": "assistant", "uuid": "a1", "message": {
            "role": "assistant", "content": [{"type": "text",
                                              "text": "Committed and pushed the fix."}]}})
            + "\n")
        hook(home, shop, "Stop", base)
        wait_for_decision(home, before=before)

        learning = cli(home, shop, "evolution", "learning")
        last = learning["lastCapture"]
        assert last["decision"] == "captured" and last["host"] == "claude-code"
        assert [t["id"] for t in last["targets"]] == [target]
        assert last["scan"]["linked"] == 15 and last["scan"]["retained"] == 8
        assert last["scan"]["omitted"] == 7
        assert PENDING not in json.dumps(learning)  # diagnostics carry no bodies
        assert fake.requests.__len__() == 1  # capture never calls a model

        attempt = cli(home, shop, "evolve", last["sourceId"], env=env)
        assert attempt["outcome"] == "settled", attempt
        request = fake.requests[-1]
        sent = json.dumps(request["body"])
        assert "A commit is not a push" in sent and TOKEN not in sent
        prompt = request["body"]["messages"][0]["content"]
        prompt = prompt if isinstance(prompt, str) else prompt[0]["text"]
        evidence = json.loads(prompt.split("\n", 1)[1])["source"]["evidence"]
        kinds = [(o["kind"], o["ok"]) for o in evidence["observations"]]
        assert kinds[:3] == [("write", True), ("commit", True), ("push", False)]
        assert "read-only" in evidence["observations"][2]["output"]
        assert len(kinds) == 8 and evidence["omitted"]["observations"] == 7
        assert evidence["resources"][0]["path"] == str(shop)
        status = cli(home, shop, "evolution", "status")
        assert status["learned"]["processed"] == 2 and status["learned"]["changed"] == 2

    # the next session's prompt carries the partial state
    s2 = "2c2c2c2c-2c2c-4c2c-8c2c-2c2c2c2c2c2c"
    hook(home, shop, "SessionStart", {"session_id": s2, "cwd": str(shop), "source": "startup"})
    out = hook(home, shop, "UserPromptSubmit", {"session_id": s2, "cwd": str(shop),
                                                "prompt": "Where is the shop login fix?"})
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert UPDATED in context and PENDING not in context
    assert "tool_observation/model" in context
    assert remote.is_dir()
