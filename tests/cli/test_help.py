"""Issue 16, defects 1 and 2: ``-h`` and ``--help`` work on every command and subcommand,
print help (with examples, and an example for every option), exit 0, and write nothing;
``-h`` is never content."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from waymarks.cli.app import build_root
from waymarks.cli.main import main
from waymarks.commands.base import walk

PATHS = [info.path for info in walk(build_root())]
UNEXAMPLED = {"--help", "-h", "--version"}  # the globals any CLI has


def fingerprint(root: Path) -> dict[str, str]:
    """Every file under ``root`` and its content hash (directories too, as empty)."""
    found = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        found[key] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "/"
    return found


@pytest.fixture
def populated(home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
              capsys: pytest.CaptureFixture[str]) -> Path:
    """A home with a session, a pin, a claim and a personal entry."""
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.setenv("WAYMARKS_CC_HELPER", "off")
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(home.parent / "pi-agent"))
    monkeypatch.setenv("HOME", str(home.parent / "user"))
    monkeypatch.chdir(project)
    for argv in (["pin", "--", "Run the tests"], ["memory", "add", "--", "Port is 5433"],
                 ["personal", "save", "--", "Prefers small PRs"]):
        assert main(argv) == 0
    capsys.readouterr()
    return home


def test_the_walk_covers_every_command() -> None:
    names = {" ".join(p) for p in PATHS}
    assert {"pin", "memory add", "memory show", "memory search", "memory edit", "export",
            "import", "mcp", "bridge", "pi install", "claude-code uninstall",
            "hook claude-code", "adr new", "completion", "context", "help"} <= names
    assert len(PATHS) > 60


@pytest.mark.parametrize("flag", ["-h", "--help"])
@pytest.mark.slow
def test_every_command_answers_help_and_writes_nothing(populated: Path, project: Path,
                                                       flag: str,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    before = fingerprint(populated.parent)
    for path in PATHS:
        code = main([*path, flag])
        out = capsys.readouterr().out
        assert code == 0, (path, out)
        assert out.startswith(f"Usage: waymarks {' '.join(path)}"), (path, out[:200])
        assert "Examples:" in out, path
        as_json = main(["--json", *path, flag])
        document = json.loads(capsys.readouterr().out)
        assert as_json == 0 and document["usage"].startswith("Usage:"), path
    assert main([flag]) == 0 and "Commands:" in capsys.readouterr().out
    assert fingerprint(populated.parent) == before, "asking for help wrote something"


def test_every_option_has_help_with_an_example() -> None:
    missing = []
    for info in walk(build_root()):
        for param in info.command.params:
            if isinstance(param, click.Option) and not set(param.opts) & UNEXAMPLED:
                text = param.help or ""
                if "e.g." not in text.lower():
                    missing.append(f"{' '.join(info.path)} {param.opts[0]}")
    assert missing == []


def test_help_after_text_is_help_and_after_double_dash_is_content(
        populated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["pin", "-h"], ["pin", "Run", "it", "-h"], ["memory", "add", "-h"],
                 ["memory", "add", "x", "--help"], ["session", "say", "-h"]):
        before = fingerprint(populated)
        assert main(argv) == 0
        assert capsys.readouterr().out.startswith("Usage:"), argv
        assert fingerprint(populated) == before, argv
    assert main(["--json", "pin", "--", "-h"]) == 0
    assert json.loads(capsys.readouterr().out)["outcome"] == "committed"
    assert main(["--json", "pins"]) == 0
    assert "-h" in [item["text"] for item in json.loads(capsys.readouterr().out)["items"]]


@pytest.mark.parametrize(("argv", "usage"), [
    (["memory", "add", "--key", "-h", "--", "Some text is here."], "waymarks memory add"),
    (["memory", "add", "--KEY", "--HELP", "--", "Some text is here."], "waymarks memory add"),
    (["personal", "save", "--description", "--help", "--", "I like green tea."],
     "waymarks personal save"),
    (["pin", "--scope", "-h", "Run it."], "waymarks pin"),
    (["--cwd", "-h", "pins"], "waymarks [OPTIONS]"),
    (["context", "memory add --key -h -- Some text is here."], "waymarks memory add"),
    (["context", "memory", "add", "--key", "-h", "--", "Some text."], "waymarks memory add"),
], ids=repr)
def test_help_as_an_options_value_is_help_and_writes_nothing(
        populated: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
        usage: str) -> None:
    """``-h``/``--help`` where an option's value goes was stored as that value (``memory
    add --key -h`` recorded the key 'h', ``personal save --description --help`` saved that
    description): it is the help of the command it was given to, and nothing is written."""
    before = fingerprint(populated)
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith(f"Usage: {usage}"), argv
    assert fingerprint(populated) == before, argv


def test_text_starting_with_a_dash_says_how(populated: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    before = fingerprint(populated)
    assert main(["pin", "-x"]) == 2
    assert "needs '--' before it" in capsys.readouterr().err
    assert fingerprint(populated) == before


def test_groups_list_all_their_subcommands(populated: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memory", "--help"]) == 0
    listed = capsys.readouterr().out
    for sub in ("list", "add", "supersede", "invalidate", "expire", "show", "search", "edit",
                "sources", "exclude", "include"):
        assert f"\n  {sub} " in listed, sub
    for group, subs in (("pi", ("install", "uninstall")),
                        ("claude-code", ("install", "uninstall")), ("adr", ("new",))):
        assert main([group, "--help"]) == 0
        out = capsys.readouterr().out
        assert all(f"\n  {sub} " in out for sub in subs), (group, out)


@pytest.mark.slow
def test_the_launchers_help_through_a_real_process(home: Path, project: Path) -> None:
    """Defect 2 as reported: ``mcp --help`` and ``bridge --help`` printed nothing; ``pi
    --help`` and ``claude-code --help`` said Unknown command."""
    env = {**os.environ, "WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off"}
    for args in (["mcp", "--help"], ["bridge", "--help"], ["pi", "--help"],
                 ["claude-code", "--help"], ["adr", "--help"], ["hook", "claude-code", "-h"],
                 ["context", "pin -h"]):
        done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", *args], cwd=project,
                              env=env, capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL, check=False)
        assert done.returncode == 0 and done.stdout.startswith("Usage: waymarks"), \
            (args, done.stdout, done.stderr)
    assert not home.exists()


def test_help_loads_no_service_and_the_copied_names_agree(tmp_path: Path) -> None:
    """Help is answered from the command table alone (it stays quick); the names the
    table copies to avoid that import are the service's."""
    from waymarks.commands.options import LEVEL_NAMES
    from waymarks.commands.personal import ENTRY_TYPES, NOTE_TYPES
    from waymarks.core.model import CLASSIFICATIONS
    from waymarks.personal.entry import ENTRY_TYPES as STORE_TYPES
    from waymarks.personal.notes import NOTE_TYPES as STORED_NOTE_TYPES

    assert LEVEL_NAMES == CLASSIFICATIONS and ENTRY_TYPES == STORE_TYPES
    assert NOTE_TYPES == STORED_NOTE_TYPES
    probe = ("import sys, contextlib, io; from waymarks.cli.main import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    main(['memory', 'add', '--help'])\n"
             "print(sorted(m for m in sys.modules if m.startswith(('waymarks.service', "
             "'waymarks.store', 'waymarks.ledger'))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60, check=True,
                          env={**os.environ, "WAYMARKS_HOME": str(tmp_path / "h")})
    assert done.stdout.strip() == "[]"


def test_the_table_builds_a_command_when_it_is_looked_up() -> None:
    """Each loader of the table registers exactly the names it is listed with (else the
    lookup fails loudly), the help order stays the table's, and looking one command up
    builds its own loader's commands only."""
    from waymarks.commands.table import TABLE, build

    root = build_root()
    context = click.Context(root)
    assert root.commands.keys().isdisjoint(
        name for names, _loader in TABLE for name in names)  # nothing built yet
    assert root.get_command(context, "pin") is not None
    assert {"pins", "pin", "unpin"} <= root.commands.keys()
    assert "memory" not in root.commands and "team" not in root.commands
    listed = [name for names, _loader in TABLE for name in names]
    assert build().list_commands(context) == listed
    assert root.list_commands(context)[:len(listed)] == listed
    root.load_all()
    assert set(listed) <= root.commands.keys()


def test_a_loader_that_registers_other_names_than_listed_fails_loudly() -> None:
    from waymarks.commands.base import Group

    group = Group("x")
    group.later(("one", "two"), lambda g: g.add_command(click.Command("one"), "one"))
    with pytest.raises(RuntimeError, match="the loader of one, two registered one"):
        group.get_command(click.Context(group), "two")


@pytest.mark.parametrize(("typo", "meant"), [("pnis", "pins"), ("memroy", "memory"),
                                             ("evolutoin", "evolution")])
def test_a_mistyped_command_is_offered_the_command_meant(
        typo: str, meant: str, home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Click suggests close names from the commands registered so far: with the table built
    a command at a time, a typo of one not yet looked up was offered none of them
    ('pnis': "Did you mean 'pi'?", 'memroy': nothing)."""
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    assert main([typo]) == 2
    err = capsys.readouterr().err
    assert f"No such command '{typo}'" in err and f"'{meant}'" in err, err


@pytest.mark.parametrize("argv", [["--", "--json"], ["--", "--nosuch"], ["--", "-x"]])
def test_an_option_where_the_command_goes_is_a_usage_error(argv: list[str],
                                                           tmp_path: Path) -> None:
    """Click parses an option-like command name as options before it fails; the lookup
    that builds the rest of the table then retried on the emptied arguments and raised
    IndexError (found by the long hostile-input property run)."""
    from tests.inprocess import waymarks

    done = waymarks(*argv, env={"WAYMARKS_HOME": str(tmp_path / "home")}, cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("path", [["pi", "install"], ["pi", "uninstall"],
                                  ["claude-code", "install"], ["claude-code", "uninstall"]])
def test_the_installers_help_examples_run_as_written(path: list[str], tmp_path: Path,
                                                     project: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Each example the installers' help shows runs as written on a fresh machine (a new
    user's home, a git project): `pi install --agent-dir /tmp/pi` was refused (exit 2: no
    such directory, add --create) once a missing --agent-dir needed --create."""
    from tests.inprocess import waymarks as run_waymarks

    user = tmp_path / "user"
    user.mkdir()
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    shown = run_waymarks(*path, "--help").stdout
    examples = [line.strip() for line in shown.split("Examples:", 1)[1].splitlines()
                if line.strip().startswith("waymarks ")]
    assert examples, shown
    for example in examples:
        words = [str(user) + w[1:] if w.startswith("~/") else w for w in example.split()[1:]]
        assert not any(w.startswith("/") and not w.startswith(str(tmp_path)) for w in words), \
            f"{example}: an example writes outside the user's home"
        done = run_waymarks("--home", str(tmp_path / "home"), *words, cwd=project)
        assert done.returncode == 0, (example, done.stdout, done.stderr)
