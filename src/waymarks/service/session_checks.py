"""Is the active session what the projection believes, and will a write count?

Two promises rest on these checks:

- a process that opens a session file afresh notices that the file is no longer the
  session the projection indexed from that path (another session's file was copied over
  it), or no longer holds what was indexed (an older copy restored), instead of reading
  it as if nothing happened (:func:`replaced_problem`);
- a write is reported ``committed`` only when the projection shows it applying. Project
  mutations that could not count (the session belongs to another project, its file lies
  outside the project's session directories, its project contributions are withheld)
  are refused before anything is appended (:func:`project_write_refused`); whatever
  still does not apply after the append — the ledger refused the payload, or the rules
  ignored it — is reported as ``not_applied`` with the reason (:func:`not_applied`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Final

from waymarks.core.model import Mutation, status_target
from waymarks.core.text import shell_command
from waymarks.ledger.log import SessionLog
from waymarks.service.outcomes import Rejected, ServiceError
from waymarks.store.projection import FOREIGN_LOCATION

if TYPE_CHECKING:
    from waymarks.store.protocol import Store


#: what fixes a replaced active file, after what was (not) done about it
_RESTORE = ("Restore the file, or run `waymarks rebuild-index` to index the files as they "
            "are now")


#: a source's checkpoint as :meth:`~waymarks.store.protocol.Store.checkpoint_of` reads it
#: (path, offset, lines, entries, fingerprint), ``None`` for a source never indexed
Checkpoint = tuple[str, int, int, int, str] | None


class _Unread:
    """The checkpoint not read yet: the check reads it itself."""


UNREAD: Final = _Unread()


def replaced_problem(projection: Store, session: SessionLog, *, thorough: bool = False,
                     checkpoint: Checkpoint | _Unread = UNREAD) -> str | None:
    """Why the active session's file is not the session the projection indexed from it,
    or no longer holds what was indexed from it (:func:`_not_as_indexed`), or ``None``.
    The projection remembers which session each path held. Unless ``thorough``, a
    session indexed at this very path is taken as the file's: one lookup by key and the
    file's last indexed bytes, cheap enough for every read. ``checkpoint``: the session's,
    read by the caller (a request's refresh reads it once for this and :func:`out_of_date`)."""
    found = _replaced_by(projection, session, thorough, _read(projection, session, checkpoint))
    return None if found is None else f"{found}; using the last projection. {_RESTORE}"


def out_of_date(projection: Store, session: SessionLog,
                checkpoint: Checkpoint | _Unread = UNREAD) -> bool:
    """Whether the projection's checkpoint of the active session is behind its file, or
    names another path (the home moved or copied, the file still there by the old name
    or gone): a read then records where it is read from, as a write does. `health` said
    a moved home's active ledger was missing until the next write, and reported the
    original's file in a copy. Another name of the same file (a link) is not a move.
    ``checkpoint``: as for :func:`replaced_problem` (one read before the session's file is
    read on is as good: a checkpoint another process moved meanwhile only makes the
    projection look behind, and the sync under the lock then finds nothing to do)."""
    found = _read(projection, session, checkpoint)
    if found is None or found[1] != session.offset:
        return True
    if found[0] == str(session.path):
        return False
    try:
        return not os.path.samefile(found[0], session.path)
    except OSError:  # the indexed one is gone
        return True


def _read(projection: Store, session: SessionLog,
          checkpoint: Checkpoint | _Unread) -> Checkpoint:
    if isinstance(checkpoint, _Unread):
        return projection.checkpoint_of(session.session_id)
    return checkpoint


def _replaced_by(projection: Store, session: SessionLog, thorough: bool,
                 found: Checkpoint) -> str | None:
    path = str(session.path)
    if found is not None and found[0] == path:
        changed = _not_as_indexed(projection, session, found[1], found[4])
        if changed is not None or not thorough:
            return changed
    earlier = projection.sessions_indexed_at(path, session.session_id)
    if not earlier:
        return None
    return (f"{path}: indexed as session {earlier[0]}, it now holds session "
            f"{session.session_id} (replaced by another session's file)")


def _not_as_indexed(projection: Store, session: SessionLog, offset: int,
                    fingerprint: str) -> str | None:
    """Why the active session's file no longer holds what the projection read from it up
    to ``offset`` (shorter, or other bytes just before there, and an entry projected from
    it changed or gone), or ``None``. An older copy restored over it (or the file cut
    short) was read again from its start as if nothing had happened: every write
    acknowledged since vanished, and `health` said OK. A sibling session so changed is held
    back as ``truncated`` or ``corrupt`` (:func:`.sources._check_known`); the active one
    keeps its last projection, and writes are refused, until the file is restored or
    `rebuild-index` reads it as it is. Other bytes that still hold every projected entry
    are no loss (Pi 0.73 writes a session's lines again when it opens one; a host's buffer
    encodes a number otherwise than Pi's file): such a file is read again quietly, as it
    was before, and the whole reading happens only when the bytes differ. A host's ledger
    (Pi's bridge) holds what the host sent; the file the host writes is checked instead
    (:meth:`~waymarks.ledger.host.HostSessionLog.file_problem`): Pi goes on appending to a
    file replaced or cut short, and what was recorded there is lost when it ends."""
    from waymarks.ledger.session_file import SessionFile, SessionFileError

    if not isinstance(session, SessionFile):  # a host's ledger holds what the host sent:
        return session.file_problem(offset)  # the file it writes is what is kept
    try:
        size = os.path.getsize(session.path)
        if size < offset:
            what = f"{size} bytes, shorter than the {offset} bytes projected from it"
        elif fingerprint and session.fingerprint(offset) != fingerprint:
            what = f"other bytes than were projected from it before byte {offset}"
        else:  # (a reader whose own bytes changed reads again itself: SessionLog.refresh)
            return None
    except OSError:  # gone or unreadable: reading it says so
        return None
    lost = _unmatched(projection, session)
    if lost is None:  # every projected entry is still there, as it was projected: read
        # again from its start, by a long-lived reader too (its offset, in a file written
        # again otherwise, may fall inside a line: a later entry was skipped and lost)
        try:
            session.drop_index()
        except SessionFileError as exc:
            return f"{session.path}: {exc}"
        return None
    return (f"{session.path}: {what} (an older copy restored over it, or the file cut short "
            f"or rewritten): {lost}")


def rewritten_problem(projection: Store, session: SessionLog) -> str | None:
    """What ``health``'s whole check finds in the active session's file read again from
    its start: an entry changed, or gone, before the checkpoint (an edit in place, a line
    overwritten by a crash or bit rot: the checkpoint's fingerprint covers only the bytes
    before where reading stopped), or ``None``. Such a change is served from the
    projection as it was until `rebuild-index` reads the file again."""
    found = _unmatched(projection, session)
    if found is None:
        return None
    return (f"{session.path}: {found}; the projection still serves them as they were: run "
            "`waymarks rebuild-index` to read the file as it is now")


def _unmatched(projection: Store, session: SessionLog) -> str | None:
    """The entries projected from ``session`` that its file, read again from its start,
    no longer holds as they were projected ("read again from its start, 2 entries changed
    and 1 no longer readable since projected (first: ID)"), or why it cannot be read;
    ``None`` when all are there."""
    from waymarks.core.codec import encode_payload, payload_digest
    from waymarks.core.model import MutationRecord
    from waymarks.ledger.session_file import SessionFile, SessionFileError, reread_records

    stored = projection.stored_payloads(session.session_id)
    changed: list[str] = []
    seen: set[str] = set()

    def compare(record: MutationRecord) -> None:
        seen.add(record.entry_id)
        if record.entry_id in stored and stored[record.entry_id] != payload_digest(
                encode_payload(record.mutation)):
            changed.append(record.entry_id)

    try:
        if isinstance(session, SessionFile):  # a file: read again in bounded memory
            reread_records(session.path, compare)
        else:  # a host's ledger (it holds what the host sent)
            for record in session.reopen().records:
                compare(record)
    except (OSError, SessionFileError) as exc:
        return f"cannot be read again from its start ({exc})"
    gone = sorted(stored.keys() - seen)
    if not changed and not gone:
        return None
    said = [f"{len(changed)} entr{'y' if len(changed) == 1 else 'ies'} changed"
            if changed else "", f"{len(gone)} no longer readable" if gone else ""]
    return (f"read again from its start, {' and '.join(filter(None, said))} since projected "
            f"(first: {(changed or gone)[0]})")


def refuse_replaced(projection: Store, session: SessionLog) -> None:
    """Refuse a write (:class:`ServiceError` ``session_replaced``) to a session file that
    another session's file replaced: its header changed, or another session was indexed
    at its path (accepted, the file was indexed again under the new ID, every entry
    twice); or that no longer holds what was indexed from it (an older copy restored).
    Reads keep the last projection and say why; a write appends nothing."""
    problem = f"{session.path}: the session header changed since it was read" \
        if session.read_header_line() != session.header_bytes else \
        _replaced_by(projection, session, False, projection.checkpoint_of(session.session_id))
    if problem is not None:
        raise ServiceError("session_replaced", f"{problem}; nothing was written. {_RESTORE}")


def open_in_pi(home: Path, session: SessionLog) -> str | None:
    """Why nothing may be appended to ``session``'s file from here, or ``None``: a running
    Pi holds it open (its bridge holds the session's lock, :mod:`waymarks.ledger.
    bridge_lock`). Appended beside Pi, an entry was reported committed and "applies on the
    active branch", yet Pi's plans never included it while that session ran. A host's own
    ledger (the bridge's) is never refused here."""
    from waymarks.ledger.bridge_lock import held_by_bridge
    from waymarks.ledger.session_file import SessionFile

    if not isinstance(session, SessionFile):
        return None
    lock = held_by_bridge(home, session.session_id)
    if lock is None:
        return None
    return (f"the session {session.path} is open in a running Pi (its Waymarks bridge "
            f"holds {lock}): Pi writes that file, and what is appended beside it is not in "
            "Pi's plans while it runs. Nothing was written; use /context in that Pi, or "
            "run this again once it has ended")


def touches_project(projection: Store, mutation: Mutation) -> bool:
    """Whether ``mutation`` adds, supersedes or changes the status of a project item."""
    if mutation.item is not None:
        return mutation.item.scope == "project"
    target = projection.view.get(status_target(mutation) or "")
    return target is not None and target.item.scope == "project"


def project_write_refused(projection: Store, session: SessionLog, mutation: Mutation,
                          project: str) -> Rejected | None:
    """Refuse, before anything is appended, a project mutation that could not count in
    ``project`` from ``session`` (call with the session synced, under its lock)."""
    if not touches_project(projection, mutation):
        return None
    sid, header = session.session_id, session.header
    if session.project != project:
        return Rejected("foreign_session", (
            f"Session {sid} belongs to {header.cwd if header else '?'}, not {project}: it "
            f"cannot hold project items of {project}. Nothing was written; start a session "
            "here with `waymarks session new`"))
    standing = projection.source_standing(sid)
    if standing is None:
        return None
    status, detail, excluded = standing
    if status == FOREIGN_LOCATION:
        return Rejected("foreign_session", (
            f"Session file {session.path} is {detail}, so its project items would not "
            "count. Nothing was written; record project items in a session of the project "
            "(`waymarks session new` there), or add the root holding that directory to "
            "[memory] sessionRoots in the home's config.toml"))
    if status != "available":
        return Rejected("source_withheld", (
            f"Session {sid} is {status}" + (f" ({detail})" if detail else "") + ", so its "
            "project items do not count. Nothing was written; see `waymarks memory sources`"))
    if excluded:
        return Rejected("source_withheld", (
            f"Session {sid} is excluded from project memory, so its project items do not "
            f"count. Nothing was written; "
            f"`{shell_command(['waymarks', 'memory', 'include', sid])}` first"))
    return None


def not_applied(projection: Store, session: SessionLog, entry_id: str,
                mutation: Mutation | None = None) -> Rejected | None:
    """``None`` if the entry just appended applies (and the item ``mutation`` writes is
    active: replay stores a supersede of an item it cannot find as an ``invalid`` item,
    an effect that "applied"); else why not. The line stays in the append-only file
    (nothing rewrites it), so the message says that nothing of it applies and that
    ``health`` lists it."""
    effect = projection.entry_effect(session.session_id, entry_id)
    written = None if mutation is None or mutation.item is None else \
        projection.view.get(mutation.item.id)
    if effect is not None and effect[0] == "applied" and (
            written is None or written.status == "active"):
        return None
    if effect is None:
        why = "the projection did not read it"
    elif effect[0] == "applied" and written is not None:
        why = f"it was stored {written.status}: {written.reason or 'no reason given'}"
    else:
        why = f"{'the ledger refused it' if effect[0] == 'refused' else 'it was ignored'}: " \
              f"{effect[1]}"
    return Rejected("not_applied", (
        f"Entry {entry_id} was appended to {session.path}, but {why}. Nothing of it applies "
        "(the line stays in the append-only file; `waymarks health` lists it)"))


def pointer_problems(home: Path) -> list[str]:
    """The Claude Code session pointers (:data:`~waymarks.ledger.discovery.POINTER_DIR`)
    that are not regular files: the hooks cannot note a session there and go on without
    it, so ``waymarks mcp --claude-code`` may act on another session. Only here would
    anyone hear of it (the hook only logs it)."""
    from waymarks.ledger.discovery import POINTER_DIR
    from waymarks.ledger.session_file import not_a_file

    directory = home / POINTER_DIR
    if not directory.is_dir():
        return []
    problems = []
    for path in sorted(directory.glob("*.session")):
        what = not_a_file(path)
        if what is not None:
            problems.append(f"{path}: {what}, not a Claude Code session pointer: the hooks "
                            "cannot note the session there, so `waymarks mcp --claude-code` "
                            "may act on another session; move it aside (the next prompt "
                            "writes the pointer again)")
    return problems
