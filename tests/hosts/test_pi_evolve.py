"""Memory evolution over the Pi bridge, on the real bridge process (``waymarks bridge``)
with a scripted extension: capture on ``agent_end``, ``evolve`` asking back ``complete``
(Pi's active model makes the call; no key anywhere), requests served meanwhile, failure
codes only, and the learned claim in a fresh bridge's plan in another directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TOKEN = "ghp_" + "p" * 36
HEADER = {"type": "session", "version": 3, "id": "51515151-5151-4151-8151-515151515151",
          "timestamp": "2026-11-30T10:00:00.000Z", "cwd": ""}
ANSWER = json.dumps({"claims": [{"kind": "preference", "content":
                                 "The person prefers pnpm over npm",
                                 "searchTerms": ["pnpm", "package manager"]}]})


def _entry(entry_id: str, parent: str | None, role: str, text: str) -> dict[str, Any]:
    return {"type": "message", "id": entry_id, "parentId": parent,
            "timestamp": "2026-11-30T10:00:01.000Z",
            "message": {"role": role, "content": [{"type": "text", "text": text}]}}


def _cli(home: Path, cwd: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--json", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(json.loads(done.stdout))


class Bridge:
    """The real bridge process, driven line by line the way the extension drives it."""

    def __init__(self, home: Path, cwd: Path, env: dict[str, str] | None = None) -> None:
        base = {k: v for k, v in os.environ.items() if k != "PI_SUBAGENT_AGENT_ID"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "bridge"],
            cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env={**base, **(env or {})})
        self.next = 0

    def send(self, method: str, params: dict[str, Any]) -> int:
        self.next += 1
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"id": self.next, "method": method,
                                          "params": params}) + "\n")
        self.proc.stdin.flush()
        return self.next

    def answer(self, request_id: str, result: Any) -> None:
        assert self.proc.stdin is not None
        body = ({"error": result["rpcError"]} if isinstance(result, dict) and "rpcError" in
                result else {"result": result})
        self.proc.stdin.write(json.dumps({"id": request_id, **body}) + "\n")
        self.proc.stdin.flush()

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, self.proc.stderr.read() if self.proc.stderr else "bridge closed"
        return dict(json.loads(line))

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        request_id = self.send(method, params)
        message = self.read()
        assert message.get("id") == request_id, message
        assert "result" in message, message
        return dict(message["result"])

    def close(self) -> None:
        try:
            self.call("shutdown", {})
        finally:
            self.proc.communicate(timeout=60)


def _initialize(bridge: Bridge, cwd: Path, session: Path, entries: list[dict[str, Any]],
                provider: str = "openai") -> None:
    header = {**HEADER, "cwd": str(cwd)}
    result = bridge.call("initialize", {
        "cwd": str(cwd), "sessionFile": str(session), "header": header, "entries": entries,
        "leafId": entries[-1]["id"] if entries else None, "hasUI": False,
        "provider": provider})
    assert result["persistent"] is True


def _setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    home, a, b = tmp_path / "home", tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    _cli(home, a, "learn", "on")
    return home, a, b


def _captured(home: Path, a: Path, tmp_path: Path,
              env: dict[str, str] | None = None, *, first: bool = True) -> Bridge:
    bridge = Bridge(home, a, env)
    _initialize(bridge, a, tmp_path / "sa.jsonl", [
        _entry("e1", None, "user", f"I prefer pnpm over npm for every package; the token is "
               f"{TOKEN}. [ds4:local-only]Build host is omega-4.[/ds4:local-only]"),
        _entry("e2", "e1", "assistant", "Noted: I will use npm from now on.")])
    done = bridge.call("learn", {"event": "agent_end"})
    assert (done["captured"] >= 1) if first else (done["captured"] == 0), done
    return bridge


@pytest.mark.slow
def test_evolve_calls_pis_model_through_the_extension_and_the_claim_reaches_b(
        tmp_path: Path) -> None:
    home, a, b = _setup(tmp_path)
    bridge = _captured(home, a, tmp_path)
    try:
        evolve = bridge.send("evolve", {"provider": "openai", "model": "gpt-pi-test"})
        ask = bridge.read()
        assert ask["method"] == "complete", ask
        params = ask["params"]
        assert (params["provider"], params["model"]) == ("openai", "gpt-pi-test")
        assert params["maxTokens"] > 0 and params["timeoutMs"] > 0
        sent = params["system"] + params["prompt"]
        assert "pnpm" in sent and TOKEN not in sent and "omega-4" not in sent
        assert "I will use npm" not in sent
        assert not any(k.lower() in ("apikey", "key", "authorization") for k in params)

        # while Pi's model works, a prompt's plan is answered at once, not queued behind it
        plan = bridge.send("plan", {"prompt": "hello there"})
        message = bridge.read()
        assert message["id"] == plan and "messages" in message["result"], message

        bridge.answer(ask["id"], {"text": ANSWER, "provider": "openai",
                                  "model": "gpt-pi-test", "stopReason": "stop",
                                  "inputTokens": 120, "outputTokens": 30})
        message = bridge.read()
        assert message["id"] == evolve, message
        attempt = message["result"]
        assert (attempt["outcome"], attempt["provider"], attempt["model"]) == (
            "settled", "openai", "gpt-pi-test"), attempt
        assert bridge.call("evolve", {"provider": "openai", "model": "gpt-pi-test"})[
            "outcome"] == "idle"
    finally:
        bridge.close()

    listed = json.dumps(_cli(home, b, "learn", "list"))
    assert "The person prefers pnpm over npm" in listed

    fresh = Bridge(home, b)  # a new Pi process in directory B
    try:
        _initialize(fresh, b, tmp_path / "sb.jsonl",
                    [_entry("f1", None, "user", "Which package manager should I use?")])
        plan_b = fresh.call("plan", {"prompt": "Which package manager should I use?"})
        context = "\n".join(m["content"] for m in plan_b["messages"])
        assert "LEARNED MEMORY" in context and "The person prefers pnpm over npm" in context
    finally:
        fresh.close()


@pytest.mark.slow
def test_failures_cross_as_codes_and_a_switched_model_is_not_applied(tmp_path: Path) -> None:
    home, a, _ = _setup(tmp_path)
    bridge = _captured(home, a, tmp_path)
    try:
        outcomes = []
        for turn, reply in enumerate((
                {"error": "rate_limited"},
                {"error": f"401 bad key {TOKEN}"},  # not a code: unknown, never text
                {"text": ANSWER, "provider": "anthropic", "model": "other", "stopReason": "stop"},
                # the extension itself failed (JSON-RPC error): unknown, its text dropped
                {"rpcError": {"code": "host_error", "message": f"boom {TOKEN}"}})):
            if turn:  # a failed source backs off: a new turn gives a new, due source
                done = bridge.call("learn", {"event": "agent_end", "sync": {
                    "entries": [_entry(f"t{turn}", "e2", "user",
                                       f"From now on, I prefer tabs over spaces {turn}.")],
                    "leafId": f"t{turn}"}})
                assert done["captured"] >= 1, done
            # a provider of its own each turn: no cooldown carries over
            evolve = bridge.send("evolve", {"provider": f"prov{turn}", "model": f"m{turn}"})
            ask = bridge.read()
            assert ask.get("method") == "complete", (turn, ask)
            bridge.answer(ask["id"], reply)
            message = bridge.read()
            assert message["id"] == evolve, message
            outcomes.append(message["result"])
        assert all(o["outcome"] != "settled" for o in outcomes), outcomes
        assert TOKEN not in json.dumps(outcomes)
    finally:
        bridge.close()
    status = _cli(home, a, "evolution", "status")
    assert [c["outcome"] for c in reversed(status["recentCalls"])] == [
        "rate_limited", "unknown", "unavailable", "unknown"], status["recentCalls"]
    assert TOKEN not in json.dumps(status) and "bad key" not in json.dumps(status)
    assert "boom" not in json.dumps(status)
    assert "The person prefers pnpm" not in json.dumps(_cli(home, a, "learn", "list"))


@pytest.mark.slow
def test_no_call_when_learning_is_off_in_a_subagent_or_without_a_model(
        tmp_path: Path) -> None:
    home, a, _ = _setup(tmp_path)
    bridge = _captured(home, a, tmp_path)
    try:
        assert bridge.call("evolve", {"provider": "openai"}) == {
            "outcome": "skipped", "reason": "no_model"}
        _cli(home, a, "learn", "off")
        assert bridge.call("evolve", {"provider": "openai", "model": "m"}) == {
            "outcome": "skipped", "reason": "learning_off"}
    finally:
        bridge.close()
    _cli(home, a, "learn", "on")
    sub = Bridge(home, a, {"PI_SUBAGENT_AGENT_ID": "agent-7"})
    try:
        _initialize(sub, a, tmp_path / "sc.jsonl", [_entry("g1", None, "user", "hi")])
        assert sub.call("evolve", {"provider": "openai", "model": "m"}) == {
            "outcome": "skipped", "reason": "subagent"}
    finally:
        sub.close()


@pytest.mark.slow
def test_a_shutdown_during_the_call_cancels_it_and_the_source_stays_pending(
        tmp_path: Path) -> None:
    home, a, _ = _setup(tmp_path)
    bridge = _captured(home, a, tmp_path)
    evolve = bridge.send("evolve", {"provider": "openai", "model": "gpt-pi-test"})
    assert bridge.read()["method"] == "complete"
    stop = bridge.send("shutdown", {})
    first, second = bridge.read(), bridge.read()
    assert (first["id"], first["result"]["outcome"]) == (evolve, "cancelled"), first
    assert (second["id"], second["result"]) == (stop, {"stopped": True})
    bridge.proc.communicate(timeout=60)
    again = _captured(home, a, tmp_path, first=False)  # the same turn: the same source
    try:
        evolve = again.send("evolve", {"provider": "openai", "model": "gpt-pi-test"})
        ask = again.read()
        assert ask["method"] == "complete", ask  # still due: a cancel is not a failure
        again.answer(ask["id"], {"text": ANSWER, "provider": "openai", "model": "gpt-pi-test",
                                 "stopReason": "stop"})
        assert again.read()["result"]["outcome"] == "settled"
    finally:
        again.close()


@pytest.mark.slow
def test_a_source_above_what_pis_provider_may_receive_waits_and_is_never_sent(
        tmp_path: Path) -> None:
    home, a, _ = _setup(tmp_path)
    bridge = Bridge(home, a)
    try:
        _initialize(bridge, a, tmp_path / "sp.jsonl", [_entry(
            "p1", None, "user", "[ds4:sensitive]I prefer the internal mirror "
            "registry-q7 for every package.[/ds4:sensitive]")])
        assert bridge.call("learn", {"event": "agent_end"})["captured"] >= 1
        # a remote provider receives only "normal" by default: nothing is asked of Pi
        attempt = bridge.call("evolve", {"provider": "openai", "model": "gpt-pi-test"})
        assert (attempt["outcome"], attempt["reason"]) == ("waiting", "privacy"), attempt
    finally:
        bridge.close()


def test_only_routes_the_person_wrote_back_pis_model_up(tmp_path: Path) -> None:
    """``[evolution]`` naming no route means ``claude -p`` for a Claude Code user; inside Pi
    it is no backup (seed 004: backups only from providers the person configured)."""
    from waymarks.hosts.pi_model import PI_API, pi_route
    from waymarks.service.evolution_config import load_evolution_config

    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    routes = pi_route(load_evolution_config(home), "openai", "gpt-pi").routes()
    assert [(r.provider, r.api, r.model) for r in routes] == [("openai", PI_API, "gpt-pi")]
    (home / "config.toml").write_text(
        '[evolution]\nlearn = true\nprovider = "anthropic"\napi = "claude-code"\n'
        'model = "default"\n')  # written by the person: a backup
    routes = pi_route(load_evolution_config(home), "openai", "gpt-pi").routes()
    assert [(r.provider, r.api) for r in routes] == [("openai", PI_API),
                                                     ("anthropic", "claude-code")]


@pytest.mark.slow
def test_pis_model_failing_never_sends_the_source_to_an_unconfigured_claude(
        tmp_path: Path) -> None:
    """Pi's model answered 401 with only ``learn = true`` configured: the source went to
    ``claude -p`` (Anthropic), a route nobody chose. It waits now, with the reason."""
    from tests.evolution.fake_claude import install

    install(tmp_path / "bin")
    log = tmp_path / "claude.log"
    env = {"PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}",
           "FAKE_CLAUDE_LOG": str(log), "FAKE_CLAUDE_TEXT": ANSWER}
    home, a, _ = _setup(tmp_path)
    bridge = _captured(home, a, tmp_path, env)
    try:
        evolve = bridge.send("evolve", {"provider": "openai", "model": "gpt-pi-test"})
        ask = bridge.read()
        assert ask["method"] == "complete", ask
        bridge.answer(ask["id"], {"error": "auth"})
        message = bridge.read()
        assert message["id"] == evolve, message
        assert message["result"]["outcome"] != "settled", message
    finally:
        bridge.close()
    assert not log.exists(), log.read_text()  # claude was never started
    status = _cli(home, a, "evolution", "status")
    assert [c["outcome"] for c in status["recentCalls"]] == ["auth"], status["recentCalls"]
    assert "The person prefers pnpm" not in json.dumps(_cli(home, a, "learn", "list"))


@pytest.mark.parametrize("stop", ["length", "toolUse", None])
def test_a_reply_that_did_not_stop_normally_is_invalid_output(stop: str | None) -> None:
    """Seed 004: only a normal stop is a reply. A truncated one (``length``) was applied
    over the Pi route, its claims written, where the HTTP routes refuse it."""
    from waymarks.core.model_port import ModelError, ModelRequest, Route
    from waymarks.hosts.pi_model import PiModelClient

    answer = {"text": ANSWER, "provider": "openai", "model": "m", "outputTokens": 5,
              **({"stopReason": stop} if stop else {})}
    client = PiModelClient(lambda method, params: answer)
    request = ModelRequest("system", "prompt", 256, "normal")
    with pytest.raises(ModelError) as failed:
        client.complete(request, Route("openai", "m"), timeout_s=5)
    assert failed.value.code == "invalid_output"
    reply = PiModelClient(lambda method, params: {**answer, "stopReason": "stop"}).complete(
        request, Route("openai", "m"), timeout_s=5)
    assert reply.text == ANSWER


@pytest.mark.parametrize(("answer", "refused"), [
    ({"error": "overloaded", "status": 500}, True), ({"error": "bad_request", "status": 400},
                                                     True),
    ({"error": "overloaded"}, False), ({"error": "overloaded", "status": True}, False)])
def test_an_error_status_pi_reports_is_billed_nothing(answer: dict[str, Any],
                                                      refused: bool) -> None:
    """The provider answered Pi with an error status (the extension passes it on): the call
    served nothing and costs nothing, as an HTTP route's error status; an error without one
    (in mid-stream, after the provider began answering) keeps the call's estimate."""
    from waymarks.core.model_port import ModelError, ModelRequest, Route
    from waymarks.hosts.pi_model import PiModelClient
    from waymarks.service.evolution_attempt import call_cost
    from waymarks.service.evolution_config import RouteConfig

    request = ModelRequest("system", "prompt", 256, "normal")
    with pytest.raises(ModelError) as failed:
        PiModelClient(lambda method, params: answer).complete(request, Route("openai", "m"),
                                                              timeout_s=5)
    assert (failed.value.code, failed.value.refused) == (answer["error"], refused)
    route = RouteConfig("openai", "pi", "m", input_usd_per_mtok=3.0, output_usd_per_mtok=15.0)
    cost = call_cost(route, request, None, failed.value)
    assert cost == {} if refused else cost["estimated_usd"] > 0


@pytest.mark.slow
def test_a_truncated_reply_over_the_bridge_writes_no_claim(tmp_path: Path) -> None:
    home, a, _ = _setup(tmp_path)
    bridge = _captured(home, a, tmp_path)
    try:
        evolve = bridge.send("evolve", {"provider": "openai", "model": "gpt-pi-test"})
        ask = bridge.read()
        assert ask["method"] == "complete", ask
        bridge.answer(ask["id"], {"text": ANSWER, "provider": "openai",
                                  "model": "gpt-pi-test", "stopReason": "length"})
        message = bridge.read()
        assert message["id"] == evolve and message["result"]["outcome"] != "settled", message
    finally:
        bridge.close()
    status = _cli(home, a, "evolution", "status")
    assert [c["outcome"] for c in status["recentCalls"]] == ["invalid_output"], status
    assert "The person prefers pnpm" not in json.dumps(_cli(home, a, "learn", "list"))
