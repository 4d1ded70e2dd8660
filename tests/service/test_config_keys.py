"""A configuration's misspelt table or setting is refused, named beside the known ones: it
was ignored without a word, the setting the person meant not in force."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.inprocess import waymarks
from waymarks.service.config import load_settings
from waymarks.service.outcomes import ServiceError


@pytest.mark.parametrize(("text", "named", "known"), [
    ("[context]\nmaxPinedTokens = 50\n", "'maxPinedTokens'", "maxPinnedTokens"),
    ("[memory]\nmaxResult = 1\n", "'maxResult'", "maxResults"),
    ("[mcp]\ntokn = 'x'\n", "'tokn'", "token"),
    ("[personal]\ndir = '/tmp'\n", "'dir'", "directory"),
    ("[contxt]\nmaxPinnedTokens = 50\n", "'contxt'", "[context]"),
    ("maxResults = 3\n[memory]\n", "'maxResults'", "[memory]"),  # above any table
])
def test_an_unknown_key_of_the_home_file_is_refused_naming_it(
        tmp_path: Path, text: str, named: str, known: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(text)
    with pytest.raises(ServiceError) as refused:
        load_settings(home, str(tmp_path), trusted=False)
    assert refused.value.code == "bad_config"
    message = str(refused.value)
    assert str(home / "config.toml") in message and named in message and known in message


def test_a_trusted_project_s_misspelt_limit_is_refused_not_left_looser(tmp_path: Path) -> None:
    """A project meant to lower a budget; misspelt, the home's stayed in force in silence.
    The command says which file and which key (exit 1, bad_config), and changes nothing."""
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".waymarks").mkdir(parents=True)
    (project / ".waymarks" / "config.toml").write_text("[context]\nmaxMemoryToken = 10\n")
    assert waymarks("--home", str(home), "trust", str(project), cwd=project).returncode == 0
    done = waymarks("--home", str(home), "--json", "config", "show", cwd=project)
    assert done.returncode == 1, done
    assert "'maxMemoryToken'" in done.stdout and "maxMemoryTokens" in done.stdout
    assert str(project / ".waymarks" / "config.toml") in done.stdout
    assert waymarks("--home", str(home), "memory", "add", "x y z", cwd=project).returncode == 1


def test_every_documented_key_is_still_read(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        "[privacy]\ndefaultProvider = 'remote'\n[context]\nmaxPinnedTokens = 100\n"
        "maxMemoryTokens = 100\nmaxPersonalTokens = 100\ndefaultContextWindow = 200000\n"
        "[memory]\nmaxResults = 3\ncrossSession = false\nmaxProjectSessions = 5\n"
        "sessionRoots = []\n[mcp]\ntoken = 'abcdefghijklmnopqrstuvwxyz'\n"
        "[personal]\ndirectory = 'memory'\n[evolution]\nlearn = false\n")
    settings = load_settings(home, str(tmp_path), trusted=False)
    assert settings.budgets.max_results == 3 and not settings.cross_session
