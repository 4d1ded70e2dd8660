"""The ``--json`` contract as a script relies on it, walked over the whole command table.

With ``--json`` every command prints exactly one JSON document on standard output and
nothing else there, success and failure alike; no traceback anywhere; a failure exits 2
(refused or a bad argument, nothing changed: ``"outcome": "rejected"``) or 1 (an
environment problem), and its document carries a machine-readable ``code`` and a
``message`` saying what to do (docs/cli.md, "Global options").

Every command and subcommand of ``waymarks --help`` (groups too) goes through: ``--help``;
an unknown option; a missing required argument; an unknown ID where it takes one. Then
the environment a script meets: a bad configuration file, a damaged database, an
untrusted project, a missing or unreadable file argument, a confirmation it cannot give.
In-process (:mod:`tests.inprocess`): the servers (``mcp``, ``ui``, ``bridge``) and the
hook are only ever given command lines they refuse before serving or reading.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import click
import pytest

from tests.inprocess import Ran, waymarks
from waymarks.cli.app import build_root
from waymarks.commands.base import walk

COMMANDS = walk(build_root())
PATHS = [info.path for info in COMMANDS]
#: the commands with a required argument
REQUIRED = [info.path for info in COMMANDS
            if any(isinstance(p, click.Argument) and p.required for p in info.command.params)]
UNKNOWN = "deadbeef"


def contract(ran: Ran) -> dict[str, Any]:
    """The one document ``ran`` printed, checked against the contract."""
    where = (ran.args, ran.returncode, ran.stdout[-400:], ran.stderr[-400:])
    assert "Traceback" not in ran.stdout + ran.stderr, where
    lines = ran.stdout.splitlines()
    assert len(lines) == 1, f"--json prints exactly one line: {where}"
    document = json.loads(lines[0])
    assert isinstance(document, dict), where
    if ran.returncode != 0:
        assert ran.returncode in (1, 2), where
        assert isinstance(document.get("code"), str) and document["code"], where
        assert isinstance(document.get("message"), str) and document["message"].strip(), where
        # docs/cli.md: every failure carries outcome, id, code, conflicts, notices and message
        assert {"outcome", "id", "conflicts", "notices"} <= document.keys(), where
        # exit 2 is a refusal; exit 1 is never called one (docs/cli.md: exit status)
        assert (document.get("outcome") == "rejected") == (ran.returncode == 2), where
    return document


class Home(NamedTuple):
    root: Path
    project: Path
    env: Mapping[str, str]
    #: a project claim (``shared`` only)
    claim: str = ""

    def run(self, *args: str, stdin: str = "") -> Ran:
        return waymarks(*args, env=self.env, cwd=self.project, input=stdin)


def make_home(root: Path) -> Home:
    """A home whose HOME, Pi and Claude Code folders are all under ``root``."""
    project = root / "project"
    project.mkdir()
    (root / "user").mkdir()
    env = {"WAYMARKS_HOME": str(root / "home"), "HOME": str(root / "user"),
           "PI_CODING_AGENT_DIR": str(root / "pi-agent"), "WAYMARKS_SEMANTIC": "off",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    return Home(root, project, env)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Home]:
    """One home for the rows that change nothing (help, usage errors, unknown IDs): a
    trusted git project with team memory set up, a pin and a claim. Built once per worker."""
    home = make_home(tmp_path_factory.mktemp("contract"))
    subprocess.run(["git", "init", "-q", str(home.project)], check=True, env={
        **home.env, "PATH": "/usr/bin:/bin"})
    for argv in (["trust", str(home.project)], ["team", "init"], ["pin", "--", "Run tests"],
                 ["learn", "on"]):
        assert contract(home.run("--json", *argv))  # fixture's own check
    added = contract(home.run("--json", "memory", "add", "--scope", "project", "--",
                              "Deploys go to staging first."))
    yield home._replace(claim=added["id"])


# -- every command: help, an unknown option, a missing argument ----------------------------


def test_the_walk_reaches_the_nested_commands() -> None:
    names = {" ".join(p) for p in PATHS}
    assert {"memory add", "team share", "learn status", "evolution show", "config show",
            "claude-code install", "pi install", "ui", "mcp", "bridge", "import", "export",
            "hook claude-code", "context", "help", "completion"} <= names


@pytest.mark.parametrize("path", PATHS, ids=" ".join)
def test_help_is_one_document(shared: Home, path: tuple[str, ...]) -> None:
    ran = shared.run(*path, "--help", "--json")
    assert ran.returncode == 0
    document = contract(ran)
    assert document["usage"].startswith(f"Usage: waymarks {' '.join(path)}"), document


@pytest.mark.parametrize("path", PATHS, ids=" ".join)
def test_an_unknown_option_is_a_usage_error(shared: Home, path: tuple[str, ...]) -> None:
    # --json last: before the event, the hook's launcher would take the option for one
    document = contract(shared.run(*path, "--no-such-option", "--json"))
    assert document["code"] == "usage" and "--no-such-option" in document["message"]
    assert f"see `waymarks {' '.join(path)}" in document["message"] or \
        document["message"].endswith("--help`"), document


#: each command with an option that takes a value, and its first such option
VALUED = [(info.path, info.options[0]) for info in COMMANDS if info.options]


@pytest.mark.parametrize(("path", "option"), VALUED, ids=lambda x: " ".join(x)
                         if isinstance(x, tuple) else x)
def test_an_option_without_its_value_points_at_its_commands_help(
        shared: Home, path: tuple[str, ...], option: str) -> None:
    """``memory add --key`` said "see `waymarks --help`" (click names no command for a
    missing value), where every other usage error names the command's own help."""
    for argv in (["--json", *path, option], ["--json", "context", " ".join([*path, option])]):
        ran = shared.run(*argv)
        document = contract(ran)
        assert ran.returncode == 2 and document["code"] == "usage", document
        assert document["message"] == f"Option '{option}' requires an argument; see " \
            f"`waymarks {' '.join(path)} --help`", document


@pytest.mark.parametrize("path", REQUIRED, ids=" ".join)
def test_a_missing_argument_is_a_usage_error(shared: Home, path: tuple[str, ...]) -> None:
    ran = shared.run("--json", *path)
    document = contract(ran)
    if path == ("hook", "claude-code"):  # exit 1: Claude Code blocks the prompt on a 2
        assert ran.returncode == 1 and document["code"] == "usage", document
        assert document["message"].startswith("not a hook command line"), document
        return
    assert ran.returncode == 2 and document["code"] == "usage", document
    assert document["message"].startswith(("Missing argument", "give the command")), document


# -- an unknown ID ----------------------------------------------------------------------

#: every command taking an ID (or a name) with one that names nothing: (code, argv)
UNKNOWN_IDS: dict[str, tuple[str, list[str]]] = {
    "session branch": ("not_found", ["session", "branch", UNKNOWN]),
    "unpin": ("not_found", ["unpin", UNKNOWN]),
    "memory supersede": ("not_found", ["memory", "supersede", UNKNOWN, "--", "New text."]),
    "memory invalidate": ("not_found", ["memory", "invalidate", UNKNOWN]),
    "memory expire": ("not_found", ["memory", "expire", UNKNOWN]),
    "memory show": ("not_found", ["memory", "show", UNKNOWN]),
    # no terminal: refused before the ID is looked up (docs/cli.md: memory edit)
    "memory edit": ("invalid_argument", ["memory", "edit", UNKNOWN]),
    "memory exclude": ("not_found", ["memory", "exclude", UNKNOWN]),
    "memory include": ("not_found", ["memory", "include", UNKNOWN]),
    "personal show": ("not_found", ["personal", "show", "no-such-slug"]),
    "personal forget": ("not_found", ["personal", "forget", "no-such-slug"]),
    "learn forget": ("not_found", ["learn", "forget", UNKNOWN]),
    "team share": ("not_found", ["team", "share", UNKNOWN]),
    "team unshare": ("not_found", ["team", "unshare", UNKNOWN]),
    "team supersede": ("not_found", ["team", "supersede", UNKNOWN, "New text."]),
    "team exclude": ("not_found", ["team", "exclude", "nobody"]),
    "team include": ("not_found", ["team", "include", "nobody"]),
    "team accept": ("not_found", ["team", "accept", "nobody"]),
    "evolve": ("not_found", ["evolve", UNKNOWN]),
    "evolution show": ("not_found", ["evolution", "show", UNKNOWN]),
    "evolution history": ("not_found", ["evolution", "history", "--claim", UNKNOWN]),
    "evolution forget": ("not_found", ["evolution", "forget", UNKNOWN]),
    "evolution correct": ("not_found", ["evolution", "correct", UNKNOWN, "New text."]),
    "evolution undo": ("usage", ["evolution", "undo", UNKNOWN]),  # an event is a number
    "evolution conflict": ("not_found", ["evolution", "conflict", UNKNOWN, "cafebabe"]),
    "evolution resolve": ("not_found", ["evolution", "resolve", UNKNOWN]),
    "evolution pin": ("not_found", ["evolution", "pin", UNKNOWN]),
    "evolution unpin": ("not_found", ["evolution", "unpin", UNKNOWN]),
    "evolution adopt": ("not_found", ["evolution", "adopt", UNKNOWN]),
    "evolution feedback": ("not_found", ["evolution", "feedback", UNKNOWN, "incorrect"]),
    "feedback": ("not_found", ["feedback", UNKNOWN, "incorrect"]),
    "--session": ("bad_session", ["--session", UNKNOWN, "pins"]),
}
#: argument names that are IDs or names of stored things
ID_ARGUMENTS = {"ENTRY_ID", "PIN_ID", "MEMORY_ID", "SESSION_ID", "SLUG", "ID", "TEAM_ID",
                "CONTRIBUTOR", "[SOURCE]", "EVENT", "A"}


def test_every_command_taking_an_id_has_a_row() -> None:
    takes_one = {" ".join(info.path) for info in COMMANDS
                 if ID_ARGUMENTS & set(info.arguments) and info.path[0] != "hook"}
    assert takes_one <= set(UNKNOWN_IDS), takes_one - set(UNKNOWN_IDS)


@pytest.mark.parametrize("name", sorted(UNKNOWN_IDS))
def test_an_unknown_id_is_refused(shared: Home, name: str) -> None:
    code, argv = UNKNOWN_IDS[name]
    ran = shared.run("--json", *argv)
    document = contract(ran)
    assert (ran.returncode, document["code"]) == (2, code), document
    if code == "not_found":  # with where to look
        assert "waymarks " in document["message"], document


# -- the environment ----------------------------------------------------------------------


@pytest.fixture
def fresh(tmp_path: Path) -> Home:
    home = make_home(tmp_path)
    assert contract(home.run("--json", "pin", "--", "Run tests"))
    return home


#: a home configuration file that is not TOML: the same code and exit status everywhere
BAD_CONFIG = [["pin", "--", "Another pin"], ["learn", "status"], ["learn", "on"],
              ["evolve"], ["evolution", "status"]]


@pytest.mark.parametrize("argv", BAD_CONFIG, ids=" ".join)
def test_a_bad_configuration_file_is_one_error(fresh: Home, argv: list[str]) -> None:
    config = fresh.root / "home" / "config.toml"
    config.write_text("[evolution]\nlearn = true\n[privacy\n", encoding="utf-8")
    ran = fresh.run("--json", *argv)
    document = contract(ran)
    assert (ran.returncode, document["code"]) == (1, "bad_config"), document
    assert str(config) in document["message"] and "fix or remove it" in document["message"]


def test_a_bad_configuration_file_reads_as_text_without_json(fresh: Home) -> None:
    (fresh.root / "home" / "config.toml").write_text("[evolution\n", encoding="utf-8")
    ran = fresh.run("evolution", "status")
    assert (ran.returncode, ran.stdout) == (1, "")
    assert ran.stderr.startswith("waymarks: ") and "config.toml" in ran.stderr


def test_a_damaged_database_is_reported_in_the_document(fresh: Home) -> None:
    (fresh.root / "home" / "waymarks.db").write_bytes(b"not a database" * 512)
    document = contract(fresh.run("--json", "pins"))
    assert [item["text"] for item in document["items"]] == ["Run tests"]
    assert document["recovered"]["damaged"], document


def test_a_database_that_is_a_directory_is_an_environment_error(fresh: Home) -> None:
    database = fresh.root / "home" / "waymarks.db"
    database.unlink()
    database.mkdir()
    ran = fresh.run("--json", "pins")
    assert ran.returncode == 1 and contract(ran)["code"] == "database_error"


def test_an_untrusted_project_is_refused(fresh: Home) -> None:
    ran = fresh.run("--json", "memory", "add", "--scope", "project", "--", "The port is 1.")
    document = contract(ran)
    assert (ran.returncode, document["code"]) == (2, "untrusted")
    assert f"waymarks trust {fresh.project}" in document["message"]


@pytest.mark.parametrize("argv", [
    ["import", "{missing}"], ["import", "{directory}"], ["pin", "--file", "{missing}"],
    ["pin", "--file", "{directory}"], ["evolution", "import", "{missing}"],
    ["trust", "{missing}"], ["export", "-o", "{missing}/out.jsonl"],
    ["export", "-o", "{directory}"],
], ids=" ".join)
def test_a_file_argument_that_cannot_be_read_is_refused(fresh: Home,
                                                        argv: list[str]) -> None:
    places = {"missing": str(fresh.root / "missing"), "directory": str(fresh.root)}
    ran = fresh.run("--json", *(arg.format(**places) for arg in argv))
    document = contract(ran)
    assert ran.returncode == 2, document
    assert str(fresh.root) in document["message"], document


@pytest.mark.parametrize("command", ["trust", "untrust"])
def test_an_empty_project_path_is_refused_not_the_working_directory(fresh: Home,
                                                                    command: str) -> None:
    """``trust ""`` (a script's unset variable) trusted the working directory. The fix it
    names is the command's own: ``untrust ""`` was told "e.g. `waymarks trust .`", which
    trusts the folder the person meant to stop trusting."""
    ran = fresh.run("--json", command, "")
    document = contract(ran)
    assert (ran.returncode, document["code"]) == (2, "invalid_argument"), document
    assert f"`waymarks {command} .`" in document["message"]
    assert contract(fresh.run("--json", "trust", "--list"))["projects"] == []


def test_a_confirmation_without_a_terminal_is_refused(shared: Home) -> None:
    ran = shared.run("--json", "team", "share", shared.claim[:8])
    document = contract(ran)
    assert (ran.returncode, document["code"]) == (2, "confirmation_required")
    assert "--yes" in document["message"]
    assert contract(shared.run("--json", "team", "status"))["items"] == []


def test_team_writes_print_the_write_shape(fresh: Home) -> None:
    """docs/cli.md's writes: ``outcome``, ``id``, ``code``, ``conflicts``, ``notices`` (``team
    share`` lacked the last three, ``team exclude|include|accept`` the outcome); ``team
    init|accept|exclude|include`` add ``contributor`` and ``changed`` (``init`` lacked
    ``changed``)."""
    subprocess.run(["git", "init", "-q", str(fresh.project)], check=True, env={
        **fresh.env, "PATH": "/usr/bin:/bin"})
    contract(fresh.run("--json", "trust", str(fresh.project)))
    for first in (True, False):  # (a re-read: `team init` had none of the keys)
        made = contract(fresh.run("--json", "team", "init"))
        assert {"outcome", "id", "code", "conflicts", "notices", "contributor",
                "changed"} <= made.keys(), made
        assert (made["outcome"], made["changed"]) == (
            ("committed", True) if first else ("unchanged", False)), made
    pin = contract(fresh.run("--json", "pin", "--scope", "project", "--", "Tag by date"))
    shared = contract(fresh.run("--json", "team", "share", pin["id"], "--yes"))
    me = shared["contributor"]
    for argv in (["share", pin["id"], "--yes"], ["accept", me], ["include", me]):
        document = contract(fresh.run("--json", "team", *argv))
        assert {"outcome", "id", "code", "conflicts", "notices"} <= document.keys(), document
        assert document["outcome"] in ("committed", "duplicate", "unchanged"), document
        if argv[0] != "share":
            assert {"contributor", "changed"} <= document.keys(), document
            assert document["changed"] == (document["outcome"] == "committed"), document


# -- where --json is written --------------------------------------------------------------


@pytest.mark.parametrize("words", [
    "pins --json --no-such-option", "pins --no-such-option --json", "pins -h --json",
    "unpin deadbeef --json", "context pins --json",
])
def test_json_inside_a_context_string_answers_in_json(shared: Home, words: str) -> None:
    ran = shared.run("context", words)
    document = contract(ran)
    assert "usage" in document or document["code"] in ("usage", "not_found"), document


@pytest.mark.parametrize("flag", ["--json=true", "--JSON=1"])
def test_json_given_a_value_is_refused_in_json(shared: Home, flag: str) -> None:
    ran = shared.run(flag, "pins")
    document = contract(ran)
    assert (ran.returncode, document["code"]) == (2, "usage")
    assert "does not take a value" in document["message"]


@pytest.mark.parametrize("argv", [["--json", "--version"], ["--version", "--json"],
                                  ["--json"], ["--json", "no-such-command"]], ids=" ".join)
def test_the_root_answers_in_json(shared: Home, argv: list[str]) -> None:
    ran = shared.run(*argv)
    document = contract(ran)
    if "--version" in argv:
        assert ran.returncode == 0 and document["version"], document
    else:
        assert (ran.returncode, document["code"]) == (2, "usage"), document


def test_json_after_double_dash_is_text_not_the_flag(shared: Home) -> None:
    ran = shared.run("memory", "show", UNKNOWN, "--", "--json")
    assert ran.returncode == 2 and ran.stdout == "" and "Traceback" not in ran.stderr


@pytest.mark.slow
def test_a_real_process_keeps_the_contract(tmp_path: Path) -> None:
    """The console script in a process of its own: a usage error and an unknown ID."""
    home = make_home(tmp_path)
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "config.toml").write_text("[evolution]\nlearn = true\n")
    env = {**home.env, "PATH": "/usr/bin:/bin", "WAYMARKS_CC_HELPER": "off"}
    for argv, status in ((["--json", "no-such-command"], 2), (["--json", "evolve", UNKNOWN], 2),
                         (["--json", "unpin", UNKNOWN], 2)):
        done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", *argv],
                              capture_output=True, text=True, cwd=home.project, env=env,
                              timeout=60, check=False)
        ran = Ran(argv, done.returncode, done.stdout, done.stderr)
        assert ran.returncode == status and contract(ran)["code"], ran
