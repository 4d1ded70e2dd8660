"""The test process's own bytecode, kept between runs outside the checkout.

pytest rewrites the ``assert`` statements of every test module it imports (and of every
``conftest.py``) and keeps the result as a ``.pyc`` file, as Python keeps a compiled module.
A shell that sets ``PYTHONDONTWRITEBYTECODE`` (or ``python -B``) to keep the checkout free
of ``__pycache__`` (the team's does) made every run rewrite all of them again: 21 of the
28 s of CPU that collecting the fast lane took, in every xdist worker, on every run.

Imported by ``tests/conftest.py`` before anything of Waymarks, this module turns writing
back on into a folder of the temporary root (``waymarks-tests-bytecode-<uid>``, next to
pytest's own ``pytest-of-<user>``; ``/dev/shm`` when the suite puts its temporary folders
there), never beside the sources, so the checkout stays clean and the next run reads
them. Python checks each file against its source (time and size; pytest's also name the
pytest version), so an edited module is compiled again. A folder there that is not this
user's own private one is left alone and nothing is written, as before. A run that does not
ask for bytecode to be left out keeps Python's own ``__pycache__``: nothing changes there.
Imports only the standard library.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

from tests.temproot import memory_root

#: the folder's name in the temporary root, one per user
FOLDER = "waymarks-tests-bytecode-{uid}"


def keep_between_runs(root: Path | None = None) -> Path | None:
    """Where this process now writes its bytecode, or ``None`` when it changed nothing:
    bytecode was not left out, or no private folder could be had under ``root`` (the
    suite's temporary root: ``PYTEST_DEBUG_TEMPROOT``, else memory, else the system's)."""
    if not sys.dont_write_bytecode:
        return None
    if sys.pycache_prefix is None:
        folder = private_folder(_root() if root is None else root)
        if folder is None:
            return None
        sys.pycache_prefix = str(folder)
    sys.dont_write_bytecode = False
    return Path(sys.pycache_prefix)


def private_folder(root: Path) -> Path | None:
    """``root``'s folder for this user's bytecode, made if missing; ``None`` when it is not
    a real folder of this user's that no one else may write (a shared ``/tmp``)."""
    folder = root / FOLDER.format(uid=os.getuid())
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        seen = folder.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(seen.st_mode) or seen.st_uid != os.getuid() \
            or seen.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return None
    return folder


def _root() -> Path:
    chosen = os.environ.get("PYTEST_DEBUG_TEMPROOT")
    return Path(chosen) if chosen else memory_root() or Path(tempfile.gettempdir())


#: set when ``tests/conftest.py`` imports this module, before it imports Waymarks
KEPT = keep_between_runs()
