"""The default home: platformdirs' user data directory, answered without importing
platformdirs in the ordinary Linux case (``waymarks.cli.home``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import platformdirs
import pytest

from tests.conftest import isolated_python
from tests.documentation import section
from waymarks.cli import home

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the shortcut answers the Linux case only")

ENVIRONMENTS = [
    {"HOME": "/home/ada"},
    {"HOME": "/home/ada", "XDG_DATA_HOME": ""},
    {"HOME": "/home/ada", "XDG_DATA_HOME": "   "},
    {"HOME": "/home/ada", "XDG_DATA_HOME": "/data/ada"},
    {"HOME": "/home/ada/", "XDG_DATA_HOME": "/data/ada/"},
    {"HOME": "/home/ada//"},
    {"HOME": "//"},
    {"HOME": "/"},
    {"HOME": "/home/ada", "XDG_DATA_HOME": "//"},
    {"HOME": "/home/ada", "ANDROID_DATA": "/data", "ANDROID_ROOT": "/system"},
    {"HOME": "/home/ada", "XDG_DATA_HOME": "/data/with space"},
    {"HOME": "/home/ada", "XDG_DATA_HOME": "relative/data"},  # platformdirs decides
    {"HOME": "relative-home"},  # platformdirs decides
    {"HOME": "/home/ada", "XDG_DATA_HOME": " /data/padded"},  # platformdirs decides
]


@pytest.mark.parametrize("environment", ENVIRONMENTS, ids=repr)
def test_the_home_is_platformdirs_user_data_dir(monkeypatch: pytest.MonkeyPatch,
                                                environment: dict[str, str]) -> None:
    monkeypatch.delenv("WAYMARKS_HOME", raising=False)
    for name in ("XDG_DATA_HOME", "ANDROID_DATA", "ANDROID_ROOT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    try:
        expected = platformdirs.user_data_dir("waymarks", appauthor=False)
    except RuntimeError:  # a relative HOME: some releases refuse it
        with pytest.raises(RuntimeError):
            home.user_data_dir()
        return
    assert home.user_data_dir() == expected
    assert home.default_home() == expected


def test_waymarks_home_wins_and_expands_the_tilde(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/ada")
    monkeypatch.setenv("WAYMARKS_HOME", "~/memory")
    assert home.default_home() == "/home/ada/memory"


@pytest.mark.slow
def test_a_fresh_recall_in_the_default_home_does_not_import_platformdirs(
        tmp_path: Path) -> None:
    """A person without ``WAYMARKS_HOME``: the memory added by the full CLI is found by a
    one-shot recall, in ``$HOME/.local/share/waymarks``, and platformdirs (~5 ms of
    imports) was never loaded by the recall."""
    project = tmp_path / "project"
    project.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("WAYMARKS_HOME", "XDG_DATA_HOME")}
    env.update(HOME=str(tmp_path / "person"), WAYMARKS_CC_HELPER="off")
    full = "import sys; from waymarks.cli.app import run; sys.exit(run(sys.argv[1:]))"
    added = subprocess.run([sys.executable, "-c", full,
                            "memory", "add", "--", "The database port is 5433."],
                           cwd=project, env=env, capture_output=True, text=True, timeout=120)
    assert added.returncode == 0, added.stderr
    assert (tmp_path / "person" / ".local" / "share" / "waymarks").is_dir()
    probe = ("import io, sys, contextlib\n"
             "from waymarks.cli.main import main\n"
             "out = io.StringIO()\n"
             "with contextlib.redirect_stdout(out):\n"
             "    status = main(['recall', 'what is the database port?'])\n"
             "print(status, '5433' in out.getvalue(), 'platformdirs' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], cwd=project, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["0", "True", "False"], done.stderr


@pytest.mark.parametrize("entry", [["-m", "waymarks.cli.main"],  # the lean recall path
                                   ["-c", "import sys; from waymarks.cli.app import run; "
                                          "sys.exit(run(sys.argv[1:]))"]],
                         ids=["lean", "full"])
def test_a_home_whose_tilde_cannot_be_expanded_is_refused(tmp_path: Path,
                                                         entry: list[str]) -> None:
    """``WAYMARKS_HOME=~nosuchuser/wm``: ``~`` names no user, and the home would have been a
    folder named ``~nosuchuser`` in whatever directory the command ran in (one per
    project). Refused, exit 2, nothing created."""
    env = {**os.environ, "WAYMARKS_HOME": "~waymarks-no-such-user/wm",
           "WAYMARKS_CC_HELPER": "off"}
    done = subprocess.run([sys.executable, *entry, "--json", "recall", "database port"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert '"invalid_argument"' in done.stdout and "cannot be expanded" in done.stdout
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("how", ["installed", "console"])
def test_a_hook_with_a_home_whose_tilde_cannot_be_expanded_records_nothing(
        tmp_path: Path, how: str) -> None:
    """The hook as ``claude-code install`` writes it (``hook_entry.py --home``) and as the
    console script runs it (``WAYMARKS_HOME``): the prompt would have been recorded in a
    folder named ``~nosuchuser`` inside the person's project. Exit 1 (never 2, which
    Claude Code reads as "block the prompt"), the reason on standard error, nothing
    created."""
    from waymarks.hosts import hook_entry

    home = "~waymarks-no-such-user/wm"
    event = json.dumps({"session_id": "7d3c0000-0000-4000-8000-000000007d3c",
                        "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit",
                        "prompt": "a secret prompt", "transcript_path": str(tmp_path / "t")})
    env = {**os.environ, "WAYMARKS_CC_HELPER": "off", "CLAUDE_PROJECT_DIR": str(tmp_path)}
    if how == "installed":
        argv = [*isolated_python(), hook_entry.__file__, "--home", home, "hook",
                "claude-code", "UserPromptSubmit"]
    else:
        argv = [sys.executable, "-m", "waymarks.cli.main", "hook", "claude-code",
                "UserPromptSubmit"]
        env["WAYMARKS_HOME"] = home
    done = subprocess.run(argv, input=event, cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert (done.returncode, done.stdout) == (1, "")
    assert "cannot be expanded" in done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("args", "variable"), [
    (["--home", ""], None), (["--home", "   "], None), (["--home", "relhome"], None),
    ([], "relhome"), ([], "./relhome")], ids=repr)
@pytest.mark.parametrize("command", [["pin", "--", "A project note."], ["recall", "notes"]],
                         ids=["cli", "lean recall"])
@pytest.mark.slow
def test_an_empty_or_relative_home_is_refused_and_nothing_is_written_here(
        tmp_path: Path, args: list[str], variable: str | None, command: list[str]) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "WAYMARKS_HOME"}
    env["WAYMARKS_CC_HELPER"] = "off"
    if variable is not None:
        env["WAYMARKS_HOME"] = variable
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", *args, "--json",
                           *command], cwd=project, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2, (done.stdout, done.stderr)
    refused = json.loads(done.stdout)
    assert refused["code"] == "invalid_argument"
    assert ("empty" if not variable and not args[1].strip() else "relative path") \
        in refused["message"] and "absolute path" in refused["message"]
    assert list(project.iterdir()) == [], "no database or sessions in the project"


def _readme_home() -> str:
    """The home docs/python.md's "From Python" example computes (its lines up to ``home = …``)."""
    example = section("From Python").split("```python", 1)[1]
    example = example.split("with Waymarks(", 1)[0]
    found: dict[str, object] = {}
    exec(example, found)  # docs/python.md's own example
    return str(found["home"])


@pytest.mark.parametrize("environment", [
    {"WAYMARKS_HOME": "/srv/chosen-home"}, {"WAYMARKS_HOME": "~/wm"},
    {"XDG_DATA_HOME": "/data/ada"}, {}], ids=repr)
def test_readme_shows_a_program_the_home_the_command_line_uses(
        monkeypatch: pytest.MonkeyPatch, environment: dict[str, str]) -> None:
    """An embedder following docs/python.md's example opens the CLI's home, not a fixed
    ``~/.local/share/waymarks`` (which ignored ``WAYMARKS_HOME`` and ``XDG_DATA_HOME``)."""
    for name in ("WAYMARKS_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", "/home/ada")
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert _readme_home() == home.default_home()
