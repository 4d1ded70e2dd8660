"""A request's refresh of the active session (:meth:`Waymarks._refresh_now`): its file
read on past what this process read, the projection brought up to it when behind, and the
project's other sessions indexed.

What must stay true: a reader never queues behind writers when there is nothing new (the
file is read without the lock first; only if the projection is behind are the session lock
and a write transaction taken); a file replaced under the process (another header, other
bytes before the checkpoint) keeps the last projection in force, and
:attr:`Waymarks.refresh_problem` says why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from waymarks.service.session_checks import out_of_date, replaced_problem
from waymarks.service.sources import refresh_sources

if TYPE_CHECKING:
    from waymarks.ledger.log import SessionLog
    from waymarks.service.app import Waymarks


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
    with session.reads_held():  # (its header, the bytes indexed and what follows)
        behind = read_on(app, session)
    if behind:  # behind, or found elsewhere (a home moved)
        with app._synced(session):
            pass
    if behind is not None:
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
