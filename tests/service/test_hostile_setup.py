"""Input a hostile repository or a broken setup gives (a helper's review, each reproduced
first): every case ends in a clear error or the policy as it was, never a traceback,
never a write appended and then reported as failed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.inprocess import Ran, waymarks
from waymarks.commands.render import when
from waymarks.service.app import Waymarks
from waymarks.service.config import load_settings
from waymarks.service.outcomes import ServiceError


def cli(home: Path, cwd: Path, *args: str, fresh: bool = False
        ) -> subprocess.CompletedProcess[str] | Ran:
    """``waymarks --home HOME --json ARGS`` in ``cwd``: in this process (tests/inprocess.py),
    or in a new one (``fresh``) where a regression would hang or serve (a FIFO read, a
    server started): the process's timeout fails the test instead."""
    argv = ["--home", str(home), "--json", *args]
    if not fresh:
        return waymarks(*argv, env={"WAYMARKS_SEMANTIC": "off"}, cwd=cwd)
    environment = {**os.environ, "WAYMARKS_SEMANTIC": "off", "WAYMARKS_CC_HELPER": "off"}
    return subprocess.run([sys.executable, "-m", "waymarks.cli.main", *argv], cwd=cwd,
                          env=environment, capture_output=True, text=True, timeout=120)


def ledger_lines(home: Path) -> int:
    return sum(len(p.read_text().splitlines()) for p in home.glob("sessions/*/*.jsonl"))


def test_a_repository_value_in_place_of_a_table_keeps_the_homes_limits(
        tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".waymarks").mkdir(parents=True)
    home.mkdir()
    (home / "config.toml").write_text("[memory]\ncrossSession = false\n"
                                      "maxProjectSessions = 3\n")
    for value in ("0", "[]", '"x"'):
        (project / ".waymarks" / "config.toml").write_text(f"memory = {value}\n")
        os.utime(project / ".waymarks" / "config.toml", ns=(len(value), len(value)))
        settings = load_settings(home, str(project), True)
        assert (settings.cross_session, settings.max_project_sessions) == (False, 3), value
        assert any("memory (not a table" in note for note in settings.ignored)


@pytest.mark.parametrize("where", ["home", "project"])
def test_toml_nested_too_deeply_is_a_bad_config(tmp_path: Path, where: str) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".waymarks").mkdir(parents=True)
    home.mkdir()
    deep = "a = " + "[" * 5000 + "]" * 5000 + "\n"
    target = home / "config.toml" if where == "home" else project / ".waymarks" / "config.toml"
    target.write_text(deep)
    with pytest.raises(ServiceError) as raised:
        load_settings(home, str(project), True)
    assert raised.value.code == "bad_config" and "nested too deeply" in str(raised.value)


def test_a_path_holding_nul_is_a_bad_config(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    for text in ('[memory]\nsessionRoots = ["/tmp/a\\u0000b"]\n',
                 '[personal]\ndirectory = "/tmp/a\\u0000b"\n'):
        (home / "config.toml").write_text(text)
        os.utime(home / "config.toml", ns=(len(text), len(text)))
        with pytest.raises(ServiceError) as raised:
            load_settings(home, str(tmp_path), False)
        assert raised.value.code == "bad_config"


def test_a_relative_session_root_is_a_bad_config_not_read_in_each_project(
        tmp_path: Path) -> None:
    """``sessionRoots = ["sessions-extra"]`` was read from each working directory: a
    repository holding that folder supplied project pins as if from the person's own
    session folders."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[memory]\nsessionRoots = ["sessions-extra"]\n')
    with pytest.raises(ServiceError) as raised:
        load_settings(home, str(tmp_path), False)
    assert raised.value.code == "bad_config" and "relative path" in str(raised.value)
    (home / "config.toml").write_text('[memory]\nsessionRoots = ["~/pi-sessions"]\n')
    os.utime(home / "config.toml", ns=(1, 1))
    assert load_settings(home, str(tmp_path), False).session_roots[0].is_absolute()


def test_a_write_under_an_unreadable_configuration_appends_nothing(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    home.mkdir()
    (home / "config.toml").write_text('[privacy]\ndefaultClassification = "bogus"\n')
    for args in (("memory", "add", "--", "The cache TTL is 30 minutes."),
                 ("pin", "--", "Always run ruff.")):
        done = cli(home, project, *args)
        assert done.returncode == 1 and json.loads(done.stdout)["code"] == "bad_config"
    assert ledger_lines(home) == 0  # before: both were appended, then reported as failed
    (home / "config.toml").unlink()
    done = cli(home, project, "memory", "add", "--", "The cache TTL is 30 minutes.")
    assert json.loads(done.stdout)["outcome"] == "committed"


def test_the_mcp_section_as_a_string_is_a_usage_error(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    home.mkdir()
    (home / "config.toml").write_text('mcp = "abcdefabcdefabcdefabcdef"\n')
    done = cli(home, project, "mcp", "--http", "--port", "0", fresh=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "bearer token" in done.stdout + done.stderr


def test_a_home_or_project_path_that_is_not_utf8_is_refused_before_anything_is_made(
        tmp_path: Path) -> None:
    bad = os.fsdecode(bytes(tmp_path) + b"/\xff")  # what the environment gives Python
    project = tmp_path / "project"
    project.mkdir()
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--json", "pin", "--",
                           "hello"], cwd=project, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "WAYMARKS_HOME": bad, "WAYMARKS_SEMANTIC": "off"})
    assert done.returncode == 2 and "not a UTF-8 path" in done.stdout
    assert "/\\\\xff: not" in done.stdout and "PosixPath" not in done.stdout  # its bytes
    assert not os.path.lexists(os.fsencode(bad))
    home = tmp_path / "home"
    os.mkdir(bad)  # a project there (a cwd that does not exist is refused for that alone)
    with pytest.raises(ServiceError) as raised:  # refused as the project, reads too
        Waymarks(home, cwd=bad)
    assert raised.value.code == "invalid_argument" and "not a UTF-8 path" in str(raised.value)
    assert not list(home.glob("sessions/*/*.jsonl"))
    with Waymarks(home, cwd=str(project)) as app, pytest.raises(ServiceError):
        app.trust(bad)


def test_dates_outside_what_a_date_holds_are_shown_as_unknown() -> None:
    assert when(-99_999_999_999_999) == "-" and when(10**18) == "-"
    assert when(1_767_225_600_000) == "2026-01-01 00:00"


def test_an_evolution_endpoint_ending_in_a_newline_is_refused() -> None:
    """``$`` matches before a final newline: the URL passed, and the request raised an
    error the model port does not categorize."""
    from waymarks.service.evolution_config import EvolutionConfigError, _route

    with pytest.raises(EvolutionConfigError, match="endpoint must be"):
        _route({"endpoint": "http://127.0.0.1:9/v1\n", "model": "m", "api": "openai",
                "provider": "ollama"}, "x")
    assert _route({"endpoint": "http://127.0.0.1:9/v1", "model": "m", "api": "openai",
                   "provider": "ollama"}, "x")


def test_an_unreadable_configuration_is_refused_before_the_person_is_asked(
        tmp_path: Path) -> None:
    """A tool asks the person only about a write its dry run accepted: the dry run reads
    the settings as the write does (it read none, and the write refused after the yes)."""
    from waymarks.service.writes import decide_pin

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    home.mkdir()
    (home / "config.toml").write_text('[privacy]\ndefaultClassification = "bogus"\n')
    with Waymarks(home, cwd=str(project)) as app, pytest.raises(ServiceError) as raised:
        app.dry_run(lambda ctx: decide_pin(ctx, "Always run ruff."))
    assert raised.value.code == "bad_config" and ledger_lines(home) == 0


def config_in(tmp_path: Path, where: str) -> tuple[Path, Path, Path]:
    """A home and a trusted project; the configuration file of ``where`` (not yet there)."""
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".waymarks").mkdir(parents=True)
    home.mkdir()
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
    target = home / "config.toml" if where == "home" else project / ".waymarks" / "config.toml"
    return home, project, target


def assert_refused(home: Path, project: Path, reason: str) -> None:
    """``config show`` and a write both end in ``bad_config`` naming ``reason``; nothing is
    appended."""
    from tests.inprocess import waymarks

    for args in (("config", "show"), ("memory", "add", "--", "The cache TTL is 30 minutes.")):
        done = waymarks("--json", *args, env={"WAYMARKS_HOME": str(home)}, cwd=project)
        assert done.returncode == 1, (args, done.stdout[-300:], done.stderr[-300:])
        refused = json.loads(done.stdout)
        assert refused["code"] == "bad_config" and reason in refused["message"], refused
    assert ledger_lines(home) == 0


@pytest.mark.parametrize("where", ["home", "project"])
def test_a_configuration_file_too_large_to_be_one_is_refused_unparsed(
        tmp_path: Path, where: str) -> None:
    """The settings read ``config.toml`` whole, however large: a trusted repository's
    ``.waymarks/config.toml`` of gigabytes (or a link to a large file of the checkout) was
    read into memory and parsed again on every request, the Claude Code hook's on every
    prompt, while the queue's own reader of the same file refused it above 256 KiB."""
    from waymarks.service.config import MAX_CONFIG_BYTES

    home, project, target = config_in(tmp_path, where)
    line = "# " + "x" * 97 + "\n"
    target.write_text(line * (MAX_CONFIG_BYTES // len(line) + 1))
    assert_refused(home, project, f"{target}: larger than {MAX_CONFIG_BYTES} bytes")


@pytest.mark.parametrize("where", ["home", "project"])
@pytest.mark.parametrize("shape", ["dotted", "header"])
def test_tables_nested_too_deeply_are_a_bad_config_not_a_traceback(
        tmp_path: Path, where: str, shape: str) -> None:
    """Tables nested by a dotted key (``x.x.x….x = 1``) or a table header are built by the
    TOML parser without recursion, so the reader's ``RecursionError`` guard never saw
    them: a trusted repository's file of 2,000 levels was taken, and ``config show``
    ended in a traceback encoding it."""
    from tests.inprocess import waymarks

    home, project, target = config_in(tmp_path, where)
    path = ".".join(["x"] * 2_000)  # past every recursion limit (1,000); 20,000 took a minute
    target.write_text(f"{path} = 1\n" if shape == "dotted" else f"[{path}]\ny = 1\n")
    assert_refused(home, project, f"{target}: nested too deeply")
    target.write_text("[memory]\nmaxResults = 3\n")  # a sane file is read again
    done = waymarks("--json", "config", "show", env={"WAYMARKS_HOME": str(home)}, cwd=project)
    assert done.returncode == 0


def test_config_show_never_prints_the_mcp_token_or_a_credential(tmp_path: Path) -> None:
    """An agent that runs ``waymarks --json config show`` reads its output into the
    model's context, and the ``[mcp]`` bearer token was in it whole (and any key pasted
    into a setting). It says the token is set, and redacts credential-like values."""
    from tests.inprocess import waymarks

    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    token, key = "Zq8vN2xLp4TcW7mR1bYd9KsH", "sk-proj-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7" * 2
    (home / "config.toml").write_text(
        f'[mcp]\ntoken = "{token}"\n[evolution.providers.work]\n'
        f'baseUrl = "https://api.example.com/v1?key={key}"\n')
    (home / "config.toml").chmod(0o600)
    for args in (("--json", "config", "show"), ("config", "show")):
        done = waymarks(*args, env={"WAYMARKS_HOME": str(home)}, cwd=project)
        assert done.returncode == 0, done.stdout + done.stderr
        assert token not in done.stdout and key not in done.stdout
    shown = json.loads(waymarks("--json", "config", "show", env={"WAYMARKS_HOME": str(home)},
                                cwd=project).stdout)["config"]
    assert shown["mcp"]["token"] == f"[set: {len(token)} characters, not shown]"
    assert "[REDACTED:" in shown["evolution"]["providers"]["work"]["baseUrl"]


@pytest.mark.parametrize("where", ["home", "project"])
@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_a_configuration_that_is_not_a_file_is_a_bad_config_not_skipped(
        tmp_path: Path, where: str, kind: str) -> None:
    """A folder or a FIFO in ``config.toml``'s place was skipped without a word: the home's
    privacy policy silently became the defaults (the learning switch's reader of the same
    file said ``bad_config``). It is refused as an unreadable file is, the FIFO never
    waited on."""
    home, project, target = config_in(tmp_path, where)
    if kind == "directory":
        target.mkdir()
    else:
        os.mkfifo(target)
    shown = "directory" if kind == "directory" else "FIFO"
    assert_refused(home, project, f"{target}: it is a {shown}, not a regular file")


def test_an_untrusted_projects_configuration_that_is_not_a_file_is_listed_as_ignored(
        tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".waymarks" / "config.toml").mkdir(parents=True)
    settings = load_settings(home, str(project), False)
    assert settings.ignored == (f"{project / '.waymarks' / 'config.toml'} (project not trusted)",)


def test_a_project_configuration_linked_out_of_the_project_is_not_read(
        tmp_path: Path) -> None:
    """A configuration review: a repository's `.waymarks/config.toml` linking to
    `~/.cargo/credentials.toml` was read as its configuration, and `config show` printed
    the token it holds."""
    home, project, outside = tmp_path / "home", tmp_path / "project", tmp_path / "cargo"
    (project / ".waymarks").mkdir(parents=True)
    outside.mkdir()
    token = "cioAbCdEfGhIjKlMnOpQrStUvWxYz0123456"
    (outside / "credentials.toml").write_text(f'[registry]\nvaluable = "{token}"\n')
    (project / ".waymarks" / "config.toml").symlink_to(outside / "credentials.toml")
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
    settings = load_settings(home, str(project), True)
    assert "registry" not in settings.raw
    assert any("link out of the project" in i for i in settings.ignored)
    shown = cli(home, project, "--json", "config", "show")
    assert token not in shown.stdout and shown.returncode == 0


def test_a_fifo_in_place_of_the_home_configuration_is_an_error_for_evolution_too(
        tmp_path: Path) -> None:
    """A configuration review: `evolution status` opened the home's config.toml with a
    plain open and waited on a FIFO for ever; every other command refused it."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    os.mkfifo(home / "config.toml")
    done = cli(home, project, "evolution", "status", fresh=True)
    assert done.returncode == 1 and "regular file" in done.stdout + done.stderr


def test_config_show_names_the_learning_settings_a_project_may_not_set(
        tmp_path: Path) -> None:
    """A configuration review: `config show` printed a project's `[evolution]` (`learn =
    true`, a route) merged as if in force, and its `Ignored:` lines did not name them;
    `evolution status` and `learn status` did."""
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".waymarks").mkdir(parents=True)
    (project / ".waymarks" / "config.toml").write_text(
        '[evolution]\nlearn = true\nprovider = "evil"\n')
    with Waymarks(home, cwd=str(project)) as app:
        app.trust(str(project))
    shown = json.loads(cli(home, project, "config", "show").stdout)
    ignored = "\n".join(shown["ignored"])
    assert "[evolution] provider" in ignored and "learn = true" in ignored


@pytest.mark.parametrize("body", ['[context]\n"{key}" = "x"\n', '[evolution]\n"{key}" = 1\n',
                                  '["{key}"]\ny = 1\n', '[privacy]\n"{key}" = "normal"\n'])
def test_a_credential_pasted_as_a_setting_name_is_never_printed(
        tmp_path: Path, body: str) -> None:
    """A key pasted where a setting's name goes (``"sk-proj-…" = 1``, a table named by it)
    went out whole: ``config show --json`` redacted values only, and an unknown
    ``[privacy]`` setting's refusal quoted its name, both read by an agent's model."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    key = "sk-proj-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7"
    (home / "config.toml").write_text(body.format(key=key))
    for args in (("--json", "config", "show"), ("plan", "--prompt", "hello")):
        done = waymarks(*args, env={"WAYMARKS_HOME": str(home)}, cwd=project)
        assert key not in done.stdout + done.stderr, args
    shown = waymarks("--json", "config", "show", env={"WAYMARKS_HOME": str(home)}, cwd=project)
    # an unknown setting or table is refused (counted there); [evolution]'s is read later
    assert ("[REDACTED:openai-key]" if "evolution" in body else "1 not shown") in shown.stdout


@pytest.mark.parametrize(("body", "name"), [
    ('[privacy]\nlocal_providers = ["ollama"]\n', "local_providers"),
    ('[privacy]\ndefault-classification = "internal"\n', "default-classification"),
    ("[evolution]\ncalls_per_hour = 5\n", "calls_per_hour")])
def test_a_setting_name_mistyped_in_snake_case_is_named_in_the_refusal(
        tmp_path: Path, body: str, name: str) -> None:
    """TOML's own habit, ``local_providers`` for ``localProviders``, was refused as "1 not
    shown (not a setting name)" once the privacy refusal stopped echoing a pasted key (a
    re-read of that change): the person was not told which line to fix. A name of words
    joined by ``_`` or ``-`` is shown; a pasted key still is not (the test above)."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (home / "config.toml").write_text(body)
    done = waymarks("config", "show", env={"WAYMARKS_HOME": str(home)}, cwd=project)
    said = done.stdout + done.stderr
    assert name in said and "not shown" not in said, said


def test_two_keys_pasted_as_names_in_one_table_are_both_counted(tmp_path: Path) -> None:
    """Two names that redact alike became one key of ``config show --json``'s table, the
    other's line (and value) dropped from what the person was shown (a re-read of the
    change that redacts names). An unknown setting is refused now: both are counted in the
    refusal, neither shown."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    keys = ["sk-proj-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7", "sk-proj-" + "Zb3dE6gH9jK2mN5pQ8sT1vW4yZ9"]
    (home / "config.toml").write_text(f'[context]\n"{keys[0]}" = 1\n"{keys[1]}" = 2\n'
                                      "maxPinnedTokens = 100\n")
    done = waymarks("--json", "config", "show", env={"WAYMARKS_HOME": str(home)}, cwd=project)
    assert not any(key in done.stdout + done.stderr for key in keys)
    refused = json.loads(done.stdout)
    assert done.returncode == 1 and refused["code"] == "bad_config", refused
    assert "2 not shown" in refused["message"], refused


@pytest.mark.parametrize("key", ["AKIAIOSFODNN7EXAMPLE", "a3f9c2e17b8d4e6f9a0b1c2d3e4f5a6b",
                                 "fjKaiJUINlKnZfdklJrXqWe"])
def test_a_key_of_letters_and_digits_pasted_as_a_setting_name_is_counted(
        tmp_path: Path, key: str) -> None:
    """The refusal of an unknown setting counted only names with a character no setting's
    name has (``sk-proj-…``): an AWS access key ID or a 32-digit hex API key pasted as a
    name, letters and digits only, was quoted whole by every command. A setting's name is
    words in camel case, no digit."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (home / "config.toml").write_text(f'[privacy]\n"{key}" = 1\nlocalProvder = 2\n')
    for args in (("--json", "config", "show"), ("plan", "--prompt", "hello")):
        done = waymarks(*args, env={"WAYMARKS_HOME": str(home)}, cwd=project)
        assert key not in done.stdout + done.stderr, args
        assert "localProvder" in done.stdout + done.stderr, args  # a typo is still named
        assert "1 not shown" in done.stdout + done.stderr, args
