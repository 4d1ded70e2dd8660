"""The warm start of one-shot commands (:mod:`waymarks.cli.warm`): a command a warm
helper's child ran answers exactly as a new process does (status, output, errors), in the
client's directory and environment; a helper that cannot run it (another version of the
code, a bad request) runs nothing and the command runs in its own process.

Real processes throughout: the console script (under ``python -X importtime``) and the
helper it leaves. ``-X importtime`` tells who ran the command: a client whose helper ran
it did not import msgspec (the child starts from the helper's imports); its report is
taken out of standard error before the outputs are compared."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_lean_recall import CASES
from waymarks.cli import warm, warm_child

pytestmark = pytest.mark.slow  # real processes and a helper per module (~0.3 s or more)

MEMORY = ("The checkout service uses Kafka for event fan-out.", "The database port is 5433.",
          "Deploys go to staging first, then production.")
PIN = "Always run the linters before committing; the CI gate rejects lint errors " * 2


#: the console script, as a person or a host runs it (under ``-X importtime``): its
#: directory heads ``sys.path`` wherever it runs, so one helper serves every directory
#: (``python -m`` puts the directory it runs in there: a helper per directory)
ENTRY = (sys.executable, "-X", "importtime", str(Path(sys.executable).parent / "waymarks"))


class Ran:
    def __init__(self, done: subprocess.CompletedProcess[str]) -> None:
        lines = done.stderr.splitlines(keepends=True)
        self.imports = [line for line in lines if line.startswith("import time:")]
        self.answer = (done.returncode, done.stdout,
                       "".join(line for line in lines if not line.startswith("import time:")))
        # every command a process runs itself imports msgspec first (spawn/imports.py)
        self.warm = not any(line.rstrip().endswith("| msgspec") for line in self.imports)


def _environment(home: Path, **extra: str) -> dict[str, str]:
    # an hour: the module's helper must outlive the (slow, on a loaded machine) tests
    # between its uses; each test stops the helpers it started
    env = {**os.environ, "WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off",
           warm.ENV_IDLE: "3600", **extra}
    env.pop(warm.ENV_OFF, None)
    return env


def _run(argv: list[str], cwd: Path, env: dict[str, str], *, cold: bool = False,
         **options: object) -> Ran:
    if cold:
        env = {**env, warm.ENV_OFF: "off"}
    done = subprocess.run([*ENTRY, *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, **options)  # type: ignore[call-overload]
    return Ran(done)


def _helpers(home: Path) -> list[int]:
    """The pids of the warm helpers serving ``home``: a child a helper forked for a command
    shares its command line and is left out."""
    found: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            status = (entry / "status").read_text()
        except OSError:
            continue
        if b"waymarks.cli.warm_server" in b" ".join(command) and \
                any(part.startswith(str(home).encode() + b"/") for part in command):
            [parent] = [line.split()[1] for line in status.splitlines()
                        if line.startswith("PPid:")]
            found[int(entry.name)] = int(parent)
    return sorted(pid for pid, parent in found.items() if parent not in found)


def _the_helper(home: Path) -> int:
    """The one helper serving ``home``, once any other started beside it (it found the lock
    held) has gone."""
    assert _await(lambda: len(_helpers(home)) == 1), _helpers(home)
    [pid] = _helpers(home)
    return pid


def _await(condition: object, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


def _python(code: str, **options: object) -> subprocess.CompletedProcess[str]:
    """``python -c code``, its output captured."""
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, **options)


def _recalled_off(code: str, project: Path, env: dict[str, str]
                  ) -> subprocess.CompletedProcess[str]:
    """``code`` run in ``project`` with the helper switched off; it recalled the claim."""
    done = _python(code, cwd=project, env={**env, warm.ENV_OFF: "off"})
    assert done.returncode == 0, done.stderr
    assert "5433" in done.stdout
    return done


def _sockets(home: Path) -> list[Path]:
    return sorted((home / "cli").glob("warm-*.sock"))


def _warm_up(cwd: Path, env: dict[str, str], home: Path) -> None:
    """Run a command (it starts a helper), then wait until a command is served warm."""
    _run(["recall", "warming up"], cwd, env)
    assert _await(lambda: _run(["recall", "warming up"], cwd, env).warm, 90), \
        "a helper started and served a command"


def _stop_helpers(home: Path) -> None:
    for pid in _helpers(home):
        with contextlib.suppress(ProcessLookupError):  # (one that found the lock held)
            os.kill(pid, signal.SIGTERM)
    assert _await(lambda: not _helpers(home))


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path,
                                                                        dict[str, str]]]:
    root = tmp_path_factory.mktemp("warm")
    home, project = root / "home", root / "project"
    project.mkdir()
    env = _environment(home)
    for text in MEMORY:
        assert _run(["memory", "add", "--", text], project, env).answer[0] == 0
    assert _run(["pin", "--", PIN], project, env).answer[0] == 0
    _warm_up(project, env, home)
    yield home, project, env
    _stop_helpers(home)


WARM_CASES = [*CASES, ["pins"], ["--json", "pins"], ["pins", "--json", "--scope", "session"],
              ["pins", "--bogus"], ["recall"], ["recall", "--explain"]]


@pytest.mark.parametrize("argv", WARM_CASES, ids=[" ".join(c) for c in WARM_CASES])
def test_a_warm_command_answers_as_a_new_process(
        filled: tuple[Path, Path, dict[str, str]], argv: list[str]) -> None:
    _home, project, env = filled
    cold = _run(argv, project, env, cold=True)
    served = _run(argv, project, env)
    assert not cold.warm and served.warm
    assert served.answer == cold.answer
    assert served.answer[1] or served.answer[2], "something was printed"
    # the client itself imported no Waymarks module beyond the entry point and the client
    client = {line.split("|")[-1].strip() for line in served.imports}
    assert {m for m in client if m.startswith("waymarks")} <= {
        "waymarks", "waymarks.cli", "waymarks.cli.home", "waymarks.cli.main",
        "waymarks.cli.warm", "waymarks.spawn", "waymarks.spawn.sockets",
        "waymarks.spawn.switches"}
    assert not {"msgspec", "sqlite3", "json", "re"} & client


def test_the_child_takes_the_clients_directory_and_environment(
        filled: tuple[Path, Path, dict[str, str]], tmp_path: Path) -> None:
    _home, project, env = filled
    other = tmp_path / "other-project"
    other.mkdir()
    assert _run(["memory", "add", "--", "The other project builds with Bazel."], other,
                env).answer[0] == 0
    here = _run(["recall", "database port"], project, env)
    there = _run(["recall", "database port"], other, env)
    assert here.warm and there.warm
    assert "5433" in here.answer[1] and "5433" not in there.answer[1]
    assert "Bazel" in _run(["recall", "what does it build with? Bazel?"], other, env).answer[1]
    # rich lays the pins' plain text out to COLUMNS: the child reads the client's value
    narrow = _run(["pins"], project, {**env, "COLUMNS": "50"})
    wide = _run(["pins"], project, {**env, "COLUMNS": "200"})
    assert narrow.warm and wide.warm
    assert narrow.answer == _run(["pins"], project, {**env, "COLUMNS": "50"}, cold=True).answer
    assert wide.answer == _run(["pins"], project, {**env, "COLUMNS": "200"}, cold=True).answer


#: what a command a helper ran imports in the process a person or script started, beyond
#: what the interpreter imports to start (``-X importtime -c pass``, same run): each is
#: needed, anything else is a cost on every recall (warm.py's docstring)
WARM_CLIENT_IMPORTS = {
    "waymarks": "the package (its public API is imported lazily)",
    "waymarks.cli": "the CLI package (a docstring)",
    "waymarks.cli.main": "the entry point the console script calls",
    "waymarks.cli.home": "which home the command reads (the helper's socket is under it)",
    "waymarks.cli.warm": "the client: hands the command to the helper, waits for its end",
    "waymarks.spawn": "the package of detached workers (a docstring)",
    "waymarks.spawn.sockets": "how a long socket path is reached (posix and sys only)",
    "waymarks.spawn.switches": "the values of the on/off switches (imports nothing)",
    "__future__": "the annotations of main.py and home.py",
    "_socket": "the built-in socket module the client reaches the helper with",
    "zlib": "the checksum naming the helper of this installation (built in)",
}


def test_a_warm_command_imports_only_the_client(
        filled: tuple[Path, Path, dict[str, str]]) -> None:
    _home, project, env = filled
    served = _run(["recall", "database port"], project, env)
    assert served.warm and "5433" in served.answer[1]
    bare = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], env=env,
                          cwd=project, capture_output=True, text=True, timeout=60, check=True)
    baseline = {line.split("|")[-1].strip() for line in bare.stderr.splitlines()
                if line.startswith("import time:")}
    assert {"_io", "posix", "site"} <= baseline, "the bare start's imports were read"
    extra = {line.split("|")[-1].strip() for line in served.imports} - baseline
    extra.discard("imported package")  # (the report's header line)
    assert extra <= set(WARM_CLIENT_IMPORTS), sorted(extra - set(WARM_CLIENT_IMPORTS))
    assert {"waymarks.cli.warm", "_socket"} <= extra, "the command went through the client"


def test_commands_served_at_once_each_get_their_own_answer(
        filled: tuple[Path, Path, dict[str, str]]) -> None:
    _home, project, env = filled
    questions = ["which service uses Kafka?", "database port", "where do deploys go first?"]
    expected = {q: _run(["--json", "recall", q], project, env, cold=True).answer
                for q in questions}
    running = [(q, subprocess.Popen(
        [*ENTRY, "--json", "recall", q],
        cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        for q in questions * 3]
    for question, process in running:
        out, err = process.communicate(timeout=120)
        ran = Ran(subprocess.CompletedProcess(process.args, process.returncode, out, err))
        assert ran.answer == expected[question]


def test_a_large_environment_reaches_the_child(
        filled: tuple[Path, Path, dict[str, str]]) -> None:
    _home, project, env = filled
    # one variable is at most 128 KiB (MAX_ARG_STRLEN); three make the request ~300 KB
    padding = {f"WAYMARKS_TEST_PADDING_{n}": "x" * 100_000 for n in range(3)}
    big = {**env, **padding, "COLUMNS": "61"}
    served = _run(["pins"], project, big)
    assert served.warm
    assert served.answer == _run(["pins"], project, big, cold=True).answer


def test_a_bad_request_is_refused_and_the_helper_serves_on(
        filled: tuple[Path, Path, dict[str, str]]) -> None:
    home, project, env = filled
    [path] = _sockets(home)
    for garbage in (b"", b"\0" * 12, b"\x00\x00\x00\x00\x00\x00\x00\x05hello",
                    (8).to_bytes(8, "big") + b"nonsense"):
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.settimeout(10)
        client.connect(str(path))
        client.sendall(garbage)
        client.shutdown(socket.SHUT_WR)
        reply = _replies(client)
        client.close()
        assert reply == warm.GREETING + b"refused request\n", reply  # (no descriptors)
    # with the three descriptors, of this protocol, but not a request it can read
    for fields in ([b"/", b"18"], [b"/", b"18", *[b"utf-8", b"strict"] * 3, b"w", b"many"],
                   [b"/", b"18", *[b"utf-8", b"strict"] * 3, b"w", b"1", b"recall"]):
        request = b"\0".join([warm.PROTOCOL, *fields])
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.settimeout(10)
        client.connect(str(path))
        with open(os.devnull, "rb") as null:
            client.sendmsg([len(request).to_bytes(8, "big") + request], [(
                socket.SOL_SOCKET, socket.SCM_RIGHTS,
                b"".join(null.fileno().to_bytes(4, sys.byteorder) for _ in range(3)))])
        assert _replies(client) == warm.GREETING + b"refused request\n", fields
        client.close()
    assert _run(["recall", "database port"], project, env).warm


def _replies(client: socket.socket) -> bytes:
    """What the helper says until it closes the connection."""
    replies = b""
    while chunk := client.recv(100):
        replies += chunk
    return replies


def test_a_closed_standard_stream_runs_the_command_here(
        filled: tuple[Path, Path, dict[str, str]]) -> None:
    _home, project, env = filled
    ran = _run(["recall", "database port"], project, env, preexec_fn=lambda: os.close(0))
    assert not ran.warm
    assert ran.answer == _run(["recall", "database port"], project, env, cold=True).answer


def test_changed_code_is_never_served_by_the_old_helper(tmp_path: Path) -> None:
    """A copy of the package on PYTHONPATH (its own installation, its own helper): a module
    the helper imported is changed; the next command runs in its own process with the new
    code, the old helper exits, and a new one serves the command after."""
    import waymarks

    source = tmp_path / "src"
    shutil.copytree(Path(waymarks.__file__).parent, source / "waymarks",
                    ignore=shutil.ignore_patterns("__pycache__"))
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = _environment(home, PYTHONPATH=str(source), WAYMARKS_HOME=str(home))
    assert _run(["memory", "add", "--", MEMORY[1]], project, env).answer[0] == 0
    try:
        _warm_up(project, env, home)
        old = _the_helper(home)
        output = source / "waymarks" / "cli" / "output.py"
        output.write_text(output.read_text().replace(
            "    _write(text if text.endswith", "    out.write('[new] ')\n"
            "    _write(text if text.endswith"))
        changed = _run(["recall", "database port"], project, env)
        assert not changed.warm and changed.answer[1].startswith("[new] ")
        assert _await(lambda: old not in _helpers(home))
        assert _await(lambda: _run(["recall", "database port"], project, env).warm, 90)
        assert _run(["recall", "database port"], project, env).answer[1].startswith("[new] ")
    finally:
        _stop_helpers(home)


def test_an_idle_helper_exits_and_removes_its_socket(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = _environment(home, **{warm.ENV_IDLE: "1"})
    _run(["recall", "anything"], project, env)  # starts one
    assert _await(lambda: _helpers(home) != [] or _sockets(home) != [], 10)
    assert _await(lambda: not _helpers(home) and not _sockets(home), 30)


def test_one_helper_per_installation_however_many_start(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = _environment(home)
    try:
        processes = [subprocess.Popen([*ENTRY, "recall", "x"], cwd=project, env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                     for _ in range(4)]
        for process in processes:
            process.wait(120)
        assert _await(lambda: len(_sockets(home)) == 1)
        assert _await(lambda: len(_helpers(home)) == 1)  # the others found the lock held
        time.sleep(1)
        assert len(_helpers(home)) == 1
    finally:
        _stop_helpers(home)


def test_what_runs_warm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(warm.ENV_OFF)
    home = str(tmp_path / "home")
    assert warm.routed(["recall", "x"], home) is not None
    assert warm.routed(["--json", "--cwd", "/p", "pins"], home) is not None
    for argv in (["memory", "add", "x"], ["--verbose", "recall", "x"], [], ["--json"]):
        assert warm.routed(argv, home) is None, argv
    assert warm.routed(["recall", "x"], "relative/home") is None
    given = warm.routed(["--home", str(tmp_path / "given"), "recall", "x"], home)
    assert given is not None and given.startswith(str(tmp_path / "given") + "/cli/warm-")
    # every off value of Waymarks' switches: "0" left the helper on (a README review)
    for off in ("off", "0", "false", "no", " OFF "):
        monkeypatch.setenv(warm.ENV_OFF, off)
        assert warm.routed(["recall", "x"], home) is None, off
    for on in ("on", "1", "", "yes", "maybe"):  # a value neither on nor off leaves it on
        monkeypatch.setenv(warm.ENV_OFF, on)
        assert warm.routed(["recall", "x"], home) is not None, on


def test_a_command_with_the_helper_switched_off_never_imports_its_client(
        filled: tuple[Path, Path, dict[str, str]]) -> None:
    """``WAYMARKS_CLI_HELPER=off``: the entry point reads the switch itself, and the
    helper's client (this module and its sockets) is not imported for the command."""
    _home, project, env = filled
    code = ("import atexit, sys\n"
            "sys.argv = ['waymarks', 'recall', 'database port']\n"
            "atexit.register(lambda: print('client', [m for m in ('waymarks.cli.warm',"
            " 'waymarks.spawn.sockets') if m in sys.modules], file=sys.stderr))\n"
            "from waymarks.cli.main import main\n"
            "sys.exit(main())\n")
    done = _recalled_off(code, project, env)
    assert "client []" in done.stderr, done.stderr


def test_output_to_a_terminal_is_answered_by_the_process_itself(
        filled: tuple[Path, Path, dict[str, str]]) -> None:
    import pty

    _home, project, env = filled
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([*ENTRY, "recall", "database port"], cwd=project, env=env,
                              stdout=follower, stderr=subprocess.PIPE, text=True, timeout=120)
        printed = _read_terminal(leader, "5433")
    finally:
        os.close(follower)
        os.close(leader)
    ran = Ran(subprocess.CompletedProcess(done.args, done.returncode, "", done.stderr))
    assert not ran.warm and done.returncode == 0 and "5433" in printed


def _read_terminal(leader: int, wanted: str, seconds: float = 30.0) -> str:
    """What a terminal's leader holds, read until ``wanted`` is in it, nothing more
    arrives for a moment, or ``seconds`` pass (line-buffered output comes in pieces)."""
    import select

    printed, deadline = "", time.monotonic() + seconds
    while wanted not in printed and time.monotonic() < deadline:
        if not select.select([leader], [], [], 1.0)[0]:
            break
        try:
            piece = os.read(leader, 65536)
        except OSError:  # EIO: every follower closed
            break
        if not piece:
            break
        printed += piece.decode()
    return printed


# The end of a child, reported and taken: real processes, no helper needed

def test_the_helper_reports_how_each_child_ended() -> None:
    """In a process of its own (``_collect`` takes any child that ended: in pytest's it
    could take another test's)."""
    code = ("import os, socket, time\n"
            "from waymarks.cli import warm_server\n"
            "reports = {}\n"
            "for name, end in (('exit', lambda: os._exit(3)),\n"
            "                  ('signal', lambda: os.kill(os.getpid(), 9))):\n"
            "    ours, theirs = socket.socketpair()\n"
            "    pid = os.fork()\n"
            "    if pid == 0:\n"
            "        end()\n"
            "        os._exit(99)\n"
            "    children = {pid: theirs}\n"
            "    while children:  # (it takes only children that have ended)\n"
            "        warm_server._collect(children)\n"
            "        time.sleep(0.01)\n"
            "    ours.settimeout(10)\n"
            "    reports[name] = ours.recv(100)\n"
            "print(reports)\n")
    done = _python(code)
    assert done.stdout.strip() == str({"exit": b"exit 3\n", "signal": b"signal 9\n"}), \
        done.stderr


@pytest.mark.parametrize(("report", "returncode", "printed", "message"), [
    (b"exit 0\n", 0, "0", ""), (b"exit 3\n", 0, "3", ""), (b"signal 15\n", -15, "", ""),
    (b"signal 9\n", -9, "", ""),  # (SIGKILL: no handler can be set, the end is the same)
    (b"unrun\n", 0, "None", ""),  # (the child ran nothing: the caller runs it)
    (b"", 0, "1", "the warm helper stopped before it said how the command ended")])
def test_the_client_ends_as_its_child_did(report: bytes, returncode: int, printed: str,
                                          message: str) -> None:
    """A real client and a stand-in helper (a thread of its process, on a socket pair)
    that takes the go-ahead, reports ``report`` and leaves."""
    code = ("import socket, sys, threading\n"
            "from waymarks.cli import warm\n"
            "ours, theirs = socket.socketpair()\n"
            "def helper():\n"
            "    assert theirs.recv(1) == b'g'\n"
            f"    theirs.sendall({report!r}); theirs.close()\n"
            "threading.Thread(target=helper).start()\n"
            "print(warm._supervise(ours, 4194305))\n")  # (above any pid: forwards nothing)
    done = _python(code)
    assert (done.returncode, done.stdout.strip()) == (returncode, printed)
    assert message in done.stderr and bool(message) == bool(done.stderr)


def test_no_go_ahead_delivered_is_nothing_run() -> None:
    """The helper's end of the connection gone before the go-ahead: no child can have
    taken it, so the command is the caller's to run (``None``)."""
    code = ("import socket\n"
            "from waymarks.cli import warm\n"
            "ours, theirs = socket.socketpair()\n"
            "theirs.close()\n"
            "print(warm._supervise(ours, 4194305))\n")
    done = _python(code)
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "None", "")


@pytest.mark.parametrize(("code", "status"), [(None, 0), (0, 0), (4, 4), (256 + 7, 7),
                                              ("a message", 1)])
def test_an_exit_code_is_a_status_as_the_interpreter_gives_it(code: object,
                                                              status: int) -> None:
    assert warm_child.exit_status(code) == status


@contextlib.contextmanager
def supervised_child(tmp_path: Path, *signums: int
                     ) -> Iterator[tuple[subprocess.Popen[str], subprocess.Popen[str],
                                         socket.socket, Path]]:
    """A real child that reports the signal it got (one of ``signums``, written to the
    file ``got``) and exits 0, and a real client waiting on it (``warm._supervise``) at
    the end of the socket pair whose other end is ``ours``: ``(child, client, ours, got)``,
    once the client waits. Both are killed at the end if they still run."""
    got = tmp_path / "got"
    child = subprocess.Popen([sys.executable, "-c", (
        "import signal, sys, time\n"
        f"def on(signum, _):\n    open({str(got)!r}, 'w').write(str(signum)); sys.exit(0)\n"
        + "".join(f"signal.signal({int(signum)}, on)\n" for signum in signums)
        + "print('ready', flush=True)\n"
        "time.sleep(60)\n")], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline() == "ready\n"
    ours, theirs = socket.socketpair()
    client = subprocess.Popen([sys.executable, "-c", (
        "import socket, sys\n"
        "from waymarks.cli import warm\n"
        f"end = socket.socket(fileno={theirs.fileno()})\n"
        "print('waiting', flush=True)\n"
        f"sys.exit(warm._supervise(end, {child.pid}))\n")], pass_fds=[theirs.fileno()],
        stdout=subprocess.PIPE, text=True)
    theirs.close()
    try:
        assert client.stdout is not None and client.stdout.readline() == "waiting\n"
        yield child, client, ours, got
    finally:
        ours.close()
        for process in (child, client):
            if process.poll() is None:
                process.kill()


def test_a_signal_to_the_client_reaches_its_child(tmp_path: Path) -> None:
    """``Ctrl-C`` or ``SIGTERM`` to the command a person started reaches the process that
    runs it: a real client waiting on a real child (here a process that reports what it
    got), then ending as the child ended."""
    with supervised_child(tmp_path, signal.SIGINT, signal.SIGTERM) as (child, client, ours,
                                                                         got):
        # the client catches SIGTERM once it waits (Python catches SIGINT from its start)
        assert _await(lambda: _catches(client.pid, signal.SIGTERM))
        assert ours.recv(1) == b"g"
        client.send_signal(signal.SIGTERM)
        assert child.wait(30) == 0 and got.read_text() == str(int(signal.SIGTERM))
        ours.sendall(b"exit 0\n")
        assert client.wait(30) == 0


def _catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler for ``signum`` (``SigCgt`` in its status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    return False


@pytest.mark.semantic
def test_the_helper_imports_numpy_and_serves_only_the_environment_it_was_imported_under(
        tmp_path: Path) -> None:
    """With the semantic extra on, NumPy (most of a semantic recall's start) is imported by
    the helper: a recall it serves answers as a new process does. NumPy's libraries read
    their threads from the environment when they load, so a command whose environment
    says otherwise runs in its own process, as it asked."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = _environment(home, WAYMARKS_SEMANTIC="on")
    env.pop("OPENBLAS_NUM_THREADS", None)
    assert _run(["memory", "add", "--", MEMORY[1]], project, env).answer[0] == 0
    question = ["--json", "recall", "what is the database port?"]
    try:
        _warm_up(project, env, home)
        helper = _the_helper(home)
        assert "_multiarray_umath" in Path(f"/proc/{helper}/maps").read_text()
        served = _run(question, project, env)
        assert served.warm and "5433" in served.answer[1]
        assert served.answer == _run(question, project, env, cold=True).answer
        assert _run(question, project, {**env, "OPENBLAS_NUM_THREADS": "1"}).warm
        other = {**env, "OPENBLAS_NUM_THREADS": "2"}
        ran = _run(question, project, other)
        assert not ran.warm and ran.answer == served.answer
        # refused for what it is, by a helper that listens: no new helper is wanted (each
        # such command would start one that exits at once); none listening: one is
        [path] = _sockets(home)
        bin_dir = str(Path(sys.executable).parent)
        asked = _python(f"import sys\nsys.path[0] = {bin_dir!r}\n"
                        "from waymarks.cli import warm\n"
                        f"print(warm.run(['recall', 'x'], {str(path)!r}),"
                        f" warm.run(['recall', 'x'], {str(path) + '.gone'!r}))\n",
                        cwd=project, env=other)
        assert asked.stdout.strip() == "(None, False) (None, True)", asked.stderr
    finally:
        _stop_helpers(home)


def test_the_child_takes_the_clients_time_zone(tmp_path: Path) -> None:
    """The C library reads ``TZ`` once: a child of a helper started in another zone
    takes the client's (``warm_child.become``, run in a process of its own)."""
    code = ("import os, sys, time\n"
            "from waymarks.cli import warm, warm_child\n"
            "os.environ['TZ'] = 'JST-9'\n"  # (not read yet: the helper's zone stands)
            "request = warm._request(['recall', 'x']).split(b'\\0')[1:]\n"
            "before = time.tzname\n"
            "warm_child.become(warm_child.parse(request))\n"
            "print(before[0], time.tzname[0])\n")
    done = _python(code, env={**os.environ, "TZ": "UTC0"}, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["UTC", "JST"]


def test_a_client_whose_helper_died_waits_for_the_child_before_it_ends(
        tmp_path: Path) -> None:
    """The helper killed while its child runs: the child may still be writing the
    command's output, so the client ends (status 1, and why) only once it has ended."""
    release, done = tmp_path / "release", tmp_path / "done"
    child = subprocess.Popen([sys.executable, "-c", (
        "import os, time\n"
        f"while not os.path.exists({str(release)!r}):\n    time.sleep(0.02)\n"
        f"open({str(done)!r}, 'w').write('written')\n")])
    ours, theirs = socket.socketpair()
    client = subprocess.Popen([sys.executable, "-c", (
        "import socket, sys\n"
        "from waymarks.cli import warm\n"
        f"end = socket.socket(fileno={theirs.fileno()})\n"
        f"sys.exit(warm._supervise(end, {child.pid}))\n")],
        pass_fds=[theirs.fileno()], stderr=subprocess.PIPE, text=True)
    theirs.close()
    try:
        assert ours.recv(1) == b"g"  # the child has the command
        ours.close()  # and the helper is gone before it reported anything
        time.sleep(0.5)
        assert client.poll() is None, "the client ended while the child was still running"
        release.write_text("")
        _, err = client.communicate(timeout=60)
        assert done.exists()
        assert client.returncode == 1 and "stopped before it said how" in err
    finally:
        release.write_text("")
        child.wait(30)
        if client.poll() is None:
            client.kill()


def test_a_warm_command_finds_its_modules_imported(
        filled: tuple[Path, Path, dict[str, str]]) -> None:
    """After the helper's imports (:data:`~waymarks.cli.warm_server.PRELOAD`), a recall
    and a listing of pins import no further module of Waymarks: what the child would
    otherwise import per command, the helper imported once."""
    _home, project, env = filled
    code = ("import sys\n"
            "from waymarks.cli import warm_server\n"
            "warm_server._preload()\n"
            "before = {m for m in sys.modules if m.startswith('waymarks')}\n"
            "from waymarks.cli.main import main\n"
            "assert main(['recall', 'database port']) == 0\n"
            "assert main(['--json', 'pins']) == 0\n"
            "print(sorted({m for m in sys.modules if m.startswith('waymarks')} - before),"
            " file=sys.stderr)\n")
    done = _recalled_off(code, project, env)
    assert done.stderr.strip().splitlines()[-1] == "[]"


def _send_request(path: Path, argv: list[str], stdout_fd: str, then: str,
                  first: str = "message") -> str:
    """Code for a process that sends ``argv`` to the helper at ``path`` as the console
    script would (its import path), its standard output the descriptor ``stdout_fd``
    names (``first``: what of the ``message`` it sends with them), then runs ``then``."""
    bin_dir = str(Path(sys.executable).parent)
    return ("import os, socket, sys\n"
            f"sys.path[0] = {bin_dir!r}\n"
            "from waymarks.cli import warm\n"
            "from waymarks.spawn.sockets import connect\n"
            f"request = warm._request({argv!r})\n"
            f"client = connect({str(path)!r}, 1, 10)\n"
            "assert client.recv(1) == warm.GREETING\n"
            "r, w = os.pipe()\n"
            "message = len(request).to_bytes(8, 'big') + request\n"
            f"sent = client.sendmsg([{first}], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,"
            f" b''.join(fd.to_bytes(4, sys.byteorder) for fd in (0, {stdout_fd}, 2)))])\n"
            f"{then}\n")


def test_a_client_gone_before_the_go_ahead_has_nothing_run(
        filled: tuple[Path, Path, dict[str, str]]) -> None:
    """The client gave up after its request (it then runs the command itself): the child
    the helper forked runs nothing. Its standard output (a pipe here) sees no byte."""
    home, project, env = filled
    [path] = _sockets(home)
    code = _send_request(path, ["recall", "database port"], "w", (
        "client.sendall(message[sent:])\n"
        "line = b''\n"
        "while not line.endswith(b'\\n'):\n    line += client.recv(1)\n"
        "client.close()\n"
        "os.close(w)\n"
        "print(line.decode().split()[0], repr(os.read(r, 65536)))"))
    done = _python(code, cwd=project, env=env)
    assert done.stdout.split() == ["run", "b''"], done.stderr
    assert _run(["recall", "database port"], project, env).warm


def test_a_stalled_client_neither_holds_the_helper_nor_keeps_its_descriptors(
        filled: tuple[Path, Path, dict[str, str]]) -> None:
    """A client that sends part of its request and stalls: the next command is still
    served, and the stalled one's standard output (a pipe) is not kept open by the
    helper once it is refused (so a reader of the pipe sees its end)."""
    home, project, env = filled
    [path] = _sockets(home)
    code = _send_request(path, ["recall", "database port"], "w", (
        "os.close(w)\n"
        "print('stalled', flush=True)\n"
        "print(repr(os.read(r, 65536)), flush=True)\n"  # the pipe's end: no one holds it
        "client.close()"), first="message[:64]")
    stalled = subprocess.Popen([sys.executable, "-c", code], cwd=project, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert stalled.stdout is not None and stalled.stdout.readline() == "stalled\n"
        served = _run(["recall", "database port"], project, env)
        assert served.warm and "5433" in served.answer[1]
        out, err = stalled.communicate(timeout=60)
        assert out == "b''\n", err
    finally:
        if stalled.poll() is None:
            stalled.kill()


def test_unbuffered_output_from_the_environment_runs_warm_and_from_u_cold(
        filled: tuple[Path, Path, dict[str, str]]) -> None:
    """``PYTHONUNBUFFERED`` is the environment's (containers set it): the child reads it
    and writes straight to its descriptors. ``python -u`` is the interpreter's own, which
    a helper does not share: that command runs in its own process."""
    _home, project, env = filled
    buffered = {key: value for key, value in env.items() if key != "PYTHONUNBUFFERED"}
    assert _run(["recall", "database port"], project, {**buffered, "PYTHONUNBUFFERED": "1"}).warm
    done = subprocess.run([ENTRY[0], "-u", *ENTRY[1:], "recall", "database port"], cwd=project,
                          env=buffered, capture_output=True, text=True, timeout=120)
    ran = Ran(done)
    assert not ran.warm and "5433" in ran.answer[1]
    assert _run(["recall", "database port"], project, {**buffered, "PYTHONHASHSEED": "0"}) \
        .warm is False


@pytest.mark.parametrize("given", [
    {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": "/tmp/pyc"}, {}])
def test_a_helper_runs_only_a_client_that_writes_bytecode_as_it_does(
        tmp_path: Path, given: dict[str, str]) -> None:
    """The helper starts with ``-I`` (it reads no ``PYTHON*`` variable) and imports ~200
    modules: it is started with its client's bytecode settings, and a request says the
    client's, which must be the helper's (a client with ``PYTHONDONTWRITEBYTECODE`` had
    ``.pyc`` files written into the installation)."""
    code = ("import sys\n"
            "from waymarks.cli import warm, warm_server\n"
            "sys.path[:] = warm._paths()\n"
            "fields = warm._request(['recall', 'x']).split(b'\\0')[1:]\n"
            "same = warm_server._admitted(fields, None)\n"
            "sys.dont_write_bytecode = not sys.dont_write_bytecode\n"
            "flipped = warm_server._admitted(fields, None)\n"
            "sys.dont_write_bytecode = not sys.dont_write_bytecode\n"
            "sys.pycache_prefix = '/elsewhere'\n"
            "print(type(same).__name__, flipped, warm_server._admitted(fields, None))\n")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    done = _python(code, env={**env, **given}, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["Request", "b'installation'", "b'installation'"]
