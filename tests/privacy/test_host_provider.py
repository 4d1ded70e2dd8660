"""The Claude Code hook and the MCP tools answer a host's model, not the configured default
provider: with a local default (a person who runs Pi with Ollama), the hook's context and
`memory_recall` sent local-only pins and spans to Claude Code's model, with credentials
unredacted (a local provider gets no redaction). The hook and `mcp --claude-code` plan for
``anthropic``; a plain `mcp` for the default unless it is local, else ``mcp-client``; both
remote unless the person's policy lists them as local."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from waymarks.service.app import Waymarks

SECRET = "LOCALONLY-PIN prod db lives at 10.9.8.7"
SPAN = "[ds4:local-only]LOCALONLY-SPAN Acme pays 1M[/ds4:local-only] retention facts"
SESSION = "11111111-2222-3333-4444-555555555556"


@pytest.fixture
def local_default(home: Path, project: Path) -> Path:
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text('[privacy]\ndefaultProvider = "ollama"\n'
                                      'localProviders = ["ollama"]\n')
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        app.pin(SECRET, scope="project", classification="local-only")
        app.pin("Run the linters before pushing.", scope="project")
        app.remember(SPAN, scope="project")
    return home


def _hook(home: Path, project: Path, event: str, **fields: Any) -> str:
    body = {"session_id": SESSION, "cwd": str(project), "hook_event_name": event, **fields}
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "hook", "claude-code", event], input=json.dumps(body), text=True,
                          capture_output=True, env={**os.environ, "WAYMARKS_CC_HELPER": "off"},
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_hook_plans_for_claude_codes_model(local_default: Path, project: Path) -> None:
    _hook(local_default, project, "SessionStart", source="startup")
    said = _hook(local_default, project, "UserPromptSubmit",
                 prompt="what about the retention facts and the prod db?")
    assert "Run the linters" in said
    assert "LOCALONLY" not in said and "10.9.8.7" not in said


@pytest.mark.parametrize("claude_code", [False, True])
@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_the_mcp_tools_answer_the_clients_model(local_default: Path, project: Path,
                                                claude_code: bool) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "waymarks.cli.main", "--home", str(local_default), "mcp",
              *(["--claude-code"] if claude_code else [])],
        cwd=str(project), env={**os.environ, "WAYMARKS_HOME": str(local_default)})

    async def run() -> list[str]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            out = []
            for name, arguments in (("memory_recall", {"query": "retention facts Acme"}),
                                    ("recall_memory", {"query": "retention facts Acme"}),
                                    ("context_persistence", {"action": "pins_list"})):
                result = await client.call_tool(name, arguments)
                out.append(json.dumps(result.structured_content) + "".join(
                    getattr(c, "text", "") for c in result.content))
            return out

    for answer in anyio.run(run):
        assert "LOCALONLY" not in answer and "10.9.8.7" not in answer, answer


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_a_plain_mcp_server_starts_on_a_bad_config_and_answers_per_call(
        home: Path, project: Path) -> None:
    """Working out the client's provider read the settings before serving: a config.toml
    that does not parse made `waymarks mcp` exit 1 (a client lost every tool), where it
    answers `bad_config` per call, as `mcp --claude-code` does."""
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text("[privacy\nx=")
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "mcp"], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          cwd=project, timeout=60)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("project_privacy", [
    '[privacy]\ndefaultProvider = "corp"\n',  # a remote default allowed more than an unknown
    '[privacy.remoteProviders]\nollama = ["normal", "internal", "sensitive"]\n',  # the local
])                                                  # default "tightened" into a remote one
def test_a_projects_file_cannot_widen_what_an_unknown_model_receives(
        tmp_path: Path, project_privacy: str) -> None:
    """A configuration review: with a local home default, an unknown host model (an MCP
    client's, Pi's before it names one, a pasted prompt) gets the remote default policy;
    a trusted project's file that named a remote default, or made the local one remote,
    turned it into that provider, allowed sensitive text."""
    from waymarks.service.planning import MCP_CLIENT_PROVIDER, egress_for

    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".waymarks").mkdir(parents=True)
    home.mkdir()
    (home / "config.toml").write_text(
        '[privacy]\ndefaultProvider = "ollama"\nlocalProviders = ["ollama"]\n'
        'remoteDefaultAllowed = ["normal"]\n'
        '[privacy.remoteProviders]\ncorp = ["normal", "internal", "sensitive"]\n')
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
        app.host_provider = MCP_CLIENT_PROVIDER
        assert egress_for(app).provider == MCP_CLIENT_PROVIDER
        (project / ".waymarks" / "config.toml").write_text(project_privacy)
        egress = egress_for(app)
        assert egress.provider == MCP_CLIENT_PROVIDER
        assert egress.text("x", "sensitive") is None and egress.text("x", "normal") == "x"
