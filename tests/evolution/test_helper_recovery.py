"""EVOLUTION item 85 in the real Claude Code helper process, on its real 15 s timer, with
no user activity at all (no hook is ever sent to it): a failure persisted by an earlier
process is recovered, and so is a malformed model reply (answered by the one corrective
call naming the broken rule), through the home's configured route to a loopback fake
provider, with the real step (the evolution ledger) and the real queue (evolution.db)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.evolution.fake_provider import FakeProvider, openai_ok
from waymarks.service.evolution import Evolution
from waymarks.store.jobs import JobStore

BROKEN = json.dumps({"claims": [{"kind": "preference", "content": "Prefers tabs in Go",
                                 "confidence": 0.99}]})
GOOD = json.dumps({"claims": [{"kind": "preference", "content": "Prefers tabs in Go"}]})


def _states(home: Path, sources: list[str]) -> dict[str, tuple[str, int]]:
    store = JobStore.open(home)
    try:
        jobs = {s: store.job(s) for s in sources}
    finally:
        store.close()
    return {s: (j.state, j.failures) for s, j in jobs.items() if j is not None}


@pytest.mark.slow  # two checks of the real 15 s timer
def test_the_helper_recovers_a_persisted_failure_and_a_malformed_reply_unprompted(
        tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    origin = str(project.resolve())
    with Evolution(home) as evo:
        first = evo.capture(origin, "statement", "Remember: I prefer tabs for Go files",
                            session="s", key="a")
        second = evo.capture(origin, "statement", "Remember: the staging port is 5433",
                             session="s", key="b")
        assert first is not None and second is not None
        refs = evo.unsettled(5)
    sources = [first.source_id, second.source_id]
    store = JobStore.open(home)  # an earlier process failed on the first source
    store.add_jobs(refs, 0)
    lease = store.lease(first.source_id, "earlier-process", 0, 150_000)
    assert lease is not None
    assert store.fail(lease, "overloaded", 1, output=False, pause=False, retry_at=lambda n: 2)
    store.close()

    # whichever source goes first gets the malformed reply, then its correction succeeds
    with FakeProvider([openai_ok(BROKEN), openai_ok(GOOD), openai_ok(GOOD)]) as fake:
        (home / "config.toml").write_text(
            f'[evolution]\nlearn = true\nprovider = "openai"\napi = "openai"\n'
            f'endpoint = "{fake.origin}/v1"\nmodel = "m1"\n', encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k != "WAYMARKS_EVOLUTION_CHILD"}
        helper = subprocess.Popen(
            [sys.executable, "-I", "-m", "waymarks.hosts.cc_helper", str(home)],
            env={**env, "WAYMARKS_CC_HELPER_IDLE": "600"}, cwd=home,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 180  # a bound on waiting, not a timing assertion
            while _states(home, sources) != {sources[0]: ("settled", 1),
                                             sources[1]: ("settled", 0)}:
                assert helper.poll() is None, helper.communicate()[1][-2000:]
                assert time.monotonic() < deadline, (_states(home, sources),
                                                     len(fake.requests))
                time.sleep(0.25)
        finally:
            helper.send_signal(signal.SIGTERM)
            helper.wait(timeout=60)
        requests = fake.requests
    assert len(requests) == 3
    prompts = [str(r["body"]["messages"][-1]["content"]) for r in requests]
    assert "rule: host_only_field" in prompts[1] and "0.99" not in prompts[1]
    assert "rule:" not in prompts[2]
    with Evolution(home) as evo:
        assert evo.unsettled(5) == []
        assert [c.content for c in evo.claims(["provisional"])] == ["Prefers tabs in Go"]


def _learning_off_with_a_capture(tmp_path: Path, origin: str
                                 ) -> tuple[Path, Path, dict[str, str]]:
    """A home with learning off, its route the loopback provider at ``origin``, and a
    source captured earlier that waits for a model; the project, and the environment of
    the processes a test starts."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    with Evolution(home) as evo:
        assert evo.capture(str(project.resolve()), "statement",
                           "Remember: I prefer tabs for Go files", session="s", key="a")
    (home / "config.toml").write_text(
        f'[evolution]\nlearn = false\nprovider = "openai"\napi = "openai"\n'
        f'endpoint = "{origin}/v1"\nmodel = "m1"\n', encoding="utf-8")
    return home, project, {k: v for k, v in os.environ.items()
                           if k != "WAYMARKS_EVOLUTION_CHILD"}


def _learn_on_by_another_process(home: Path, project: Path, env: dict[str, str]) -> None:
    learn = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                            "learn", "on"], cwd=project, env=env, capture_output=True,
                           text=True, timeout=120)
    assert learn.returncode == 0, learn.stderr


def _until_called(fake: FakeProvider, process: subprocess.Popen[Any]) -> None:
    deadline = time.monotonic() + 60  # four times the tick's interval: a bound on waiting
    while not fake.requests:
        assert process.poll() is None
        assert time.monotonic() < deadline, "learning is on: the tick never ran"
        time.sleep(0.25)


@pytest.mark.slow  # one check of the real 15 s timer
def test_a_helper_started_with_learning_off_starts_its_tick_once_learning_is_turned_on(
        tmp_path: Path) -> None:
    """The helper lives as long as prompts keep coming. It started its recovery tick only
    if learning was on when it started: after ``waymarks learn on`` in a terminal beside
    a running Claude Code, captures were queued but nothing consolidated them until the
    helper happened to exit. The next hook it answers starts the tick now."""
    from waymarks.hosts.cc_client import _ask

    with FakeProvider(default=openai_ok(GOOD)) as fake:
        home, project, env = _learning_off_with_a_capture(tmp_path, fake.origin)
        helper = subprocess.Popen(
            [sys.executable, "-I", "-m", "waymarks.hosts.cc_helper", str(home)],
            env={**env, "WAYMARKS_CC_HELPER_IDLE": "600"}, cwd=home,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            prompt = json.dumps({"session_id": "0b9e3c52-5a57-4c47-9d0e-3f4b5b1c2d3e",
                                 "cwd": str(project), "hook_event_name": "UserPromptSubmit",
                                 "prompt": "hello"}).encode()
            deadline = time.monotonic() + 60  # a bound on waiting, not a timing assertion
            while _ask(home, "UserPromptSubmit", prompt) is None:  # it listens now
                assert helper.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
            _learn_on_by_another_process(home, project, env)
            assert _ask(home, "UserPromptSubmit", prompt) is not None
            _until_called(fake, helper)
        finally:
            helper.send_signal(signal.SIGTERM)
            helper.wait(timeout=60)


@pytest.mark.slow  # one check of the real 15 s timer
def test_an_mcp_server_started_with_learning_off_starts_its_tick_once_learning_is_on(
        tmp_path: Path) -> None:
    """``waymarks mcp`` lives as long as its client. Started with learning off, it never
    consolidated anything after ``waymarks learn on``; its next tool call starts the
    tick now."""
    import threading

    answers: list[bytes] = []
    with FakeProvider(default=openai_ok(GOOD)) as fake:
        home, project, env = _learning_off_with_a_capture(tmp_path, fake.origin)
        server = subprocess.Popen(
            [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "mcp"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd=project, env=env)
        assert server.stdin is not None and server.stdout is not None
        out = server.stdout
        reader = threading.Thread(target=lambda: answers.extend(iter(out.readline, b"")),
                                  daemon=True)
        reader.start()

        def send(*messages: dict[str, Any], expect: int) -> None:
            assert server.stdin is not None
            server.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
            server.stdin.flush()
            deadline = time.monotonic() + 120  # a bound on waiting, not an assertion
            while len(answers) < expect:
                assert time.monotonic() < deadline and server.poll() is None
                time.sleep(0.05)

        try:
            send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}}},
                {"jsonrpc": "2.0", "method": "notifications/initialized"}, expect=1)
            _learn_on_by_another_process(home, project, env)
            send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "memory_recall", "arguments": {"query": "tabs"}}}, expect=2)
            _until_called(fake, server)
        finally:
            server.stdin.close()
            server.wait(timeout=120)
            reader.join(timeout=30)


@pytest.mark.slow  # one check of the real 15 s timer
def test_an_mcp_http_server_runs_the_recovery_tick_as_the_stdio_one_does(
        tmp_path: Path) -> None:
    """``waymarks mcp --http`` lives as long as ``waymarks mcp`` does, but only the stdio
    server ran memory evolution's recovery tick: with learning on, a capture waiting for
    a model was never consolidated while a client used the HTTP server."""
    with FakeProvider(default=openai_ok(GOOD)) as fake:
        home, project, env = _learning_off_with_a_capture(tmp_path, fake.origin)
        _learn_on_by_another_process(home, project, env)
        with (home / "config.toml").open("a", encoding="utf-8") as config:
            config.write('\n[mcp]\ntoken = "test-token-0123456789abcdef"\n')
        (home / "config.toml").chmod(0o600)  # the token's file must be private
        server = subprocess.Popen(  # (no client connects: any free port will do)
            [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "mcp", "--http",
             "--port", "0"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, cwd=project, env=env)
        try:
            _until_called(fake, server)
            deadline = time.monotonic() + 60  # the reply is applied after the call returns
            while True:
                with Evolution(home) as evo:
                    learned = [c.content for c in evo.claims(["provisional"])]
                if learned or time.monotonic() > deadline:
                    break
                assert server.poll() is None, server.communicate()[1][-2000:]
                time.sleep(0.25)
        finally:
            server.terminate()
            server.wait(timeout=60)
    assert learned == ["Prefers tabs in Go"]
