"""A plan's ``request`` message is the prompt a host sends after the added blocks. It was
returned as typed for every provider: ``waymarks --json plan --provider openai`` kept a
``[ds4:local-only]`` span and a typed credential in it, while every other message went
through the egress, so a script forwarding the plan's messages sent both. Now it passes
the same egress for a remote provider; a local provider gets it as typed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from waymarks.core.privacy import WITHHELD
from waymarks.core.tokens import estimate_tokens

PASSWORD = "Tr0ub4dor&3xq"
PROMPT = (f"deploy [ds4:local-only]the vault host 10.9.8.7[/ds4:local-only] "
          f"with password: {PASSWORD}")


def plan(home: Path, cwd: Path, provider: str) -> list[dict[str, object]]:
    env = {**os.environ, "WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off"}
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--json", "plan",
                           "--provider", provider, "--prompt", PROMPT], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (done.stdout, done.stderr)
    messages: list[dict[str, object]] = json.loads(done.stdout)["messages"]
    return messages


def test_remote_provider_gets_the_request_through_the_egress(home: Path,
                                                            project: Path) -> None:
    messages = plan(home, project, "openai")
    (request,) = [m for m in messages if m["kind"] == "request"]
    content = str(request["content"])
    assert PASSWORD not in content and "10.9.8.7" not in content
    assert "ds4:" not in content
    assert content.startswith("deploy ") and WITHHELD in content
    assert request["tokens"] == estimate_tokens(content)  # counted as it is sent


def test_local_provider_gets_the_request_as_typed(home: Path, project: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[privacy]\nlocalProviders = ["ollama"]\n')
    messages = plan(home, project, "ollama")
    (request,) = [m for m in messages if m["kind"] == "request"]
    assert request["content"] == PROMPT
