"""The REAL Claude Code learns (issue 17, "Done means" item 2): the ``claude`` binary from npm,
installed with Waymarks' hooks, talks to a loopback fake Anthropic server. Session 1 in
directory A states a preference; its ``Stop`` hook captures it (no model call);
``waymarks evolve`` consolidates it through the home's configured Anthropic-compatible
provider (the same fake, which answers the consolidation request with a valid reply);
session 2 in directory B asks about it, and the request the real ``claude`` sends carries
the learned claim inside its provisional block, after nothing a person confirmed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.fake_anthropic import _events, _message
from tests.hosts.fake_server import LoopbackServer, QuietHandler
from tests.hosts.test_claude_code import claude_code
from waymarks.core.evolution.request import SYSTEM as CONSOLIDATION_SYSTEM
from waymarks.core.secrets import redact
from waymarks.hosts import claude_code_install as cc
from waymarks.planner.learned import LEARNED_BEGIN, LEARNED_END

LEARNED = "The person prefers pnpm over npm for every package"
TOKEN = "ghp_" + "c" * 36
PROVIDER_KEY = "sk-ant-evolve-" + "p" * 24
CONSOLIDATION_MARK = CONSOLIDATION_SYSTEM[:60]


class LearningAnthropic:
    """The loopback Anthropic Messages stand-in, answering a consolidation request (its
    system prompt is Waymarks') with a valid consolidation reply, anything else (the real
    Claude Code's turns) with a short text, streamed when asked."""

    def __init__(self) -> None:
        self.turns: list[dict[str, Any]] = []
        self.consolidations: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        fake = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                self.send_json(200, {"data": [], "has_more": False})

            def do_POST(self) -> None:
                body = self.read_json()
                if not self.path.split("?")[0].endswith("/v1/messages"):
                    self.send_json(200, {})
                    return
                if CONSOLIDATION_MARK in json.dumps(body.get("system", ""),
                                                    ensure_ascii=False):
                    fake.consolidations.append(body)
                    fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                    answer = json.dumps({"claims": [{
                        "kind": "preference", "content": LEARNED,
                        "searchTerms": ["pnpm", "package manager", "npm"]}]})
                    self.send_json(200, _message(answer, body))
                    return
                fake.turns.append(body)
                if not body.get("stream"):
                    self.send_json(200, _message("Noted.", body))
                    return
                self.send_events(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
                                 for name, data in _events("Noted.", body))

        self.http = LoopbackServer(Handler)

    @property
    def base_url(self) -> str:
        return self.http.origin

    def __enter__(self) -> LearningAnthropic:
        self.http.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.stop()


def _waymarks(home: Path, cwd: Path, *args: str, env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--json", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(json.loads(done.stdout))


def _what_happened(home: Path, user_home: Path, *seen: object) -> str:
    """What a failed run leaves to read: the answers, the home's files with the time each
    was last written (Claude Code writing its transcript after the Stop hook was found by
    the order of such times), the last capture decision and the evolution ledger, the
    event log and the transcripts Claude Code wrote (never shown when the test passes)."""
    def when(path: Path) -> str:  # when each was last written, to order what happened
        return f"modified {path.stat().st_mtime:.3f}"

    # a folder's time is when an entry was last added or removed (the spool's request)
    files = {str(p.relative_to(home)) + ("/" if p.is_dir() else ""): when(p)
             for p in sorted(home.rglob("*"))}
    log = home / "logs" / "waymarks.jsonl"
    transcripts = {str(p.relative_to(user_home)): [when(p), p.read_text(encoding="utf-8")[
        -3000:]] for p in (user_home / ".claude" / "projects").rglob("*.jsonl")}
    evolution = {name: (home / "evolution" / name).read_text(encoding="utf-8")[-3000:]
                 for name in ("last-capture.json", "ledger.jsonl")
                 if (home / "evolution" / name).is_file()}
    shown = json.dumps({"seen": seen, "files": files, "transcripts": transcripts,
                        "evolution": evolution,
                        "log": log.read_text(encoding="utf-8")[-6000:] if log.is_file()
                        else None}, indent=1, default=str)
    return redact(shown)[0]  # a CI log is read by people: the test's tokens stay out of it


@pytest.mark.slow
def test_the_real_claude_code_learns_a_preference_and_the_next_session_gets_it(
        tmp_path: Path, home: Path) -> None:
    command = claude_code()
    assert command is not None, "npm is needed to install Claude Code for this test"
    user_home = tmp_path / "user"
    a, b = tmp_path / "dir-a", tmp_path / "dir-b"
    for folder in (user_home, a, b):
        folder.mkdir()
    cc.install("user", a, user_home, home)  # the hooks in ~/.claude: every directory
    # without the MCP server: its recovery tick (15 s after it starts) would race
    # `waymarks evolve` for the one job on a slow machine; the hooks are what is tested
    user_config = user_home / ".claude.json"
    settings = json.loads(user_config.read_text(encoding="utf-8"))
    assert settings["mcpServers"].pop("waymarks")
    user_config.write_text(json.dumps(settings), encoding="utf-8")
    with LearningAnthropic() as fake:
        home.mkdir(exist_ok=True)
        (home / "config.toml").write_text(
            f'[evolution]\nlearn = true\nprovider = "anthropic"\napi = "anthropic"\n'
            f'endpoint = "{fake.base_url}"\nmodel = "claude-consolidate"\n'
            f'keyEnv = "EVO_CC_PROVIDER_KEY"\n', encoding="utf-8")
        env = {**os.environ, "HOME": str(user_home), "ANTHROPIC_BASE_URL": fake.base_url,
               "ANTHROPIC_API_KEY": "sk-ant-test-0000", "DISABLE_TELEMETRY": "1",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
               "WAYMARKS_CC_HELPER": "off", "EVO_CC_PROVIDER_KEY": PROVIDER_KEY}
        env.pop("PI_SUBAGENT_AGENT_ID", None)

        first = subprocess.run(
            [*command, "-p", f"From now on I prefer pnpm over npm for every package. "
             f"The registry token is {TOKEN}.", "--output-format", "json"],
            cwd=a, env=env, capture_output=True, text=True, timeout=180)
        assert first.returncode == 0, first.stderr[-2000:]
        assert fake.consolidations == []  # capture (the Stop hook) never calls a model
        assert fake.turns, "the real Claude Code made no request"
        session_one = json.dumps(fake.turns, ensure_ascii=False)
        assert LEARNED_BEGIN not in session_one

        status = _waymarks(home, a, "evolution", "status", env=env)
        assert status["learning"] is True and status["blocked"] is None
        attempt = _waymarks(home, a, "evolve", env=env)
        assert (attempt["outcome"], attempt["reason"]) == ("settled", "applied"), \
            _what_happened(home, user_home, attempt, status)
        assert (attempt["provider"], attempt["model"]) == ("anthropic", "claude-consolidate")
        [request] = fake.consolidations
        assert fake.headers[0].get("x-api-key") == PROVIDER_KEY
        sent = json.dumps(request, ensure_ascii=False)
        assert "pnpm" in sent  # the statement the Stop hook captured...
        assert TOKEN not in sent  # ...sanitized before it was stored or sent
        assert "Noted." not in sent  # assistant text is never a source
        assert request["model"] == "claude-consolidate" and not request.get("tools")

        turns_before = len(fake.turns)
        second = subprocess.run(
            [*command, "-p", "Which package manager should I use for this package?",
             "--output-format", "json"], cwd=b, env=env, capture_output=True, text=True,
            timeout=180)
        assert second.returncode == 0, second.stderr[-2000:]
        assert len(fake.consolidations) == 1  # the prompt path never calls a model
    asked = json.dumps(fake.turns[turns_before:], ensure_ascii=False)
    assert LEARNED_BEGIN in asked and LEARNED_END in asked
    begin = asked.index(LEARNED_BEGIN)
    assert begin < asked.index(LEARNED) < asked.index(LEARNED_END, begin)
    assert "PINNED CONTEXT" not in asked  # nothing confirmed here: only the learned block
    assert TOKEN not in asked and PROVIDER_KEY not in asked
    status = _waymarks(home, b, "evolution", "status", env=env)
    assert status["counts"]["settled"] == 1 and status["counts"]["pending"] == 0
    assert PROVIDER_KEY not in json.dumps(status)
