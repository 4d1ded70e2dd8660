"""Whether the session Pi opened is this bridge's to serve as the person's.

Two reasons it is not; either way the bridge serves it as Pi's ``--no-session`` (nothing
of it planned, nothing recorded in it) and Pi says why, once:

- **Placed by the repository.** In an untrusted project, a session file inside the
  project's tree, or where the project's own ``.pi/settings.json`` ``sessionDir`` put it
  (:func:`~waymarks.hosts.pi_trust.repository_placed`): a clone could ship one, pins
  included, for ``pi -c`` to continue, and its pins were injected as user-confirmed.
- **Open in another Pi process.** Each bridge knows only its own Pi's entries, and the
  projection they share took one's entries for the other's: a pin reported recorded
  vanished, a claim reported committed became invalid (two ``pi -c`` in one project, in a
  review). The first bridge holds an exclusive lock on ``<home>/bridges/<session id>.lock``
  for as long as it serves the session (the kernel lets go when its process ends); a
  later one finds it held. A lock that cannot be opened (a directory at its name, a file
  of another user) is held back too: served as the person's, no bridge would see another
  (two served one session before, writes lost).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from waymarks.core.text import is_unicode
from waymarks.hosts.pi_trust import bridge_trust, repository_placed
from waymarks.ledger.bridge_lock import bridge_lock_path
from waymarks.ledger.discovery import canonical_project_path
from waymarks.ledger.flock_wait import flock_within
from waymarks.service.outcomes import ServiceError
from waymarks.service.trust import TrustStore

#: how long a bridge waits for the session's lock: a write from outside Pi looks at it
#: with a lock of its own for an instant (``ledger.bridge_lock.held_by_bridge``)
CLAIM_WAIT_S = 0.25


class Claim:
    """The bridge's hold on one session: ``why`` it is not served as the person's
    (``None``: it is, and ``fd`` holds its lock while it is)."""

    def __init__(self, why: str | None = None, fd: int | None = None) -> None:
        self.why, self.fd = why, fd

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def claim(home: Path, session_file: object, session_id: object, cwd: str,
          reported_trust: object) -> Claim:
    """This bridge's :class:`Claim` on the session Pi opened (none to claim: no file)."""
    if not isinstance(session_file, str) or not is_unicode(cwd):
        return Claim()
    placed = _placed_by_repository(home, Path(session_file), cwd, reported_trust)
    if placed is not None:
        return Claim(f"this session's pins and memory are not used and nothing is "
                     f"recorded in it: {placed}, and the project is not trusted, so its "
                     "repository could have written it. Trust the project (`waymarks "
                     "trust`, or Pi's own trust) if the session is yours, or start a new "
                     "one outside the project")
    lock = bridge_lock_path(home, session_id)
    if lock is None:
        return Claim()  # the header is checked where the ledger is made
    from waymarks.files.locks import open_lock

    try:
        fd = open_lock(lock)
    except OSError as exc:  # served as the person's, a second Pi would be too (unseen)
        # the file in the way: the lock's, or its folder's (a file at `bridges`)
        where = exc.filename or lock
        return Claim(f"the lock that keeps this session to one Pi process cannot be opened "
                     f"({where}: {exc.strerror or exc}), so another Pi could have it open "
                     "unseen: here its pins and memory are not used and nothing is "
                     "recorded in it. Move that file aside, or make it and its folder "
                     "this user's (`chown`, `chmod u+rw`), then start Pi again")
    if not flock_within(fd, CLAIM_WAIT_S):
        os.close(fd)
        return Claim("another Pi process has this session open, and two cannot share it "
                     "(each knows only its own entries: a write of one was lost to the "
                     "other's): here its pins and memory are not used and nothing is "
                     "recorded in it. Use it in one Pi at a time, or start a new session "
                     "here (/new)")
    return Claim(None, fd)


def _placed_by_repository(home: Path, session_file: Path, cwd: str,
                          reported: object) -> str | None:
    project = canonical_project_path(cwd)
    if _in_session_folders(home, session_file, project):
        return None  # Pi's own, the home's or a configured root: Pi run in ~ is not a clone
    why = repository_placed(session_file, project)
    if why is None:
        return None
    trusted = bridge_trust(reported, project)
    if trusted is None:
        try:
            trusted = project in TrustStore(home).projects()
        except ServiceError:
            trusted = False
    return None if trusted else why


def _in_session_folders(home: Path, session_file: Path, project: str) -> bool:
    """Whether the file lies in Pi's own session folder, the home, or a ``sessionRoots``
    the home's configuration names (never a repository's to set)."""
    from waymarks.service.config import load_settings
    from waymarks.service.sources import pi_sessions_root

    roots = [pi_sessions_root(), home]
    # a bad configuration is said by every command; the two folders still count
    with contextlib.suppress(ServiceError):
        roots += list(load_settings(home, project, False).session_roots)
    where = Path(os.path.realpath(session_file))
    for root in roots:
        folder = Path(os.path.realpath(root))
        if folder in where.parents:
            return True
    return False
