"""The warm start of one-shot commands (:mod:`waymarks.cli.warm`) as a reviewer found it
wanting: its settings, the processes it leaves and what they hold. Real processes, as in
``tests/cli/test_warm.py`` (whose helpers these tests share)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.test_warm import (
    ENTRY,
    MEMORY,
    Ran,
    _await,
    _catches,
    _environment,
    _helpers,
    _run,
    _sockets,
    _stop_helpers,
    _the_helper,
    _warm_up,
    supervised_child,
)
from waymarks.cli import warm

pytestmark = pytest.mark.slow  # real processes and helpers (~1 s or more each)


def test_an_idle_time_that_is_not_seconds_is_said_and_the_default_taken(
        tmp_path: Path) -> None:
    """``30m`` made the helper fail at its start, unseen: every command ran in its own
    process and started another. It is said once, and the default taken."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = _environment(home, **{warm.ENV_IDLE: "30m"})
    try:
        first = _run(["recall", "anything"], project, env)
        assert not first.warm and first.answer[0] == 0
        assert f"{warm.ENV_IDLE}='30m' is not a number of seconds" in first.answer[2]
        assert _await(lambda: _run(["recall", "anything"], project, env).warm, 90)
        served = _run(["recall", "anything"], project, env)
        assert served.warm and "not a number of seconds" not in served.answer[2]
    finally:
        _stop_helpers(home)


@pytest.mark.parametrize("value", ["0", "0.0"])
def test_an_idle_time_of_zero_switches_the_helper_off(tmp_path: Path, value: str) -> None:
    """``0`` started a helper that imported everything (NumPy too) and exited at once,
    for every command."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = _environment(home, **{warm.ENV_IDLE: value})
    try:
        ran = _run(["recall", "anything"], project, env)
        assert not ran.warm and ran.answer[0] == 0 and ran.answer[2] == ""
        assert _helpers(home) == []  # (a helper is started before the command ends)
        assert warm.idle_seconds(value) == 0
    finally:
        _stop_helpers(home)


@pytest.mark.parametrize(("text", "seconds"), [
    ("", warm.IDLE_SECONDS), (" ", warm.IDLE_SECONDS), ("60", 60.0), ("1.5", 1.5),
    ("inf", float("inf")), ("30m", None), ("-1", None), ("nan", None), ("x", None),
    ("0.001", None)])
def test_what_an_idle_time_means(text: str, seconds: float | None) -> None:
    assert warm.idle_seconds(text) == seconds


@pytest.mark.parametrize("how", ["PYTHONDONTWRITEBYTECODE", "-B"])
def test_a_client_that_writes_no_bytecode_has_none_written_by_its_helper(
        tmp_path: Path, how: str) -> None:
    """The helper ran ``python -I`` (no ``PYTHON*`` variable read) and its imports wrote
    ~100 ``.pyc`` files into the installation for a client that writes none. A copy of the
    package on ``PYTHONPATH`` (its own installation, its own helper) holds none after a
    command was served warm."""
    import waymarks

    source = tmp_path / "src"
    shutil.copytree(Path(waymarks.__file__).parent, source / "waymarks",
                    ignore=shutil.ignore_patterns("__pycache__"))
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = _environment(home, PYTHONPATH=str(source))
    env.pop("PYTHONPYCACHEPREFIX", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    entry = list(ENTRY)
    if how == "-B":
        entry.insert(1, "-B")
    else:
        env[how] = "1"

    def recall() -> Ran:
        return Ran(subprocess.run([*entry, "recall", "database port"], cwd=project, env=env,
                                  capture_output=True, text=True, timeout=120))

    try:
        assert _run(["memory", "add", "--", MEMORY[1]], project,
                    {**env, "PYTHONDONTWRITEBYTECODE": "1"}).answer[0] == 0
        assert _await(lambda: recall().warm, 90), "a helper started and served a command"
        assert "5433" in recall().answer[1]
        assert sorted(source.rglob("*.pyc")) == []
    finally:
        _stop_helpers(home)


def test_a_client_that_writes_no_bytecode_has_a_helper_of_its_own() -> None:
    """Part of the socket's name: a client writing bytecode reaches another helper."""
    code = "from waymarks.cli import warm; print(warm.installation(warm.confinement() or []))"
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    named = {subprocess.run([sys.executable, *options, "-c", code], env=env, text=True,
                            capture_output=True, check=True, timeout=60).stdout
             for options in ([], ["-B"], ["-X", "pycache_prefix=/tmp/elsewhere"])}
    assert len(named) == 3


def test_a_helper_that_only_refuses_goes_idle(tmp_path: Path) -> None:
    """A request it refuses (here one it cannot read) is no use of the helper: counted as
    one, a helper that could serve no one (a client confined otherwise) never went idle,
    and its refused clients start no other."""
    import socket

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = _environment(home, **{warm.ENV_IDLE: "3"})

    def refused_until_gone() -> bool:
        for path in _sockets(home):
            with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as client:
                client.settimeout(10)
                client.connect(str(path))
                client.sendall(b"\0" * 12)
                reply = b""
                while chunk := client.recv(100):
                    reply += chunk
                assert reply in (warm.GREETING + b"refused request\n", b"")
        time.sleep(0.2)  # (a client every 0.2 s, well within the idle time)
        return not _helpers(home)

    try:
        assert _await(lambda: _run(["recall", "x"], project, env).warm, 90)
        assert _await(refused_until_gone, 120), "the helper went idle"
        assert not _sockets(home)
    finally:
        _stop_helpers(home)


def test_a_client_with_no_new_privileges_starts_no_helper(tmp_path: Path) -> None:
    """No helper runs its command (it may be under Landlock, which /proc does not show),
    and one it started would have no-new-privileges too and serve no one."""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("setpriv is not installed")
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = _environment(home)
    try:
        done = subprocess.run([setpriv, "--no-new-privs", *ENTRY, "recall", "x"], cwd=project,
                              env=env, capture_output=True, text=True, timeout=120)
        ran = Ran(done)
        assert ran.answer[0] == 0 and not ran.warm
        assert _helpers(home) == []  # (a helper is started before the command ends)
    finally:
        _stop_helpers(home)


def test_a_client_confined_otherwise_has_a_helper_of_its_own(tmp_path: Path) -> None:
    """A client in another network namespace (as in another cgroup) is refused by a
    helper confined otherwise: it reaches one of its own, and the first serves on."""
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-n", "true"],
                                         capture_output=True).returncode != 0:
        pytest.skip("no network namespace can be made here")
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = _environment(home)

    # one namespace (each `unshare -n` makes a new one), whose commands run until one is
    # served warm: its helper is started in that namespace too
    code = ("import subprocess, sys, time\n"
            "deadline = time.monotonic() + 90\n"
            "while time.monotonic() < deadline:\n"
            f"    done = subprocess.run({list(ENTRY)!r} + ['recall', 'x'],"
            " capture_output=True, text=True)\n"
            "    if not any(line.rstrip().endswith('| msgspec')"
            " for line in done.stderr.splitlines()):\n"
            "        sys.exit(print('warm', done.returncode))\n"
            "    time.sleep(0.1)\n")
    try:
        assert _await(lambda: _run(["recall", "x"], project, env).warm, 90)
        apart = subprocess.run([unshare, "-n", sys.executable, "-c", code], cwd=project,
                               env=env, capture_output=True, text=True, timeout=300)
        assert apart.stdout.split() == ["warm", "0"], apart.stderr
        assert len(_sockets(home)) == 2
        assert _run(["recall", "x"], project, env).warm
    finally:
        _stop_helpers(home)


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def test_a_command_whose_caller_was_killed_is_ended(tmp_path: Path) -> None:
    """``kill -9`` of the command's own process passes nothing on: the helper's child ran
    on (a reviewer's wrote 9.9 MB after its caller's death; a process of its own, none).
    Here the child is held writing to a pipe no one reads when its caller is killed."""
    import fcntl
    import termios

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = _environment(home)
    reader, writer = os.pipe()
    try:
        for n in range(3):
            assert _run(["pin", "--", f"Pin {n}: " + "x" * 3000], project, env).answer[0] == 0
        assert _await(lambda: _run(["--json", "pins"], project, env).warm, 90)
        helper = _the_helper(home)
        fcntl.fcntl(writer, fcntl.F_SETPIPE_SZ, 4096)  # (its least: the answer is ~9 KB)
        client = subprocess.Popen([*ENTRY, "--json", "pins"], cwd=project, env=env,
                                  stdout=writer, stderr=subprocess.DEVNULL)
        os.close(writer)
        writer = -1

        def buffered() -> int:
            size = bytearray(4)
            fcntl.ioctl(reader, termios.FIONREAD, size)
            return int.from_bytes(size, sys.byteorder)

        assert _await(lambda: buffered() == 4096, 60), "the child writes, and waits"
        [child] = [int(entry.name) for entry in Path("/proc").iterdir()
                   if entry.name.isdigit() and _parent(int(entry.name)) == helper]
        client.kill()
        assert client.wait(30) == -signal.SIGKILL
        assert _await(lambda: not _running(child), 30), "the helper ended the command"
        assert buffered() == 4096, "it wrote nothing after its caller's death"
    finally:
        os.close(reader)
        if writer != -1:
            os.close(writer)
        _stop_helpers(home)


def _parent(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    return next(int(line.split()[1]) for line in status.splitlines()
                if line.startswith("PPid:"))


@pytest.mark.parametrize("name", ["SIGQUIT", "SIGUSR1", "SIGALRM"])
def test_every_signal_that_ends_a_command_reaches_its_child(tmp_path: Path,
                                                            name: str) -> None:
    """Only ``SIGINT``, ``SIGTERM`` and ``SIGHUP`` were passed on: ``kill -QUIT`` (or
    ``USR1``, ``ALRM``) ended the caller and left the command running. A real client
    waiting on a real child (a process that reports what it got)."""
    signum = getattr(signal, name)
    with supervised_child(tmp_path, signum) as (child, client, ours, got):
        assert ours.recv(1) == b"g"  # (it sends the go-ahead once its handlers are set)
        assert _catches(client.pid, signum)
        client.send_signal(signum)
        assert child.wait(30) == 0 and got.read_text() == str(int(signum))
        ours.sendall(b"exit 0\n")
        assert client.wait(30) == 0


def test_a_command_whose_caller_went_is_killed_if_it_outlives_sigterm() -> None:
    """The helper's side (:func:`~waymarks.cli.warm_server._wait`), in a process of its
    own: a child that ignores ``SIGTERM``, its client's end closed, gets ``SIGKILL``."""
    code = ("import os, signal, socket, time\n"
            "from waymarks.cli import warm_server\n"
            "warm_server.ORPHAN_SECONDS = 0.2\n"
            "ours, theirs = socket.socketpair()\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            "    ours.close()\n"
            "    time.sleep(120)\n"
            "    os._exit(0)\n"
            "children, orphans = {pid: theirs}, {}\n"
            "warm_server._wait([], children, orphans, 0.5)\n"
            "running = pid in children and not orphans\n"  # (its client is still there)
            "ours.close()\n"
            "deadline = time.monotonic() + 60\n"
            "while children and time.monotonic() < deadline:\n"
            "    warm_server._wait([], children, orphans, 0.5)\n"
            "    warm_server._collect(children)\n"
            "print(running, not children, list(orphans.values()))\n")  # (inf: killed)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.split() == ["True", "True", "[inf]"], done.stderr


@pytest.mark.parametrize("launcher", [
    [*ENTRY], [sys.executable, "-m", "waymarks.cli.main"],
    [sys.executable, "-c", "import sys; from waymarks.cli.main import main; sys.exit(main())"],
], ids=["console script", "python -m", "python -c"])
@pytest.mark.parametrize("command", [["recall", "cache", "ttl"], ["pins"]])
def test_a_command_run_where_the_directory_was_removed_ends_with_its_own_status(
        tmp_path: Path, launcher: list[str], command: list[str]) -> None:
    """Run from a directory removed meanwhile (a shell left in it), ``recall`` and ``pins``
    printed their answer, then a traceback and status 1: starting the helper for the next
    command read this directory. No helper starts then; the command's own status stands."""
    home, project, gone = tmp_path / "home", tmp_path / "project", tmp_path / "gone"
    project.mkdir()
    gone.mkdir()
    try:
        done = subprocess.run(
            ["sh", "-c", 'cd "$1" && rmdir "$1" && shift && exec "$@"', "sh", str(gone),
             *launcher, "--json", "--cwd", str(project), *command],
            env=_environment(home), capture_output=True, text=True, timeout=120)
        assert not gone.exists()
        assert (done.returncode, done.stdout.startswith("{")) == (0, True), done
        assert "Traceback" not in done.stderr, done.stderr
    finally:
        _stop_helpers(home)


def test_a_stopped_helper_is_replaced_once_a_command_waited_for_it(tmp_path: Path) -> None:
    """A helper stopped with ``SIGSTOP`` kept its socket and its lock: every ``recall`` and
    ``pins`` waited ``ACCEPT_TIMEOUT_S`` for it, then ran in its own process, and the
    helper each started exited at once on the lock; the descriptors a command sent it
    stayed open in its queue, so a reader of the command's output (here, the test's pipe)
    waited until it resumed. A command now sends them only once a helper took it; the one
    that waited sets the socket aside, and a new helper serves in the stopped one's
    place."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = _environment(home)
    stopped = None
    try:
        assert _run(["memory", "add", "--", MEMORY[1]], project, env).answer[0] == 0
        _warm_up(project, env, home)
        stopped = _the_helper(home)
        [path] = _sockets(home)
        its_socket = path.stat().st_ino
        os.kill(stopped, signal.SIGSTOP)
        waited = _run(["recall", "database port"], project, env)
        assert not waited.warm and waited.answer[0] == 0 and "5433" in waited.answer[1]
        # no later command reaches the stopped helper's socket
        assert its_socket not in [p.stat().st_ino for p in _sockets(home)]
        assert _await(lambda: _run(["recall", "database port"], project, env).warm, 90)
        served = _run(["pins"], project, env)
        assert served.warm and served.answer[0] == 0
        # one new helper stays (another started meanwhile finds it answering, and exits)
        assert _await(lambda: len(_helpers(home)) == 2) and stopped in _helpers(home)
        [path] = _sockets(home)
        assert path.stat().st_ino != its_socket
    finally:
        if stopped is not None:
            os.kill(stopped, signal.SIGCONT)
        _stop_helpers(home)


def test_a_child_that_imports_numpy_itself_has_one_blas_thread(tmp_path: Path) -> None:
    """:mod:`waymarks.semantic` sets NumPy's one BLAS thread when first imported: under
    warm start the helper imported it, then the child took its client's environment in
    full. A helper started with the semantic signal off (NumPy not imported) then serving
    a semantic recall had NumPy load OpenBLAS in the child with a thread a core. The
    child's environment is its client's with that default, as a command's own process
    has it (unless the client chose otherwise); run in a process of its own."""
    pytest.importorskip("numpy")
    code = ("import os\n"
            "from waymarks.cli import warm, warm_child\n"
            "plain = warm._request(['recall', 'x']).split(b'\\0')[1:]\n"
            "os.environ['OPENBLAS_NUM_THREADS'] = '3'\n"
            "chosen = warm._request(['recall', 'x']).split(b'\\0')[1:]\n"
            "del os.environ['OPENBLAS_NUM_THREADS']\n"
            "from waymarks import semantic\n"  # (the helper's preload)
            "warm_child.become(warm_child.parse(chosen))\n"
            "print(os.environ['OPENBLAS_NUM_THREADS'])\n"
            "warm_child.become(warm_child.parse(plain))\n"
            "print(os.environ.get('OPENBLAS_NUM_THREADS'))\n"
            "import numpy\n"
            "print(len(os.listdir('/proc/self/task')))\n")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["3", "1", "1"]  # (one thread: NumPy's BLAS started none)
