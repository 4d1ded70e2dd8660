"""Defects a review of learning reproduced against a real loopback provider: an endpoint
with a query string called at the wrong URL, the endpoint's credentials written to a
host's log, Ctrl-C leaving the source leased, a credential kept in a claim's search
terms. Each test failed before its fix."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading

import pytest

from tests.evolution.fake_provider import FakeProvider, anthropic_ok, openai_ok
from tests.evolution.step_double import FileStep
from tests.evolution.test_cli_evolution import ROOT, _config, _run
from waymarks.core.evolution.decide import _clean_terms
from waymarks.core.model_port import ModelRequest, Route
from waymarks.models import AnthropicClient, OpenAIClient
from waymarks.models.http import joined

REQUEST = ModelRequest("system rules", "the user prefers tabs", 256, "normal")
GITHUB = "ghp_" + "1234567890abcdefghijABCDEFGHIJ123456"


def test_the_path_goes_before_the_endpoints_query_string() -> None:
    """``…/v1?api-version=…`` was called as ``…/v1?api-version=…/chat/completions``:
    a gateway's route could never reach the API."""
    with FakeProvider([openai_ok('{"claims": []}')]) as fake:
        OpenAIClient(fake.origin + "/v1/?api-version=2024-10&x=1", None).complete(
            REQUEST, Route("openai", "m1"), timeout_s=5)
    assert fake.requests[0]["path"] == "/v1/chat/completions?api-version=2024-10&x=1"
    with FakeProvider([anthropic_ok("ok")]) as fake:
        AnthropicClient(fake.origin + "/v1?key=k1", None).complete(
            REQUEST, Route("anthropic", "c1"), timeout_s=5)
    assert fake.requests[0]["path"] == "/v1/messages?key=k1"
    assert joined("http://h/v1", "/chat/completions") == "http://h/v1/chat/completions"


def test_the_endpoints_credentials_never_reach_a_hosts_log(
        caplog: pytest.LogCaptureFixture) -> None:
    """The MCP SDK sets the root logger to INFO; the HTTP client logged each request's
    URL there, ``user:password@`` and ``?api_key=`` included, on the server's stderr."""
    caplog.set_level(logging.INFO)  # as a host configures the root logger
    with FakeProvider([openai_ok('{"claims": []}')]) as fake:
        endpoint = fake.origin.replace("http://", "http://alice:pw-SECRET-123@") + \
            "/v1?api_key=QUERYSECRET456"
        OpenAIClient(endpoint, None).complete(REQUEST, Route("openai", "m1"), timeout_s=5)
    assert fake.requests
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "SECRET" not in logged


def test_search_terms_holding_a_credential_are_dropped() -> None:
    """The claim's content was checked for credentials and placeholders; its search terms
    were stored and listed in clear."""
    kept = _clean_terms(("pnpm", GITHUB, "[REDACTED:github-token]", "npm"))
    assert kept == ("pnpm", "npm")


@pytest.mark.slow
def test_ctrl_c_while_the_model_works_leaves_the_source_pending(
        home, project, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Ctrl-C on ``waymarks evolve`` left its lease: the next ``evolve SOURCE`` said
    "busy … by another process" (there was none) for the lease's length, and its expiry
    then counted as a failed try toward pausing the source."""
    arrived, release = threading.Event(), threading.Event()

    def hold() -> None:
        if not arrived.is_set():
            arrived.set()
            release.wait(120)

    step = FileStep(tmp_path / "step")
    step.add("src-1", "The user prefers tabs.")
    with FakeProvider(default=openai_ok('{"claims": []}'), hold=hold) as fake:
        _config(home, f'[evolution]\nlearn = true\nprovider = "openai"\napi = "openai"\n'
                      f'endpoint = "{fake.origin}/v1"\nmodel = "m1"\n')
        env = {**os.environ, "WAYMARKS_HOME": str(home), "PYTHONPATH": str(ROOT),
               "EVO_STEP_DIR": str(tmp_path / "step")}
        running = subprocess.Popen(
            [sys.executable, "-m", "tests.evolution.cli_with_step", "--json", "evolve"],
            cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert arrived.wait(120), "the call never reached the provider"
            running.send_signal(signal.SIGINT)
            out, _err = running.communicate(timeout=120)
        finally:
            release.set()
        assert running.returncode == 130, out
        code, data, _ = _run(home, project, "evolve", "src-1", step=tmp_path / "step")
        assert code == 0 and data["outcome"] == "settled", data
        code, data, _ = _run(home, project, "evolution", "status", step=tmp_path / "step")
    assert data["counts"]["settled"] == 1 and data["failed"] == []
    assert sorted(c["outcome"] for c in data["recentCalls"]) == ["cancelled", "ok"]
