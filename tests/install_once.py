"""Install a test tool once, even when several pytest workers ask for it at the same time.

The suite runs on every core (pytest-xdist): two workers may both find Pi, Claude Code or
Chromium missing and start ``npm install`` into the same prefix, or ``apt-get`` at once
(which refuses to run twice). A lock file held with ``flock`` makes the second worker wait
for the first and then find the tool installed. A thread lock alone is not enough: the
workers are separate processes.
"""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Callable
from pathlib import Path

_threads = threading.Lock()


def install_once(lock_file: Path, installed: Callable[[], bool],
                 install: Callable[[], None]) -> None:
    """Run ``install`` unless ``installed()``, holding ``lock_file`` across processes."""
    if installed():
        return
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with _threads, lock_file.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            if not installed():
                install()
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
