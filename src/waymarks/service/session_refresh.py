"""A request's refresh of the active session (:meth:`Waymarks._refresh_now`): its file
read on past what this process read, the projection brought up to it when behind, and the
project's other sessions indexed.

What must stay true: a reader never queues behind writers when there is nothing new (the
file is read without the lock first; only if the projection is behind are the session lock
and a write transaction taken); a file replaced under the process (another header, other
bytes before the checkpoint) keeps the last projection in force, and
:attr:`Waymarks.refresh_problem` says why.

A long-lived process (the hook's helper, an MCP server) refreshes before every request,
and its session file mostly holds nothing new: it read the header, the 4 KB before the
checkpoint (hashed) and what follows, and asked the projection for the checkpoint, ~0.1 ms
of every plan at 1k memories. When the file's ``stat`` (device, inode, size, modification
and change times) and the projection's change token (:class:`~waymarks.store.epoch.Epoch`:
another connection's commit, this one's own writes) are those of the last refresh that
found nothing new, nothing is read: an append (by any process) changes the size, a file
written again or replaced changes its times or inode, and a commit changes the token. A
file changed less than :data:`SETTLED_NS` before it was looked at is not trusted so (a
change within the same tick of the file system's clock may leave its times as they were:
git's "racily clean" index entry), and is read as before.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Final

from waymarks.ledger.session_file import SessionFile
from waymarks.service.session_checks import out_of_date, replaced_problem
from waymarks.service.sources import refresh_sources

if TYPE_CHECKING:
    from waymarks.ledger.log import SessionLog
    from waymarks.service.app import Waymarks

#: how long before it is looked at a file must have last changed for its stamp to count
SETTLED_NS: Final = 1_000_000_000


def refresh_now(app: Waymarks) -> SessionLog | None:
    """Reads complete lines without the lock first; only if the projection is behind
    does it take the session lock and a write transaction, so readers do not queue
    behind writers when there is nothing new."""
    app.refresh_problem = None
    session = app.current_session()
    if app.read_only:  # (read as it is: nothing can be brought up to date)
        return session
    if session is None:  # the project's sessions are read all the same
        refresh_sources(app, None)
        return None
    stamp = _stamp(app, session)  # (taken before the read: a change after it is the next's)
    if stamp is None or stamp != app.refreshed_unchanged:
        app.refreshed_unchanged = None
        with session.reads_held():  # (its header, the bytes indexed and what follows)
            behind = read_on(app, session)
        if behind:  # behind, or found elsewhere (a home moved)
            with app._synced(session):
                pass
        if behind is None:
            return session
        if behind is False and stamp is not None and _settled(stamp):
            app.refreshed_unchanged = stamp
    refresh_sources(app, session)
    return session


def read_on(app: Waymarks, session: SessionLog) -> bool | None:
    """Whether the projection is behind ``session`` once its file is read on; ``None``:
    the file is not what was indexed (:attr:`Waymarks.refresh_problem` says why)."""
    if session.read_header_line() != session.header_bytes:
        # the file was replaced under us: keep the last transactional projection in
        # force rather than read it again as something else; `health` says why
        app.refresh_problem = (f"{session.path}: the session header changed since it "
                               "was read; using the last projection")
        return None
    found = app.projection.checkpoint_of(session.session_id)  # (read once: both ask)
    if (replaced := replaced_problem(app.projection, session,
                                     checkpoint=found)) is not None:
        # the same, noticed by a process that read it only now
        app.refresh_problem = replaced
        return None
    session.refresh()
    return out_of_date(app.projection, session, found)


Stamp = tuple[object, object, int, int, int, int, int, object]


def _stamp(app: Waymarks, session: SessionLog) -> Stamp | None:
    """What a refresh that found nothing new is known by: the reader, the projection's
    connection (its :class:`~waymarks.store.epoch.Epoch`: one reopened, a database another
    process rebuilt, counts its changes afresh) and change token, and the file's ``stat``;
    ``None``: nothing to know it by (a host's ledger, a file that cannot be looked at,
    inside a transaction), read as before."""
    if not isinstance(session, SessionFile):  # (a host's: what the host sent, in memory)
        return None
    epoch = app.projection.epoch
    token = epoch.token()
    if token is None:
        return None
    try:
        found = os.stat(session.path)
    except OSError:  # (reading it says why)
        return None
    return (session, epoch, found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns,
            found.st_ctime_ns, token)


def _settled(stamp: Stamp) -> bool:
    """Whether the file last changed :data:`SETTLED_NS` or more before now."""
    return time.time_ns() - max(stamp[5], stamp[6]) >= SETTLED_NS
