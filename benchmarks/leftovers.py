"""What a benchmark's rounds left running in its temporary folder, stopped before cleanup.

A hook or a write starts detached workers (the Claude Code helper and drainer, the
semantic embedder, a projection fill: ``waymarks.spawn.detached``), each in a session of
its own, so they are no children of the benchmark and outlive the round that started
them. Removing the folder under one that still writes there failed the whole run at its
very end ("Directory not empty: 'home-baseline'"). They are found by what the benchmark
gave them: a process of this user whose command line names a path under the folder or
whose working directory lies in it (every such worker is told its home, and the helper
and the workers run in it). The folder's name is a fresh temporary one, so no process
the benchmark did not start is touched. Linux (``/proc``); elsewhere nothing is found.
"""

from __future__ import annotations

import contextlib
import os
import re
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


def started_under(root: Path) -> list[int]:
    """Pids of this user's processes (this one and its parents aside) that name a path
    under ``root`` in their command line or run in a folder under it."""
    where = str(Path(root).resolve())
    # (the folder itself or a path in it, not another folder whose name starts with its
    # own: "/tmp/waymarks-cc-ab12" is no part of "/tmp/waymarks-cc-ab12-2/f")
    names = re.compile(re.escape(where) + r"(?![^/\s:;,=\"'])")
    own = {os.getpid(), os.getppid()}
    found = []
    try:
        entries = list(os.scandir("/proc"))
    except OSError:
        return []
    for entry in entries:
        if not entry.name.isdigit() or int(entry.name) in own:
            continue
        try:
            if entry.stat().st_uid != os.getuid():
                continue
            with open(f"/proc/{entry.name}/cmdline", "rb") as file:
                argv = file.read().decode(errors="replace").split("\0")
            try:
                cwd = os.readlink(f"/proc/{entry.name}/cwd")
            except OSError:
                cwd = ""
        except OSError:  # (ended meanwhile)
            continue
        if cwd == where or cwd.startswith(where + "/") or any(names.search(a) for a in argv):
            found.append(int(entry.name))
    return sorted(found)


def _signal(root: Path, pids: list[int], number: int) -> int:
    """Send ``number`` to each of ``pids`` still under ``root`` (checked through a pidfd
    after it was opened: a pid reused meanwhile is another process's and is left)."""
    sent = 0
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except (OSError, AttributeError):
            continue
        try:
            if pid in started_under(root):
                signal.pidfd_send_signal(fd, number)
                sent += 1
        except OSError:
            pass
        finally:
            os.close(fd)
    return sent


def _wait(root: Path, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while (pids := started_under(root)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return pids


def stop_started(root: Path, grace_s: float = GRACE_S,
                 stop_s: float = STOP_S) -> dict[str, int]:
    """Wait up to ``grace_s`` for the processes working under ``root`` to end, then stop
    those left (``SIGTERM``, after ``stop_s`` ``SIGKILL``). Counts: found, asked to stop,
    killed, and still running after all that (0 unless one could not be signalled)."""
    found = len(started_under(root))
    left = _wait(root, grace_s)
    terminated = _signal(root, left, signal.SIGTERM) if left else 0
    left = _wait(root, stop_s) if left else []
    killed = _signal(root, left, signal.SIGKILL) if left else 0
    left = _wait(root, stop_s) if left else []
    return {"found": found, "terminated": terminated, "killed": killed,
            "still_running": len(left)}


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
    """A temporary folder for a benchmark's homes: on the way out, what its rounds left
    running there is stopped (:func:`stop_started`, counts in ``report["leftovers"]``)
    and the folder removed without failing the run (``report["removed"]``)."""
    import tempfile

    root = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield root
    finally:
        report["leftovers"] = stop_started(root)
        report["removed"] = remove(root)
