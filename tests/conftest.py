"""Shared fixtures: a real home in tmp_path, a deterministic clock and ID source."""

from __future__ import annotations

import itertools
import os
import signal
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests import bytecode, real_home  # bytecode first: before anything of Waymarks
from tests.temproot import memory_root
from waymarks.service.app import Waymarks

# The suite runs on every core of a small machine next to other work: generating inputs
# can take seconds there, which says nothing about the code under test. In the whole suite
# every property keeps its number of examples; only the time-based health checks are off.
# The profile is chosen in pytest_configure, not here: pytest imports this file under
# another name than ``tests.conftest``, which test modules import, running this code again.
settings.register_profile("waymarks", suppress_health_check=[HealthCheck.too_slow],
                          deadline=None, max_examples=100)  # Hypothesis' own default
#: the fast lane's properties: half Hypothesis' default number of examples for those that
#: set none (those that set one keep it); the whole suite, CI's run, keeps the default
FAST_LANE_EXAMPLES = 50
settings.register_profile("waymarks-fast-lane", settings.get_profile("waymarks"),
                          max_examples=FAST_LANE_EXAMPLES)

#: the warm helper of one-shot commands (waymarks.cli.warm) is off for the suite's commands:
#: a helper per temporary home would outlive the test
WARM_OFF = "WAYMARKS_CLI_HELPER"


#: git reads the suite's own configuration, not the machine's: on a fresh machine (CI's) no
#: identity is set and ``git commit`` fails; a developer's signing or hooks would change tests
GIT_ISOLATED = {"GIT_CONFIG_GLOBAL": str(Path(__file__).with_name("gitconfig")),
                "GIT_CONFIG_NOSYSTEM": "1"}
#: where git finds a repository, its index and a command line's configuration (git's own
#: list: ``git rev-parse --local-env-vars``), dropped as the suite starts: git sets them for
#: the hooks it runs (``GIT_INDEX_FILE`` for pre-commit), and a suite run from a hook made
#: the tests' ``git init``, ``add`` and ``commit`` act on that repository
GIT_REPOSITORY_VARIABLES = (
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT", "GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE",
    "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE", "GIT_INDEX_FILE", "GIT_NO_REPLACE_OBJECTS",
    "GIT_REPLACE_REF_BASE", "GIT_PREFIX", "GIT_INTERNAL_SUPER_PREFIX", "GIT_SHALLOW_FILE",
    "GIT_COMMON_DIR")


#: the tests' servers (the inspector, MCP over HTTP, fake providers) listen on the loopback:
#: a shell's proxy (``http_proxy``) must not take the tests' requests to them, which urllib
#: sends to it unless ``no_proxy`` names the host
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def _loopback_unproxied() -> None:
    """Add :data:`LOOPBACK_HOSTS` to ``no_proxy`` (both spellings), keeping what it lists."""
    listed = (os.environ.get("no_proxy") or os.environ.get("NO_PROXY") or "").split(",")
    hosts = [host.strip() for host in listed if host.strip()]
    hosts += [host for host in LOOPBACK_HOSTS if host not in hosts]
    os.environ["no_proxy"] = os.environ["NO_PROXY"] = ",".join(hosts)


def _signals_as_a_terminal_sends_them() -> None:
    """Ctrl-C, Ctrl-\\ and a closed terminal reach the commands the tests start, whoever
    started the suite. A shell without job control (a subshell's ``&``) starts its
    background commands with SIGINT and SIGQUIT ignored and ``nohup`` ignores SIGHUP; every
    process inherits that, and Python leaves an ignored SIGINT ignored, so the tests that
    press Ctrl-C saw the command finish with 0 (found by a clean-clone CI started that way:
    11 of 8,953 failed). An ignored one is caught instead, by a handler that does nothing:
    the suite goes on ignoring it, and the commands it starts begin with the default (a
    handler is not inherited across exec, an ignored signal is)."""
    for number in (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP):
        if signal.getsignal(number) is signal.SIG_IGN:
            signal.signal(number, _still_ignored)


def _still_ignored(number: int, frame: object) -> None:
    """A signal the suite was started ignoring, still ignored by the suite."""


def pytest_configure(config: pytest.Config) -> None:
    """Waymarks' own variables of the shell that runs the suite dropped (its knobs kept), before
    any fixture of any scope: a module fixture that built a home saw a developer's
    ``WAYMARKS_HOME``. git configured by :data:`GIT_ISOLATED`, on the tests' own
    repositories only (:data:`GIT_REPOSITORY_VARIABLES`). No proxy for the loopback.
    Temporary folders in memory when
    the machine has room there (:mod:`tests.temproot`) and the run did not choose a place
    (``--basetemp``, ``PYTEST_DEBUG_TEMPROOT``). Durability tests kill processes; none cuts the
    power. The fast lane's properties that set no number of examples run
    :data:`FAST_LANE_EXAMPLES`."""
    if not hasattr(config, "workerinput"):  # (xdist's controller, or a run without it)
        where = real_home.places()  # (before the session's own XDG_CACHE_HOME)
        config.stash[_REAL_HOME] = where, real_home.state(where)
    _signals_as_a_terminal_sends_them()
    for name in _waymarks_variables():
        del os.environ[name]
    for name in GIT_REPOSITORY_VARIABLES:
        os.environ.pop(name, None)
    os.environ.update(GIT_ISOLATED)
    _loopback_unproxied()
    os.environ[WARM_OFF] = "off"  # no warm helper left behind by a test's commands
    settings.load_profile("waymarks-fast-lane" if fast_lane(config) else "waymarks")
    if config.option.basetemp or os.environ.get("PYTEST_DEBUG_TEMPROOT"):
        return
    root = memory_root()
    if root is not None:
        os.environ["PYTEST_DEBUG_TEMPROOT"] = str(root)


def pytest_report_header() -> str | None:
    """Where the tests' own bytecode is kept when the shell leaves it out
    (:mod:`tests.bytecode`)."""
    return None if bytecode.KEPT is None else f"bytecode kept in {bytecode.KEPT}"


_REAL_HOME = pytest.StashKey[tuple[tuple[list[Path], list[Path]], real_home.State]]()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The run fails naming what it wrote into the real home of whoever ran it
    (:mod:`tests.real_home`): ``~/.cache/waymarks``, ``~/.local/share/waymarks``,
    ``~/.waymarks``, the ``waymarks`` folders of ``$XDG_DATA_HOME`` and ``$XDG_CACHE_HOME``,
    and what names Waymarks in ``~/.claude`` or ``~/.pi``. A test whose
    commands get an environment of their own without the suite's ``HOME`` or
    ``XDG_CACHE_HOME`` wrote there, CI's run into root's home, and nothing said so."""
    seen = session.config.stash.get(_REAL_HOME, None)
    if seen is None:
        return
    where, before = seen
    found = real_home.written(before, real_home.state(where))
    if found:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        said = ("the suite wrote into the real home (a test's command without the suite's "
                "HOME or XDG_CACHE_HOME? or a Waymarks of yours, your agent's hooks, writing "
                "its home meanwhile?), which no test may touch: " + ", ".join(found))
        if reporter is not None:
            reporter.write_line(said, red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def fast_lane(config: pytest.Config) -> bool:
    """Whether this run leaves the slow tests out (``-m "not slow"``, the fast lane)."""
    return "not slow" in " ".join((config.option.markexpr or "").split())


class StepClock:
    """A clock that moves forward by ``step`` on every reading."""

    def __init__(self, start: datetime | None = None, step: timedelta = timedelta(milliseconds=3)):
        self.current = start or datetime(2026, 1, 1, tzinfo=UTC)
        self.step = step

    def now(self) -> datetime:
        self.current += self.step
        return self.current


class CountingIds:
    """Deterministic IDs: distinct per instance thanks to ``prefix``."""

    def __init__(self, prefix: int = 0) -> None:
        self.counter = itertools.count(1)
        self.prefix = prefix

    def entry_id(self) -> str:
        return f"{self.prefix:02x}{next(self.counter):06x}"

    def uuid(self) -> str:
        return f"{self.prefix:08x}-0000-4000-8000-{next(self.counter):012x}"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def make_app(home: Path, project: Path) -> Iterator[Callable[..., Waymarks]]:
    apps: list[Waymarks] = []

    def factory(**kwargs: object) -> Waymarks:
        kwargs.setdefault("cwd", str(project))
        kwargs.setdefault("clock", StepClock())
        kwargs.setdefault("ids", CountingIds())
        app = Waymarks(home, **kwargs)  # type: ignore[arg-type]
        apps.append(app)
        return app

    yield factory
    for app in apps:
        app.close()


@pytest.fixture
def app(make_app: Callable[..., Waymarks]) -> Waymarks:
    return make_app()


@pytest.fixture
def two_sessions(make_app: Callable[..., Waymarks],
                 project: Path) -> Callable[[], tuple[Waymarks, Waymarks]]:
    """Two apps, each in a new session of the same trusted project (distinct IDs)."""

    def make() -> tuple[Waymarks, Waymarks]:
        first = make_app(ids=CountingIds(1))
        first.trust(str(project))
        first.session_new()
        second = make_app(ids=CountingIds(2))
        second.session_new()
        return first, second

    return make


#: variables of the test suite, not of Waymarks, read inside tests: the byte-flip soak's
#: length and whether the browser test saves its screenshots (docs/development.md,
#: tests/test_suite_env.py)
SUITE_KNOBS = frozenset({"WAYMARKS_BYTE_FLIPS", "WAYMARKS_SCREENSHOTS"})


def _waymarks_variables() -> list[str]:
    return [name for name in os.environ
            if name.startswith("WAYMARKS_") and name not in SUITE_KNOBS]


@pytest.fixture(scope="session", autouse=True)
def _user_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The suite's own user cache (``XDG_CACHE_HOME``): the semantic extra remembers the
    engine files it found whole in the user's cache, and the suite's commands wrote
    ``~/.cache/waymarks/engine-files.json`` in the home of whoever ran it. Set for the
    whole session, so before any module fixture: set by the per-test fixture alone, a module
    fixture's commands (tests/cli/test_lean_recall.py's, the semantic extra on) still wrote
    it there. Also where the tests' Python processes keep their bytecode
    (``PYTHONPYCACHEPREFIX``, :func:`_bytecode`)."""
    cache = tmp_path_factory.mktemp("user-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(cache))  # (subprocesses inherit it)
        _bytecode(patch, tmp_path_factory.mktemp("bytecode"))
        yield cache


def isolated_python(python: str | Path | None = None) -> list[str]:
    """``PYTHON -I -S`` as Claude Code runs a hook, its bytecode written where the suite's
    other processes write theirs: ``-I`` ignores ``PYTHONPYCACHEPREFIX``, and the suite's
    hooks wrote ``__pycache__`` into the checkout's ``src`` (their helpers and workers too,
    which take the hook's bytecode settings). ``-X pycache_prefix`` is an option, which
    ``-I`` keeps."""
    return [str(python or sys.executable), "-I", "-S", *suite_bytecode()]


def suite_command(command: str) -> str:
    """A hook's shell command as ``claude-code install`` writes it (``… PYTHON -I -S …``),
    its bytecode kept as :func:`isolated_python` keeps it."""
    import shlex

    return command.replace(" -I -S ", f" -I -S {shlex.join(suite_bytecode())} ", 1)


def suite_bytecode() -> list[str]:
    """The options that keep an isolated (``-I``) Python's bytecode out of the checkout:
    the suite's prefix (:func:`_bytecode`), else none written (outside a session)."""
    prefix = os.environ.get("PYTHONPYCACHEPREFIX")
    return ["-X", f"pycache_prefix={prefix}"] if prefix else ["-B"]


def _bytecode(patch: pytest.MonkeyPatch, prefix: Path) -> None:
    """The tests' Python subprocesses keep their bytecode under ``prefix`` (this session's
    temporary folder), not in the checkout; those run as Claude Code runs a hook (``-I``)
    ignore the environment and write it beside the sources, as a real hook does. A shell
    that sets ``PYTHONDONTWRITEBYTECODE``
    to keep the tree clean (as the team's does) had each of the fast lane's hundreds of
    commands compile every module it imported again, ~0.2 s of CPU a command; written
    here, each module is compiled once a worker."""
    patch.setenv("PYTHONPYCACHEPREFIX", str(prefix))
    patch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)


@pytest.fixture(autouse=True)
def _lexical_unless_semantic(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
                             _user_cache: Path) -> None:
    """The engine's own tests pin the lexical engine (their scores and gates are its
    contract); tests marked ``semantic`` run the hybrid path with the installed extra
    (tests/recall/test_hybrid*.py). Subprocesses inherit the switch. Whatever the shell
    running the suite set of Waymarks' own variables is dropped first: a developer's
    ``WAYMARKS_SEMANTIC=off`` failed the semantic tests, and a ``WAYMARKS_HOME`` would
    point a test's commands at that person's home. The suite's own knobs stay."""
    for name in _waymarks_variables():  # one a test set without monkeypatch, say
        monkeypatch.delenv(name)
    monkeypatch.setenv(WARM_OFF, "off")  # tests/cli/test_warm.py turns it on
    monkeypatch.setenv("XDG_CACHE_HOME", str(_user_cache))  # (subprocesses inherit it)
    if request.node.get_closest_marker("semantic") is None:
        monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")

