"""A configuration's misspelt table or setting is refused, named beside the known ones: it
was ignored without a word, the setting the person meant not in force."""

from __future__ import annotations

import json
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


def test_a_trusted_project_s_misspelt_limit_is_listed_not_silent(tmp_path: Path) -> None:
    """A project meant to lower a budget; misspelt, the home's stayed in force in silence.
    ``config show`` lists the file and the key as ignored beside the known ones; the
    home's budget stays in force (a repository's file is never refused for a key: see
    below)."""
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".waymarks").mkdir(parents=True)
    (project / ".waymarks" / "config.toml").write_text("[context]\nmaxMemoryToken = 10\n")
    assert waymarks("--home", str(home), "trust", str(project), cwd=project).returncode == 0
    done = waymarks("--home", str(home), "--json", "config", "show", cwd=project)
    assert done.returncode == 0, done
    ignored = " ".join(json.loads(done.stdout)["ignored"])
    assert "'maxMemoryToken'" in ignored and "maxMemoryTokens" in ignored, ignored
    assert str(project / ".waymarks" / "config.toml") in ignored


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


def test_a_project_s_unknown_setting_is_listed_and_never_switches_waymarks_off(
        tmp_path: Path) -> None:
    """A repository's file is a teammate's, maybe written for a newer release: one setting
    this release does not know refused every command and every prompt's context (the hook
    said 'Waymarks added no context' on each), a repository switching Waymarks off. It is
    listed as ignored, the file's other settings still tighten, the home's stay in force."""
    import uuid

    from tests.inprocess import claude_code_hook

    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".waymarks").mkdir(parents=True)
    (project / ".waymarks" / "config.toml").write_text(
        "[context]\nmaxPinnedTokens = 100\nmaxLearnedTokens = 10\n[newer]\nx = 1\n")
    assert waymarks("--home", str(home), "trust", str(project), cwd=project).returncode == 0
    settings = load_settings(home, str(project), trusted=True)
    assert settings.budgets.max_pinned_tokens == 100, settings.budgets
    said = " ".join(settings.ignored)
    assert "'maxLearnedTokens'" in said and "'newer'" in said, settings.ignored
    assert waymarks("--home", str(home), "pin", "--scope", "project", "Deploy with make ship",
                    cwd=project).returncode == 0
    shown = waymarks("--home", str(home), "config", "show", cwd=project)
    assert shown.returncode == 0 and "'maxLearnedTokens'" in shown.stdout, shown
    ran = claude_code_hook(home, {"hook_event_name": "UserPromptSubmit", "cwd": str(project),
                                  "session_id": str(uuid.uuid4()), "transcript_path": "",
                                  "prompt": "how do I deploy?"})
    context = json.loads(ran.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Deploy with make ship" in context, ran


def test_the_home_s_own_unknown_setting_is_still_refused_with_a_project_s(
        tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".waymarks").mkdir(parents=True)
    home.mkdir()
    (home / "config.toml").write_text("[context]\nmaxPinedTokens = 50\n")
    (project / ".waymarks" / "config.toml").write_text("[contxt]\nx = 1\n")
    with pytest.raises(ServiceError) as refused:
        load_settings(home, str(project), trusted=True)
    assert "'maxPinedTokens'" in str(refused.value)


@pytest.mark.parametrize("target", ["config.toml", "/nonexistent/config.toml"])
def test_a_home_file_that_is_a_broken_link_is_refused_not_the_defaults(
        tmp_path: Path, target: str) -> None:
    """The home's configuration replaced by a link that loops, or whose target is gone (a
    dotfiles folder not mounted), was read as no file: the defaults in force in silence
    (the person's privacy policy too: ``defaultProvider = "local"`` became ``remote``),
    where a folder or a FIFO there is refused. It is refused so too, named."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").symlink_to(target)
    with pytest.raises(ServiceError) as refused:
        load_settings(home, str(tmp_path), trusted=False)
    assert refused.value.code == "bad_config"
    assert str(home / "config.toml") in str(refused.value)
    assert "fix or remove it" in str(refused.value)


@pytest.mark.parametrize("bad", ['[context]\nmaxPinnedTokens = "lots"\n',
                                 "[memory]\ncrossSession = 1\n"])
def test_a_bad_value_of_a_trusted_project_s_file_names_that_file_alone(
        tmp_path: Path, bad: str) -> None:
    """A trusted project's `maxPinnedTokens = "lots"` was refused as "HOME/config.toml,
    PROJECT/.waymarks/config.toml: maxPinnedTokens must be …", so the person (and the
    Claude Code hook's line) was sent to the home's file too, which held nothing wrong.
    A value the home's file alone reads well is the project's file's."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    (project / ".waymarks").mkdir(parents=True)
    (home / "config.toml").write_text("[context]\nmaxMemoryTokens = 4000\n")
    (project / ".waymarks" / "config.toml").write_text(bad)
    with pytest.raises(ServiceError) as refused:
        load_settings(home, str(project), trusted=True)
    assert refused.value.code == "bad_config"
    message = str(refused.value)
    assert message.startswith(f"{project / '.waymarks' / 'config.toml'}: "), message
    assert str(home / "config.toml") not in message
    (home / "config.toml").write_text(bad)  # both wrong: both named, as before
    with pytest.raises(ServiceError) as both:
        load_settings(home, str(project), trusted=True)
    assert str(home / "config.toml") in str(both.value)
