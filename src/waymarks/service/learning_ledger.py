"""Where the home's evolution ledger is, and whether anything is there: what every plan
asks first (:func:`~waymarks.service.planning._learning`), apart from the learning
switches of :mod:`waymarks.service.learning`, whose module a home that never learned
anything does not import (a prompt's hook without its helper, every prompt)."""

from __future__ import annotations

import os
from pathlib import Path


def ledger_path(home: Path) -> Path:
    """The home's evolution ledger (canonical learned state); absent until something is
    captured, so recall in a home that never learned costs one ``stat``."""
    return home / "evolution" / "ledger.jsonl"


def has_ledger(home: Path) -> bool:
    """Whether anything is at the evolution ledger's path. Not only a regular file: a
    directory, a FIFO or a dangling link there is a damaged ledger (opening it says so),
    never "nothing learned yet". Nor is a path this user may not look into (a folder of
    mode 000 on the way): that was "nothing learned yet", learned memory gone with
    ``health`` OK; opening it says why."""
    try:
        os.lstat(ledger_path(home))
    except (FileNotFoundError, NotADirectoryError):  # (a file at the folder's name: as before)
        return False
    except OSError:
        return True
    return True
