"""``files.atomic.write_atomic``: the one way Waymarks replaces a file.

A process killed just before the rename (SIGKILL, from inside, with the temporary file
already durable) and a rename that fails both leave the old file byte for byte; a
finished write is the new content, in the mode the caller asked for, with no temporary
file left; the directory is fsynced after the rename. The callers that rewrite files
(trust list, personal memory, export, Claude Code pointer and settings, Pi loader) go
through it.
"""

from __future__ import annotations

import ast
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from waymarks.files import atomic
from waymarks.files.atomic import write_atomic

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "waymarks"

# The child writes new bytes over the target and kills itself with SIGKILL at the rename:
# the temporary file is complete and fsynced, the rename never happens.
KILLED_AT_RENAME = """
import os, signal, sys
from waymarks.files import atomic

def die(src, dst):
    print("RENAMING", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)

atomic.os.replace = die
atomic.write_atomic(sys.argv[1], b"new content that must never be seen\\n")
print("RETURNED", flush=True)
"""


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_a_write_replaces_the_content_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "trusted-projects.json"
    target.write_text("old\n", encoding="utf-8")
    write_atomic(target, "new ✓\n")
    assert target.read_bytes() == "new ✓\n".encode()
    write_atomic(target, b"\x00bytes\n")
    assert target.read_bytes() == b"\x00bytes\n"
    assert leftovers(tmp_path) == []


def test_a_process_killed_before_the_rename_leaves_the_old_file_intact(
        tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(b'{"old": true}\n')
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-c", KILLED_AT_RENAME, str(target)],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert done.stdout.split() == ["RENAMING"]  # it died at the rename, not before
    assert target.read_bytes() == b'{"old": true}\n'
    [temp] = leftovers(tmp_path)  # what a kill leaves: hidden, not the target's name
    assert temp.startswith(".settings.json.") and temp != target.name
    assert (tmp_path / temp).read_bytes() == b"new content that must never be seen\n"
    write_atomic(target, b"next\n")  # a later write is not hindered by the leftover
    assert target.read_bytes() == b"next\n"


def test_a_failed_rename_leaves_the_old_file_and_removes_the_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "MEMORY.md"
    target.write_text("# Personal memory index\n", encoding="utf-8")

    def refuse(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", refuse)
    with pytest.raises(OSError, match="No space left"):
        write_atomic(target, "half a new index")
    monkeypatch.undo()
    assert target.read_text(encoding="utf-8") == "# Personal memory index\n"
    assert leftovers(tmp_path) == []


def test_a_failed_write_leaves_the_old_file_and_removes_the_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "export.jsonl"
    target.write_text("line 1\n", encoding="utf-8")

    def full(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(atomic.os, "fsync", full)
    with pytest.raises(OSError, match="Input/output"):
        write_atomic(target, "line 1\nline 2\n")
    monkeypatch.undo()
    assert target.read_text(encoding="utf-8") == "line 1\n"
    assert leftovers(tmp_path) == []


def test_the_file_and_then_the_directory_are_fsynced(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "pointer.session"
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append("dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real_fsync(fd)

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        events.append("rename")
        real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "fsync", fsync)
    monkeypatch.setattr(atomic.os, "replace", replace)
    write_atomic(target, "abc")
    assert events == ["file", "rename", "dir"]


@pytest.mark.parametrize("mode", [0o600, 0o644, 0o640])
def test_an_explicit_mode_is_applied_whatever_the_umask(tmp_path: Path, mode: int) -> None:
    target = tmp_path / "claude.json"
    old = os.umask(0o077)
    try:
        write_atomic(target, "{}\n", mode=mode)
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == mode


def test_no_mode_is_what_a_fresh_open_gives(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "waymarks.ts", "// loader\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "waymarks.ts").stat().st_mode) == 0o640


def test_a_write_through_a_missing_directory_fails_and_creates_nothing(
        tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write_atomic(tmp_path / "missing" / "file.json", "{}")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_no_other_module_rewrites_a_file_itself() -> None:
    """Every rewrite goes through the helper: ``os.replace`` elsewhere only moves whole
    files aside (a damaged database, a migrated legacy file), never a temporary one, and
    nothing writes a file in place (``write_text``, ``write_bytes``)."""
    allowed = {("personal/store.py", "migrate_legacy"),
               # a damaged database and its companions, renamed aside whole (companions
               # first, the database last: the repair's order, finished after a kill)
               ("service/kept_exclusions.py", "rename_aside"),
               # the structured log past its size, moved whole to ``.1``
               ("service/logs.py", "_set_aside"),
               # a capture request that failed every retry, moved aside whole
               ("service/capture_spool.py", "_set_aside"),
               # a new page only this user can read (``mkstemp``: 0600, a fresh name),
               # never a rewrite: what ``ui --open`` starts the browser with
               ("web/server.py", "launch_page"),
               # a helper's new socket renamed over its path once it listens (no file's
               # content: a client never finds a socket that refuses it)
               ("spawn/sockets.py", "listen")}
    found = set()
    for path in SRC.rglob("*.py"):
        if path.parent.name == "files":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            calls = [n for n in ast.walk(function) if isinstance(n, ast.Call) and _rewrites(n)]
            if calls:
                found.add((str(path.relative_to(SRC)), function.name))
    assert found == allowed


def _rewrites(call: ast.Call) -> bool:
    name = ast.unparse(call.func)
    return name in ("os.replace", "os.rename", "tempfile.mkstemp") or (
        isinstance(call.func, ast.Attribute) and call.func.attr in ("write_text", "write_bytes"))


def test_a_target_with_a_long_name_is_written(tmp_path: Path) -> None:
    target = tmp_path / ("m" * 250 + ".md")
    write_atomic(target, "text")
    assert target.read_text(encoding="utf-8") == "text" and leftovers(tmp_path) == []


def _specials(tmp_path: Path) -> dict[str, Path]:
    """A symbolic link (to a regular file), a FIFO, a directory and a socket, each where
    a write would replace it."""
    import socket

    real = tmp_path / "real.txt"
    real.write_bytes(b"linked content\n")
    made = {"a symbolic link": tmp_path / "link", "a FIFO": tmp_path / "fifo",
            "a directory": tmp_path / "dir", "a socket": tmp_path / "sock"}
    made["a symbolic link"].symlink_to(real)
    os.mkfifo(made["a FIFO"])
    made["a directory"].mkdir()
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(made["a socket"]))
    server.close()  # the socket file stays
    return made


def test_a_target_that_is_not_a_regular_file_is_refused_and_left_as_it_was(
        tmp_path: Path) -> None:
    for kind, target in _specials(tmp_path).items():
        before = os.lstat(target)
        with pytest.raises(atomic.NotARegularFile) as refused:
            write_atomic(target, b"would destroy it\n", mode=0o600)
        assert str(target) in str(refused.value) and kind in str(refused.value)
        after = os.lstat(target)
        assert (after.st_ino, stat.S_IFMT(after.st_mode)) == \
            (before.st_ino, stat.S_IFMT(before.st_mode)), kind
    assert (tmp_path / "real.txt").read_bytes() == b"linked content\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_device_node_is_refused(tmp_path: Path) -> None:
    device = tmp_path / "null"  # never /dev/null itself: an unfixed build would replace it
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError):
        pytest.skip("cannot make a device node here (needs CAP_MKNOD)")
    with pytest.raises(atomic.NotARegularFile, match="a character device"):
        write_atomic(device, b"x")
    assert device.is_char_device()
