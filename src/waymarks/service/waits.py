"""How long one request waits for a database another process holds: a host whose
request must answer within its own timeout (Pi's bridge) asks for less than the
service's wait, for that request only."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from waymarks.store.projection import Projection

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks


@contextmanager
def waiting_at_most(app: Waymarks, busy_timeout_ms: object) -> Iterator[None]:
    """For one request: ``app`` waits at most ``busy_timeout_ms`` for a database another
    process holds. Only less than its wait; anything else changes nothing. Restored
    after."""
    before = app.busy_timeout_ms
    if not (isinstance(busy_timeout_ms, int) and not isinstance(busy_timeout_ms, bool)
            and 0 < busy_timeout_ms < before):
        yield
        return
    _wait_for_others(app, busy_timeout_ms)
    try:
        yield
    finally:
        _wait_for_others(app, before)


def _wait_for_others(app: Waymarks, busy_timeout_ms: int) -> None:
    app.busy_timeout_ms = busy_timeout_ms
    projection = app._projection  # (opened later: opened with this wait)
    if isinstance(projection, Projection):
        with contextlib.suppress(sqlite3.Error):
            projection.wait_for_others(busy_timeout_ms)
