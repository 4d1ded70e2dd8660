"""Where the tests' temporary folders go: in memory (``/dev/shm``) when it can hold them.

Thousands of homes are made and dropped; on this machine's disk their fsyncs were a fifth
of the fast lane (97 -> 78 s). Used by ``tests/conftest.py`` and by ``scripts/test.sh``
(``python -m tests.temproot`` prints the folder, or nothing). Imports only ``os``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

#: a memory-backed folder for the tests' temporary folders, when it has this much room
MEMORY_TMP = Path("/dev/shm")
MEMORY_TMP_MIN_FREE = 4 << 30


def memory_root(candidate: Path = MEMORY_TMP) -> Path | None:
    """``candidate`` when the tests' temporary folders may live there (writable, with
    :data:`MEMORY_TMP_MIN_FREE` free, and programs may run from it: tests run scripts they
    write there, and /dev/shm is often mounted ``noexec``), else ``None``."""
    try:
        room = os.statvfs(candidate)
    except OSError:
        return None
    if room.f_flag & os.ST_NOEXEC or not os.access(candidate, os.W_OK) \
            or room.f_bavail * room.f_frsize < MEMORY_TMP_MIN_FREE:
        return None
    return candidate


if __name__ == "__main__":
    sys.stdout.write(f"{memory_root() or ''}\n")
