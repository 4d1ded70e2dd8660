"""A trusted project's configuration file that cannot be used (``maxPinnedTokens =
"lots"``) turned off all of Claude Code's context in silence: the hook printed nothing,
exited 0, and logged only ``ServiceError``. The prompt is still recorded, the person and
the model hear that no context was added and which file to fix (never what it holds),
and the log says ``bad_config``; with the helper and without it."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.conftest import isolated_python
from tests.hosts.test_cc_helper_stalled import ENTRY, _kinds, _payload
from tests.hosts.test_cc_review_hooks import _environ, _helper
from waymarks.service.app import Waymarks


def _hook(home: Path, project: Path, sid: str, event: str, helper: str = "off",
          **extra: str) -> str:
    done = subprocess.run([*isolated_python(), str(ENTRY), "--home", str(home),
                           "hook", "claude-code", event],
                          input=json.dumps(_payload(sid, project, event, **extra)),
                          text=True, capture_output=True, timeout=120,
                          env=_environ(subagent=False, WAYMARKS_CC_HELPER=helper))
    assert done.returncode == 0, done.stderr
    return done.stdout


def _session_with_a_pin(home: Path, project: Path, *, trust: bool = False) -> str:
    """A Claude Code session started by its hook, holding a pin (of the project's, once it
    is trusted, with ``trust``): its ID."""
    sid = str(uuid.uuid4())
    _hook(home, project, sid, "SessionStart")
    with Waymarks(home, cwd=str(project), session=sid) as app:
        if trust:
            app.trust(str(project))
        app.pin("Always tag releases from main")
    return sid


def _two_prompts(home: Path, project: Path, sid: str) -> list[str]:
    """What the prompt hook printed for 'tag the release' without the helper, then for
    'and push it' through it."""
    printed = [_hook(home, project, sid, "UserPromptSubmit", prompt="tag the release")]
    with _helper(home, _environ(subagent=False)):
        printed.append(_hook(home, project, sid, "UserPromptSubmit", "on",
                             prompt="and push it"))
    return printed


def _logged(home: Path) -> list[dict[str, object]]:
    """The home log's events."""
    return [json.loads(line) for line in
            (home / "logs" / "waymarks.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_a_bad_project_configuration_is_named_not_silent(home: Path, project: Path) -> None:
    sid = _session_with_a_pin(home, project, trust=True)
    config = project / ".waymarks" / "config.toml"
    config.parent.mkdir()
    config.write_text('[context]\nmaxPinnedTokens = "lots"\n')
    for out in _two_prompts(home, project, sid):
        said = json.loads(out)
        message = said["systemMessage"]
        assert message.startswith("Waymarks added no context: a configuration file "
                                  f"cannot be used ({config})"), message
        assert "\n" not in message and "lots" not in out and "Always tag" not in out
        assert said["hookSpecificOutput"]["additionalContext"] == message
        # (a re-read: `pins` names no bad home one); the hook's home, which the shell
        # need not use
        assert f"`waymarks --home {home} status`" in message
    assert _kinds(home, sid) == ["said:tag the release", "said:and push it"]
    # the command it names says what to fix, for the project's file and the home's
    for broken in (config, home / "config.toml"):
        broken.write_text("[context\n")
        told = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                               "status"], cwd=project, capture_output=True, text=True,
                              timeout=120)
        assert told.returncode == 1 and str(broken) in told.stdout + told.stderr, told
        broken.unlink()
    skipped = [(e["kind"], e["code"]) for e in _logged(home)
               if e["event"] == "claude_code_hook_skipped"]
    assert skipped == [("UserPromptSubmit", "bad_config")] * 2


@pytest.mark.slow
def test_a_damaged_trust_list_is_named_not_silent(home: Path, project: Path) -> None:
    """``trusted-projects.json`` that cannot be read made every plan fail: each prompt lost
    its context, session pins included (they need no trust), with nothing said and
    ``bad_trust_file`` only in the log; with the helper and without it."""
    sid = _session_with_a_pin(home, project)
    trust = home / "trusted-projects.json"
    trust.write_text('{"projects": [')
    for out in _two_prompts(home, project, sid):
        said = json.loads(out)
        message = said["systemMessage"]
        assert message.startswith("Waymarks added no context: a configuration file "
                                  f"cannot be used ({trust})"), message
        assert "Always tag" not in out and said["hookSpecificOutput"][
            "additionalContext"] == message
    assert _kinds(home, sid) == ["said:tag the release", "said:and push it"]
    told = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "status"], cwd=project, capture_output=True, text=True, timeout=120)
    assert told.returncode == 1 and str(trust) in told.stdout + told.stderr, told
