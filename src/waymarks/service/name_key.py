"""The home's secret for naming withheld items by a digest (``<home>/names.key``).

A manifest and the log name an item whose ID is made of its words (a personal entry's
slug, a docs passage's heading) by a digest when the item is local-only or its ID holds a
credential or a marker. Unkeyed, such a digest was the words all the same: whoever read
the log could hash guesses ("my-bank-is-chase-and-my-salary-is-250000") until one
matched. Keyed by 32 random bytes only this home holds (mode 0600), it names the item
the same way in every process of the home and says nothing of its words.

Made once, atomically: the key is written to a file of its own and linked into place,
so two processes starting together use the same key (the second reads the first's).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path
from typing import Final

KEY_FILE: Final = "names.key"
KEY_BYTES: Final = 32

_KEYS: dict[Path, bytes] = {}


def name_key(home: Path) -> bytes | None:
    """This home's key, made on first use; ``None`` when it can be neither read nor made
    (a read-only home, a damaged file): the caller names the item without a digest."""
    known = _KEYS.get(home)
    if known is not None:
        return known
    path = home / KEY_FILE
    key = _read(path)
    if key is None:
        key = _make(home, path)
    if key is not None:
        _KEYS[home] = key
    return key


def _read(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(KEY_BYTES + 1)
    except OSError:
        return None
    return data if len(data) == KEY_BYTES else None


def _make(home: Path, path: Path) -> bytes | None:
    temp = home / f".{KEY_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
    key = secrets.token_bytes(KEY_BYTES)
    try:
        home.mkdir(parents=True, exist_ok=True)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, key)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temp, path)  # in place only if no other process was first
        except FileExistsError:
            return _read(path)
        return key
    except OSError:
        return None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)
