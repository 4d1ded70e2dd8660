"""When the projection last changed, as a token a long-lived process can compare.

A process that serves many requests (the hook helper, the MCP server) reads the same pins
and the same recall rows again and again, verifying each row's checksum every time. It
may keep what it verified while nothing changed: another connection's commit moves
``PRAGMA data_version``, and this connection's own writes move its ``total_changes``.
Writes that touch nothing a reader keeps (each plan's manifest) are made inside
:meth:`Epoch.quiet` and are not counted, or every plan would throw the kept rows away.

The token is ``None`` inside a transaction: its uncommitted writes may still roll back,
and ``total_changes`` does not go back when they do.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

Token = tuple[int, int]


class Epoch:
    """The change token of one connection."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self._quiet = 0  # rows changed by quiet writes, taken out of total_changes
        self._held = False  # inside held(): other connections' commits asked once
        self._version: int | None = None  # what they were then

    def token(self) -> Token | None:
        """Equal to an earlier token only if no change was committed since (``None``
        inside a transaction: nothing read there may be kept); inside :meth:`held`, since
        the request's first ask, as far as other connections' commits go."""
        if self.db.in_transaction:
            return None
        version = self._version
        if version is None:
            (version,) = self.db.execute("PRAGMA data_version").fetchone()
            if self._held:
                self._version = version
        return int(version), self.db.total_changes - self._quiet

    @contextmanager
    def held(self) -> Iterator[None]:
        """One request: other connections' commits are asked for once (``PRAGMA
        data_version``, asked by each read that keeps rows: four a plan), this connection's
        own writes still counted as they are made. A commit of another process during the
        request is the next request's to see, as one made right after it is; what is
        read meanwhile is kept under the request's token, which the next one's differs
        from."""
        if self._held:
            yield
            return
        self._held = True
        try:
            yield
        finally:
            self._held = False
            self._version = None

    @contextmanager
    def quiet(self) -> Iterator[None]:
        """Writes that change no row a reader keeps: they leave the token as it was."""
        before = self.db.total_changes
        try:
            yield
        finally:
            self._quiet += self.db.total_changes - before
