"""The shell's ``WAYMARKS_*`` variables are dropped when the suite starts (a developer's
``WAYMARKS_HOME`` must not reach a test's commands, nor a module fixture's), except the
suite's own knobs docs/development.md documents: ``WAYMARKS_BYTE_FLIPS=600`` (the byte-flip soak)
and ``WAYMARKS_SCREENSHOTS=1`` (save the inspector's screenshots). Both are read inside a
test, after that fixture ran: dropped with the rest, they silently did nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import settings

from tests.conftest import FAST_LANE_EXAMPLES, fast_lane

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def home_seen_by_a_module_fixture() -> str | None:
    """Module fixtures run before the per-test scrub: one building a home saw the shell's
    ``WAYMARKS_HOME`` and its commands wrote to that person's home."""
    return os.environ.get("WAYMARKS_HOME")


@pytest.mark.skipif(not os.environ.get("SUITE_ENV_PROBE"), reason="run by the test below")
def test_probe(home_seen_by_a_module_fixture: str | None) -> None:
    assert home_seen_by_a_module_fixture is None
    assert os.environ.get("WAYMARKS_BYTE_FLIPS") == "7"
    assert os.environ.get("WAYMARKS_SCREENSHOTS") == "1"
    assert "WAYMARKS_HOME" not in os.environ  # still dropped
    assert os.environ.get("WAYMARKS_SEMANTIC") == "off"  # the fixture's own, not the shell's
    Path(os.environ["SUITE_ENV_PROBE"]).write_text("ran")


@pytest.mark.slow
def test_the_suites_own_knobs_reach_the_tests(tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    env = {**os.environ, "SUITE_ENV_PROBE": str(ran), "WAYMARKS_BYTE_FLIPS": "7",
           "WAYMARKS_SCREENSHOTS": "1", "WAYMARKS_HOME": str(tmp_path / "theirs"),
           "WAYMARKS_SEMANTIC": "on"}
    done = _inner_run(tmp_path, "test_probe", env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert ran.read_text() == "ran"  # the probe ran (was not skipped) and passed


@pytest.mark.parametrize(("markexpr", "fast"), [
    ("not slow", True), ("not  slow and not semantic", True), ("(not slow)", True),
    ("slow", False), ("", False), (None, False), ("semantic", False)])
def test_the_fast_lane_is_the_run_that_leaves_slow_tests_out(markexpr: str | None,
                                                             fast: bool) -> None:
    assert fast_lane(SimpleNamespace(option=SimpleNamespace(markexpr=markexpr))) is fast


def test_properties_that_set_no_count_run_fewer_examples_only_in_the_fast_lane(
        request: pytest.FixtureRequest) -> None:
    """The fast lane halves Hypothesis' default; the whole suite (CI) keeps it."""
    whole = settings.get_profile("waymarks").max_examples
    assert whole > FAST_LANE_EXAMPLES
    expected = FAST_LANE_EXAMPLES if fast_lane(request.config) else whole
    assert settings.default.max_examples == expected


def test_the_suites_commands_keep_their_cache_out_of_the_users_home(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """The semantic extra remembers the engine files it found whole in the user's cache
    (``$XDG_CACHE_HOME``, else ``~/.cache``): the suite's commands wrote
    ``engine-files.json`` into the home of whoever ran it. Every test, and every command
    it starts, has the suite's own cache."""
    cache = Path(os.environ["XDG_CACHE_HOME"])
    assert cache.is_dir() and cache.is_relative_to(tmp_path_factory.getbasetemp()), cache


@pytest.fixture(scope="module")
def cache_seen_by_a_module_fixture() -> str | None:
    """What a module fixture's commands take for the user's cache: tests/cli/
    test_lean_recall.py's fills its home before any test's own fixtures run, and its
    commands, the semantic extra on, wrote ``engine-files.json`` into the real home."""
    return os.environ.get("XDG_CACHE_HOME")


def test_a_module_fixtures_commands_keep_their_cache_out_of_the_users_home(
        cache_seen_by_a_module_fixture: str | None,
        tmp_path_factory: pytest.TempPathFactory) -> None:
    assert cache_seen_by_a_module_fixture is not None
    cache = Path(cache_seen_by_a_module_fixture)
    assert cache.is_relative_to(tmp_path_factory.getbasetemp()), cache


def test_the_suites_python_subprocesses_keep_their_bytecode_in_the_sessions_folder(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Written there once a worker, not compiled again by every command (a shell with
    ``PYTHONDONTWRITEBYTECODE``), nor written into the checkout."""
    done = subprocess.run([sys.executable, "-c", "import sys; print(sys.dont_write_bytecode);"
                           " print(sys.pycache_prefix)"], capture_output=True, text=True,
                          check=True, timeout=120)
    written, prefix = done.stdout.splitlines()
    assert written == "False", done.stdout
    assert Path(prefix).is_relative_to(tmp_path_factory.getbasetemp()), prefix


@pytest.mark.skipif(not os.environ.get("GIT_REPOSITORY_PROBE"), reason="run by the test below")
def test_git_repository_probe(tmp_path: Path) -> None:
    """A test's own repository, as the team tests make theirs: init, add, commit."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "rule.md").write_text("a rule\n")
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "the test's"]):
        subprocess.run(["git", *command], cwd=project, check=True, timeout=120)
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=project, check=True,
                         capture_output=True, text=True, timeout=120).stdout.strip()
    assert Path(top) == project
    Path(os.environ["GIT_REPOSITORY_PROBE"]).write_text("ran")


@pytest.mark.slow  # (a pytest of its own: seconds)
def test_a_suite_run_from_a_git_hook_leaves_that_repository_alone(tmp_path: Path) -> None:
    """git runs a hook with the repository's place in its environment (``GIT_INDEX_FILE``
    for a pre-commit hook; ``GIT_DIR`` and ``GIT_WORK_TREE`` as it needs): a suite run
    from one made every test's ``git init``, ``add`` and ``commit`` act on the person's own
    repository, their staged index replaced by a test's files and its commits on their
    branch. The suite drops git's repository variables when it starts."""
    outer = tmp_path / "theirs"
    outer.mkdir()
    (outer / "work.txt").write_text("their work\n")
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "theirs"]):
        subprocess.run(["git", *command], cwd=outer, check=True, timeout=120)

    def state() -> tuple[str, str]:
        return tuple(subprocess.run(["git", *command], cwd=outer, check=True,  # type: ignore[return-value]
                                    capture_output=True, text=True, timeout=120).stdout
                     for command in (["log", "--format=%H %s"], ["ls-files", "--stage"]))

    before = state()
    ran = tmp_path / "ran"
    env = {**os.environ, "GIT_REPOSITORY_PROBE": str(ran), "GIT_DIR": str(outer / ".git"),
           "GIT_WORK_TREE": str(outer), "GIT_INDEX_FILE": str(outer / ".git" / "index")}
    done = _inner_run(tmp_path, "test_git_repository_probe", env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert ran.read_text() == "ran"  # the probe ran (was not skipped) and passed
    assert state() == before


@pytest.mark.skipif(not os.environ.get("PROXY_PROBE"), reason="run by the test below")
def test_proxy_probe() -> None:
    """A test's request to a server of its own on the loopback, as the inspector's and the
    MCP server's tests make theirs (urllib, which reads the proxy variables)."""
    import http.server
    import threading
    import urllib.request

    class Hello(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # (http.server's name)
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hello) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            for host in ("127.0.0.1", "localhost"):
                url = f"http://{host}:{server.server_address[1]}/"
                with urllib.request.urlopen(url, timeout=120) as answer:
                    assert answer.status == 200
        finally:
            server.shutdown()
    assert "example.invalid" in os.environ["no_proxy"].split(",")  # the shell's, kept
    Path(os.environ["PROXY_PROBE"]).write_text("ran")


@pytest.mark.slow  # (a pytest of its own: seconds)
def test_a_shell_with_a_proxy_leaves_the_tests_loopback_servers_reachable(
        tmp_path: Path) -> None:
    """A shell behind a proxy (``http_proxy`` set, loopback not in ``no_proxy``) sent the
    tests' requests to their own servers on 127.0.0.1 to the proxy: the inspector's and
    the MCP server's tests failed there. The suite adds the loopback to ``no_proxy``,
    keeping what the shell lists (a real proxy still serves what the suite downloads)."""
    ran = tmp_path / "ran"
    dead = "http://127.0.0.1:9"  # (the discard port: nothing answers)
    env = {**os.environ, "PROXY_PROBE": str(ran), "http_proxy": dead, "HTTP_PROXY": dead,
           "all_proxy": dead, "no_proxy": "example.invalid", "NO_PROXY": "example.invalid"}
    done = _inner_run(tmp_path, "test_proxy_probe", env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert ran.read_text() == "ran"  # the probe ran (was not skipped) and passed


@pytest.mark.skipif(not os.environ.get("REAL_HOME_PROBE"), reason="run by the test below")
def test_real_home_probe() -> None:
    """What a command with an environment of its own (no suite ``HOME``, no suite
    ``XDG_CACHE_HOME``) wrote: the engine's stamps, into the home the run started with."""
    cache = Path(os.environ["REAL_HOME_PROBE"]) / ".cache" / "waymarks"
    cache.mkdir(parents=True)
    (cache / "engine-files.json").write_text("{}")


def test_a_run_that_writes_into_the_real_home_fails_naming_it(tmp_path: Path) -> None:
    """The session's end finds what the suite wrote into the home it started with, and the
    run fails naming it, though every test passed."""
    person = tmp_path / "person"
    person.mkdir()
    env = {**os.environ, "HOME": str(person), "REAL_HOME_PROBE": str(person)}
    done = _inner_run(tmp_path, "test_real_home_probe", env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert (person / ".cache" / "waymarks" / "engine-files.json").is_file()  # (it ran)
    assert "wrote into the real home" in done.stdout and "failed" not in done.stdout
    assert str(person / ".cache" / "waymarks" / "engine-files.json") in done.stdout


def test_only_what_names_waymarks_counts_in_the_agents_folders(tmp_path: Path) -> None:
    """Claude Code and Pi write their folders while the suite runs: a transcript there is
    theirs; a loader, a hook or a server named for Waymarks is the suite's."""
    from tests import real_home

    user = tmp_path / "user"
    (user / ".claude" / "projects").mkdir(parents=True)
    (user / ".claude" / "settings.json").write_text('{"theme": "dark"}')
    before = real_home.state([user])
    (user / ".claude" / "projects" / "a.jsonl").write_text("{}")  # Claude Code's own
    (user / ".claude.json").write_text('{"mcpServers": {}}')
    assert real_home.written(before, real_home.state([user])) == []
    (user / ".claude" / "settings.json").write_text(
        '{"hooks": {"Stop": "python -I -S /venv/site-packages/waymarks/hosts/hook_entry.py'
        ' --home ~/wm hook claude-code Stop"}, "theme": "dark"}')
    (user / ".pi" / "agent" / "extensions").mkdir(parents=True)
    (user / ".pi" / "agent" / "extensions" / "waymarks.ts").write_text("//")
    (user / ".local" / "share" / "waymarks").mkdir(parents=True)
    assert real_home.written(before, real_home.state([user])) == sorted([
        str(user / ".claude" / "settings.json"),
        str(user / ".pi" / "agent" / "extensions" / "waymarks.ts"),
        str(user / ".local" / "share" / "waymarks")])


def test_a_hook_run_as_claude_code_runs_it_keeps_its_bytecode_out_of_the_checkout(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """``-I`` ignores ``PYTHONPYCACHEPREFIX``: the suite's hooks wrote ``__pycache__`` into
    ``src``. Started by :func:`~tests.conftest.isolated_python` (or an installed command
    through :func:`~tests.conftest.suite_command`), they keep it in the session's folder."""
    from tests.conftest import isolated_python, suite_command
    from waymarks.hosts import claude_code_install as cc

    probe = "import sys; print(sys.flags.isolated, sys.pycache_prefix)"
    done = subprocess.run([*isolated_python(), "-c", probe], capture_output=True, text=True,
                          check=True, timeout=120)
    isolated, prefix = done.stdout.split()
    assert isolated == "1" and Path(prefix).is_relative_to(tmp_path_factory.getbasetemp())
    command = suite_command(cc.hook_command(Path(sys.executable), Path("/h"), "Stop"))
    assert f"-I -S -X pycache_prefix={prefix} " in command, command


def _inner_run(tmp_path: Path, probe: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """This file's ``probe`` run by a pytest of its own, with ``env``."""
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p",
                           "no:cacheprovider", f"--basetemp={tmp_path / 'inner'}",
                           f"{Path(__file__).name}::{probe}"],
                          cwd=Path(__file__).parent, env=env, capture_output=True, text=True,
                          timeout=300)


def test_the_persons_agents_working_in_a_project_named_waymarks_are_not_the_suite(
        tmp_path: Path) -> None:
    """Whoever works on Waymarks runs the suite beside their Claude Code or Pi session in a
    checkout named for it: each transcript line went into
    ``~/.claude/projects/-home-ada-src-waymarks/…``, Pi's into
    ``~/.pi/agent/sessions/--home-ada-src-waymarks--/…``, and Claude Code's
    ``~/.claude.json`` keeps a table per project path it was opened in: the run failed
    naming them, every test passed. A folder named for the person's project is not
    Waymarks'; what an install writes still counts (an MCP server, a loader)."""
    from tests import real_home

    user = tmp_path / "user"
    claude = user / ".claude" / "projects" / "-home-ada-src-waymarks"
    pi = user / ".pi" / "agent" / "sessions" / "--home-ada-src-waymarks--"
    for folder in (claude, pi):
        folder.mkdir(parents=True)
        (folder / "s1.jsonl").write_text("{}\n")
    (user / ".claude.json").write_text('{"projects": {"/home/ada/src/waymarks": {}}}')
    before = real_home.state([user])
    for folder in (claude, pi):
        with open(folder / "s1.jsonl", "a") as transcript:
            transcript.write('{"type": "user"}\n')
        (folder / "s2.jsonl").write_text("{}\n")
    (user / ".claude.json").write_text(
        '{"projects": {"/home/ada/src/waymarks": {"history": ["run the waymarks suite"]},'
        ' "/home/ada/src/waymarks-review": {}}}')
    assert real_home.written(before, real_home.state([user])) == []
    (user / ".claude.json").write_text(
        '{"mcpServers": {"waymarks": {"command": "waymarks"}}, '
        '"projects": {"/home/ada/src/waymarks": {}}}')
    assert real_home.written(before, real_home.state([user])) == [str(user / ".claude.json")]


def test_a_permission_the_person_allows_meanwhile_is_not_an_install(tmp_path: Path) -> None:
    """Claude Code writes ``~/.claude/settings.json`` itself when the person allows a
    command for good (``Bash(waymarks status:*)``, asked while the suite runs): one more
    mention of Waymarks failed the run. An install writes ``hooks`` there and
    ``mcpServers`` in ``~/.claude.json``: only those count."""
    from tests import real_home

    user = tmp_path / "user"
    settings = user / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"permissions": {"allow": []}}')
    before = real_home.state([user])
    settings.write_text('{"permissions": {"allow": ["Bash(waymarks status:*)"]}}')
    assert real_home.written(before, real_home.state([user])) == []
    settings.write_text('{"permissions": {"allow": ["Bash(waymarks status:*)"]}, "hooks": '
                        '{"Stop": [{"hooks": [{"command": "waymarks hook claude-code Stop"}]}]}}')
    assert real_home.written(before, real_home.state([user])) == [str(settings)]


def test_the_homes_the_persons_xdg_variables_choose_are_looked_at_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``XDG_DATA_HOME`` set, the default Waymarks home is ``$XDG_DATA_HOME/waymarks``
    (and the engine's cache ``$XDG_CACHE_HOME/waymarks``): a command of the suite given
    the person's environment wrote there, and the check, looking in ``~/.local/share``
    and ``~/.cache`` alone, let the run pass."""
    from tests import real_home

    user, data, cache = tmp_path / "user", tmp_path / "data", tmp_path / "cache"
    user.mkdir()
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    places = real_home.places()
    before = real_home.state(places)
    (data / "waymarks" / "logs").mkdir(parents=True)
    (cache / "waymarks").mkdir(parents=True)
    (cache / "waymarks" / "engine-files.json").write_text("{}")
    found = real_home.written(before, real_home.state(places))
    assert [path for path in found if path.startswith(str(tmp_path))] == sorted([
        str(data / "waymarks"), str(data / "waymarks" / "logs"), str(cache / "waymarks"),
        str(cache / "waymarks" / "engine-files.json")])
