"""What a benchmark's rounds left running in its temporary folder, stopped before cleanup.

A hook or a write starts detached workers (the Claude Code helper and drainer, the
semantic embedder, a projection fill, the warm CLI helper: ``waymarks.spawn.detached``),
each in a session of its own, so they are no children of the benchmark and outlive the
round that started them. Removing the folder under one that still writes there failed the
whole run at its very end ("Directory not empty: 'home-baseline'").

They are found by a mark the benchmark gave them: for the block of
:func:`temporary_folder` (or :func:`marked`) this process's environment holds
``WAYMARKS_BENCH_RUN=<a fresh random token>``, and every process started meanwhile
inherits it, as do the ones those start (each of the workers above is spawned with its
starter's environment or a copy of it); ``/proc/PID/environ`` shows it. Before, any
process of this user whose working directory lay in the folder, or whose command line
named it, was stopped: a person's shell, or a ``sleep``, started in the folder got
SIGTERM. A process that works in the folder but does not carry the mark (or whose
environment cannot be read) is left running and counted (``left_alone``, and named on
stderr): only what the benchmark started is stopped. Linux (``/proc``); elsewhere nothing
is found.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

#: how long a worker is given to end by itself (a drainer's pauses, a helper's idle
#: second) before it is asked to stop, and how long it then has before it is killed
GRACE_S = 5.0
STOP_S = 5.0
#: the variable that marks the processes a benchmark started (:func:`marked`)
MARK = "WAYMARKS_BENCH_RUN"


@contextlib.contextmanager
def marked() -> Iterator[str]:
    """For the block, every process started here (and what those start) carries a fresh
    token in ``MARK``; yields the token. The environment is restored after."""
    token = secrets.token_hex(16)
    before = os.environ.get(MARK)
    os.environ[MARK] = token
    try:
        yield token
    finally:
        if before is None:
            os.environ.pop(MARK, None)
        else:
            os.environ[MARK] = before


def _processes() -> list[int]:
    """Pids of this user's processes, this one and its parent aside."""
    own = {os.getpid(), os.getppid()}
    try:
        entries = list(os.scandir("/proc"))
    except OSError:
        return []
    found = []
    for entry in entries:
        if not entry.name.isdigit() or int(entry.name) in own:
            continue
        try:
            if entry.stat().st_uid == os.getuid():
                found.append(int(entry.name))
        except OSError:  # (ended meanwhile)
            continue
    return sorted(found)


def carries(pid: int, token: str) -> bool:
    """Whether process ``pid`` was started with ``MARK=token`` (``False`` when its
    environment cannot be read: ended, or not ours to read)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as file:
            entries = file.read().split(b"\0")
    except OSError:
        return False
    return f"{MARK}={token}".encode() in entries


def started_by(token: str) -> list[int]:
    """Pids of this user's processes that carry the mark ``token``."""
    return [pid for pid in _processes() if carries(pid, token)]


def working_under(root: Path) -> list[int]:
    """Pids of this user's processes that name a path under ``root`` in their command
    line or run in a folder under it (marked or not)."""
    where = str(Path(root).resolve())
    # (the folder itself or a path in it, not another folder whose name starts with its
    # own: "/tmp/waymarks-cc-ab12" is no part of "/tmp/waymarks-cc-ab12-2/f")
    names = re.compile(re.escape(where) + r"(?![^/\s:;,=\"'])")
    found = []
    for pid in _processes():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                argv = file.read().decode(errors="replace").split("\0")
            try:
                cwd = os.readlink(f"/proc/{pid}/cwd")
            except OSError:
                cwd = ""
        except OSError:  # (ended meanwhile)
            continue
        if cwd == where or cwd.startswith(where + "/") or any(names.search(a) for a in argv):
            found.append(pid)
    return found


def _signal(token: str, pids: list[int], number: int) -> int:
    """Send ``number`` to each of ``pids`` that still carries ``token`` (checked through a
    pidfd after it was opened: a pid reused meanwhile is another process's and is left)."""
    sent = 0
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except (OSError, AttributeError):
            continue
        try:
            if carries(pid, token):
                signal.pidfd_send_signal(fd, number)
                sent += 1
        except OSError:
            pass
        finally:
            os.close(fd)
    return sent


def _wait(token: str, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while (pids := started_by(token)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return pids


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (not ended, not a zombie awaiting its parent)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(errors="replace")
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] not in (["Z"], ["X"])


def _unmarked_and_alive(pid: int, token: str) -> bool:
    """Whether ``pid`` runs without the mark: a marked process ending just then (killed a
    moment before) reads as unmarked while it exits, so it is asked a few times (CI
    counted one such as left alone)."""
    for _ in range(5):
        if carries(pid, token) or not _alive(pid):
            return False
        time.sleep(0.1)
    return True


def _left_alone(root: Path, token: str) -> int:
    """How many processes still work under ``root`` without ``token`` (not started by the
    benchmark, or not known to be: left running), each named on stderr."""
    others = [pid for pid in working_under(root) if _unmarked_and_alive(pid, token)]
    for pid in others:
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        print(f"warning: left running (not started by the benchmark): pid {pid}: "
              f"{argv.decode(errors='replace')[:200]}", file=sys.stderr)
    return len(others)


def stop_started(root: Path, token: str, grace_s: float = GRACE_S,
                 stop_s: float = STOP_S) -> dict[str, int]:
    """Wait up to ``grace_s`` for the processes that carry ``token`` (:func:`marked`) to
    end, then stop those left (``SIGTERM``, after ``stop_s`` ``SIGKILL``). Counts: found,
    asked to stop, killed, still running after all that (0 unless one could not be
    signalled), and left alone: processes working under ``root`` (their directory or
    command line) without the mark, not stopped."""
    found = len(started_by(token))
    left = _wait(token, grace_s)
    terminated = _signal(token, left, signal.SIGTERM) if left else 0
    left = _wait(token, stop_s) if left else []
    killed = _signal(token, left, signal.SIGKILL) if left else 0
    left = _wait(token, stop_s) if left else []
    return {"found": found, "terminated": terminated, "killed": killed,
            "still_running": len(left), "left_alone": _left_alone(root, token)}


def remove(root: Path, tries: int = 5) -> bool:
    """Remove ``root`` and all in it; a few tries (a process that ended a moment ago may
    have written its last file meanwhile). ``False``, said on stderr, if it could not:
    the benchmark's result stands either way."""
    for attempt in range(tries):
        try:
            shutil.rmtree(root)
            return True
        except FileNotFoundError:
            return True
        except OSError as exc:
            if attempt == tries - 1:
                print(f"warning: could not remove {root}: {exc}", file=sys.stderr)
            time.sleep(0.2)
    return False


@contextlib.contextmanager
def temporary_folder(prefix: str, report: dict[str, object]) -> Iterator[Path]:
    """A temporary folder for a benchmark's homes, every process started in the block
    marked (:func:`marked`): on the way out, what its rounds left running is stopped
    (:func:`stop_started`, counts in ``report["leftovers"]``) and the folder removed
    without failing the run (``report["removed"]``)."""
    import tempfile

    root = Path(tempfile.mkdtemp(prefix=prefix))
    with marked() as token:
        try:
            yield root
        finally:
            report["leftovers"] = stop_started(root, token)
            report["removed"] = remove(root)
