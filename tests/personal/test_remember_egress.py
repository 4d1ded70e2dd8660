"""The remember prompt is a task for a model: its candidate, the text a person typed,
went in as typed. `waymarks remember "the staging db password is …"` printed the
password (and any ``[ds4:local-only]`` span) into the prompt a person pastes into an
agent, and the MCP prompt and Pi's ``/remember`` handed it to the model the same way.
Now the candidate passes the destination's egress, as the promotion prompt's notes do:
withheld and redacted for a remote (or unknown) model, as typed for a local one."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.personal.test_prefill_rule import _mcp, _pi
from waymarks.core.privacy import WITHHELD
from waymarks.service.app import Waymarks

PASSWORD = "Tr0ub4dor&3xq"
TEXT = (f"the staging db password is {PASSWORD}; [ds4:local-only]the vault sits on "
        f"10.9.8.7[/ds4:local-only] keep PRs small")


def candidate(prompt: str) -> str:
    found = re.search(r"<prefilled-json>\n(.*)\n</prefilled-json>", prompt)
    assert found, prompt
    value = json.loads(found.group(1))
    assert isinstance(value, str)
    return value


def remember(home: Path, cwd: Path, *args: str) -> str:
    env = {**os.environ, "WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off"}
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--json", "remember",
                           *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, (done.stdout, done.stderr)
    prompt = json.loads(done.stdout)["prompt"]
    assert isinstance(prompt, str)
    return prompt


def assert_sent(shown: str) -> None:
    assert PASSWORD not in shown and "10.9.8.7" not in shown and "ds4:" not in shown
    assert shown.startswith("the staging db password is ") and WITHHELD in shown
    assert shown.endswith("keep PRs small")


def test_the_command_line_prompt_passes_the_egress(home: Path, project: Path) -> None:
    assert_sent(candidate(remember(home, project, TEXT)))  # an unknown model: remote
    assert_sent(candidate(remember(home, project, "--provider", "openai", TEXT)))


def test_a_local_provider_gets_the_candidate_as_typed(home: Path, project: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[privacy]\nlocalProviders = ["ollama"]\n')
    assert candidate(remember(home, project, "--provider", "ollama", TEXT)) == TEXT


def test_the_mcp_prompt_and_pi_pass_the_egress(tmp_path: Path, app: Waymarks) -> None:
    assert_sent(candidate(_mcp(app, TEXT)))
    (answer,) = _pi(tmp_path, [TEXT])
    assert_sent(candidate(str(answer["prompt"])))
