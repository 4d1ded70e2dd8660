"""``waymarks recall``'s lean path answers exactly as the full CLI does, and gives every
command line it does not recognise exactly to the full CLI.

Both paths run as real processes on the same home: the entry point (``python -m
waymarks.cli.main``, which takes the lean path) and the full CLI alone
(``waymarks.cli.app.run``, click and the command table)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from waymarks.cli.lean import parse, parse_mcp

FULL = "import sys; from waymarks.cli.app import run; sys.exit(run(sys.argv[1:]))"


def _run(argv: list[str], cwd: Path, home: Path, *, full: bool) -> tuple[int, str, str]:
    entry = ["-c", FULL] if full else ["-m", "waymarks.cli.main"]
    env = {**os.environ, "WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off"}
    done = subprocess.run([sys.executable, *entry, *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("lean")
    home, project = root / "home", root / "project"
    project.mkdir()
    for text in ("The checkout service uses Kafka for event fan-out.",
                 "The database port is 5433.",
                 "Deploys go to staging first, then production."):
        code, _out, err = _run(["memory", "add", "--", text], project, home, full=True)
        assert code == 0, err
    return home, project


CASES = [
    ["recall", "which service uses Kafka for event fan-out?"],
    ["recall", "what", "port", "does", "the", "database", "use"],
    ["--json", "recall", "database port"],
    ["recall", "--json", "database", "port"],
    ["recall", "--explain", "kafka fan-out"],
    ["--json", "recall", "--history", "Which database?", "and the port?"],
    ["recall", "nothing", "--explain", "matches", "this"],  # options between the words
    ["recall", "--provider", "ollama", "deploys"],
    ["recall", "--", "--explain", "is part of the query here"],
    ["recall", "-", "dash"],
    ["--cwd", "/nonexistent/waymarks-test", "recall", "x"],  # an error: exit 2, same text
    ["--json", "--cwd", "/nonexistent/waymarks-test", "recall", "x"],
    ["--session", "ffffffff", "recall", "x"],  # names no session: refused alike
]


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c) for c in CASES])
@pytest.mark.slow
def test_the_lean_path_answers_as_the_full_cli(filled: tuple[Path, Path],
                                               argv: list[str]) -> None:
    home, project = filled
    assert parse(argv) is not None, "this case is meant for the lean path"
    lean = _run(argv, project, home, full=False)
    full = _run(argv, project, home, full=True)
    assert lean == full
    assert lean[1] or lean[2], "something was printed"


@pytest.mark.slow
def test_it_works_with_a_home_given_on_the_command_line(filled: tuple[Path, Path],
                                                        tmp_path: Path) -> None:
    home, project = filled
    argv = ["--home", str(home), "--cwd", str(project), "recall", "database port"]
    lean = _run(argv, tmp_path, tmp_path / "elsewhere", full=False)
    assert lean == _run(argv, tmp_path, tmp_path / "elsewhere", full=True)
    assert lean[0] == 0 and "5433" in lean[1]


@pytest.mark.parametrize("argv", [
    ["recall"], ["recall", "--explain"], ["recall", "-h", "x"], ["recall", "--help"],
    ["--help", "recall", "x"], ["recall", "--explian", "x"], ["recall", "--EXPLAIN", "x"],
    ["RECALL", "x"], ["recall", "--history=a", "x"], ["recall", "--history", "-x", "y"],
    ["recall", "--provider"], ["--home", "recall", "x"], ["--home", "a", "--home", "b",
                                                          "recall", "x"],
    ["--version", "recall", "x"], ["pins"], ["memory", "recall"], ["recall", "x\udcff"],
    ["--verbose", "recall", "x"], [],
    # a repeated --provider is the full CLI's usage error now (a re-read: the lean path
    # took the last, as click did before)
    ["recall", "--provider", "nosuch", "--provider", "lexical", "port"],
], ids=repr)
def test_what_it_does_not_recognise_goes_to_the_full_cli(argv: list[str]) -> None:
    assert parse(argv) is None


@pytest.mark.slow
def test_a_usage_error_is_the_full_clis(filled: tuple[Path, Path]) -> None:
    home, project = filled
    argv = ["--json", "recall", "--explian", "x"]
    lean = _run(argv, project, home, full=False)
    assert lean == _run(argv, project, home, full=True)
    assert lean[0] == 2 and '"code": "usage"' in lean[1]


def test_options_are_read_as_click_reads_them() -> None:
    wanted = parse(["--home", "H", "--json", "recall", "--history", "a", "q1",
                    "--history", "b", "--provider", "p2", "q2",
                    "--explain", "--", "--json", "q3"])
    assert wanted is not None
    assert (wanted.globals, wanted.json, wanted.history, wanted.provider, wanted.explain,
            wanted.query) == ({"--home": "H"}, True, ["a", "b"], "p2", True,
                              ["q1", "q2", "--json", "q3"])


# -- waymarks mcp over stdio ------------------------------------------------------------

MCP_CASES = [
    ["--session", "ffffffff", "mcp"],  # names no session: a usage error before serving
    ["--json", "--session", "ffffffff", "mcp", "--claude-code"],
    ["--cwd", "/nonexistent/waymarks-test", "mcp"],
]


@pytest.mark.parametrize("argv", MCP_CASES, ids=[" ".join(c) for c in MCP_CASES])
@pytest.mark.slow
def test_the_lean_mcp_start_refuses_as_the_full_cli(filled: tuple[Path, Path],
                                                    argv: list[str]) -> None:
    home, project = filled
    assert parse_mcp(argv) is not None
    lean = _run(argv, project, home, full=False)
    assert lean == _run(argv, project, home, full=True)
    assert lean[0] == 2 and "waymarks" in lean[1] + lean[2]


@pytest.mark.parametrize("argv", [
    ["mcp", "--http"], ["mcp", "--port", "9000"], ["mcp", "-h"], ["mcp", "--help"],
    ["mcp", "--claude-code", "--claude-code"], ["MCP"], ["mcp", "x"], ["recall", "x"],
], ids=repr)
def test_what_the_lean_mcp_start_does_not_recognise_goes_to_the_full_cli(
        argv: list[str]) -> None:
    assert parse_mcp(argv) is None
