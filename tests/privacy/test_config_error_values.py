"""A credential pasted into the wrong setting of ``config.toml`` is not repeated by the
error that refuses the file.

The error reaches a model: the Claude Code hook tells it "a configuration file cannot be
used; `waymarks status` in this project says what to fix", and an agent that runs that
command reads the error. The ``[evolution]`` table never echoed a value (it may hold a
pasted key); ``[privacy]``, ``[context]`` and ``[memory]`` echoed it whole.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import waymarks

KEY = "sk-proj-" + "Ab9x" * 12  # an OpenAI project key's shape
SETTINGS = [
    ("[privacy]\nremoteProviders.openai = \"{key}\"\n", "remoteProviders.openai"),
    ("[privacy]\nremoteDefaultAllowed = [\"{key}\"]\n", "remoteDefaultAllowed"),
    ("[privacy]\ndefaultClassification = \"{key}\"\n", "defaultClassification"),
    ("[context]\nmaxPinnedTokens = \"{key}\"\n", "maxPinnedTokens"),
    ("[memory]\nsessionRoots = [\"{key}\"]\n", "sessionRoots"),
]


def _run(home: Path, project: Path, *args: str) -> tuple[int, str]:
    done = waymarks("--home", str(home), *args, env={"WAYMARKS_SEMANTIC": "off"},
                    cwd=project)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize(("text", "setting"), SETTINGS)
def test_a_key_pasted_into_a_setting_is_not_echoed(home: Path, project: Path, text: str,
                                                   setting: str) -> None:
    home.mkdir()
    (home / "config.toml").write_text(text.format(key=KEY), encoding="utf-8")
    for args in (("status",), ("--json", "status"), ("config", "show"), ("privacy",),
                 ("--json", "recall", "deploys")):
        code, said = _run(home, project, *args)
        assert code == 1, (args, said)
        assert "bad_config" in said or "config.toml" in said, (args, said)
        assert setting in said, (args, said)  # still names what to fix
        assert KEY not in said and KEY.lower() not in said, (args, said)
        assert "[REDACTED:" in said, (args, said)


def test_a_typo_is_still_echoed(home: Path, project: Path) -> None:
    """Only a credential is kept out: a mistyped level is repeated, so the person sees it."""
    home.mkdir()
    (home / "config.toml").write_text('[privacy]\nremoteDefaultAllowed = ["normall"]\n',
                                      encoding="utf-8")
    code, said = _run(home, project, "--json", "status")
    assert code == 1
    document = json.loads(said.splitlines()[0])
    assert document["code"] == "bad_config" and "'normall'" in document["message"]
