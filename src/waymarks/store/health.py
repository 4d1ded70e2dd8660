"""What ``health`` reports: is the projection complete, and what in the ledgers was not used.

``ok`` is false exactly when ``problems`` is not empty: the database fails its check, an
indexed session file is gone or no longer the session indexed from it (no header, another
session's header, other bytes before the checkpoint), or a ledger holds a pin or memory
payload it refused (a mutation someone wrote that applies nowhere). Lines skipped as
unreadable (a writer killed mid-line leaves one) and entries of unknown (newer) versions
are counted and listed, but are not problems: nothing acknowledged was lost by them. A
source whose project items are held back (excluded, ``foreign-location``) shows its status.
``integrity`` is ``"ok"`` or the first problem the whole-database check found (structure,
index entries, every row's checksum, the item counts, the full-text indexes): health is
the one place that pays for it at any size (see :mod:`waymarks.store.integrity`); it
first opens the file anew, as a fresh process would, since a long-lived connection checks
its cached pages, which an overwrite in place does not touch.
``damagedVectors`` counts the stored vectors (hybrid recall's) that fail their checksum, a
problem but not the database's: each is dropped and embedded again on its own by the next
recall that reads it or ``waymarks index --semantic`` (:mod:`waymarks.store.recall_vectors`);
health only counts them (~60 ms of CPU at 10k rows) and writes nothing.
``unsignedClaims`` names the claims whose signature failed when a write or
``rebuild-index`` caught the claims' subject terms up (left out of the contradiction check
alone: a bug of the signature's code on their text, not damage; not a problem either).
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

from waymarks.ledger.discovery import aside_fix, read_header
from waymarks.ledger.session_file import SessionFile
from waymarks.store.integrity import (
    SOURCE_FIELDS,
    ProjectionDamaged,
    fts_problems,
    verify_all,
    verify_source,
)
from waymarks.store.migrations import current_version
from waymarks.store.recall_vectors import VectorStore

MAX_DETAILS = 20


#: the fix for an indexed file that is gone, or no longer the session indexed from it
REREAD = "run `waymarks rebuild-index` to read the session files as they are now"


def _fixed(problem: str) -> str:
    """:func:`_file_problem`'s ``problem`` with what to do about it (a file without a
    header names its own fix: moved aside, not put back)."""
    if problem.startswith("it has no session header now"):
        return problem
    if problem == SHUT:
        return f"{problem}: make the folders on its path readable to this user (their " \
            "owner may have to)"
    if problem.startswith(("it cannot be read", "unreadable")):
        return f"{problem}: make it readable to this user (its owner may have to)"
    return f"{problem}: put back the file indexed there, or {REREAD}"


def _file_problem(path: Path, session_id: str, offset: int, fingerprint: str) -> str | None:
    """Why the file at ``path`` no longer is the source indexed from it, or ``None``: its
    header is gone, names another session, or the bytes before the checkpoint changed."""
    try:  # (read_header takes an unreadable file for one without a header)
        SessionFile(path).read_header_line()
    except OSError as exc:
        return f"it cannot be read ({exc.strerror or type(exc).__name__})"
    header = read_header(path)
    if header is None:
        return f"it has no session header now: {aside_fix(path)}"
    if header.id != session_id:
        return f"it now holds session {header.id} (replaced by another session's file)"
    try:
        if fingerprint and SessionFile(path).fingerprint(offset) != fingerprint:
            return "its bytes before the checkpoint changed (rewritten or replaced)"
    except OSError as exc:
        return f"unreadable: {type(exc).__name__}"
    return None


#: an indexed file behind a folder this user may not enter (``sessions/`` at mode 000):
#: it was "missing", and the fix offered, a rebuild, drops what such a file holds
SHUT: Final = "it cannot be reached (permission denied on a folder on its path)"


def _size(path: str) -> tuple[int | None, bool]:
    """The size of the regular file at ``path`` (``None``: none there), and whether a
    folder on its path shuts it off from this user."""
    try:
        found = os.stat(path)
    except PermissionError:
        return None, True
    except (OSError, ValueError):
        return None, False
    return (found.st_size if stat.S_ISREG(found.st_mode) else None), False


def _overwritten(db: sqlite3.Connection) -> list[str]:
    """The file under ``db`` no longer being a SQLite database, as a problem. A long-lived
    connection (the inspector's) reads its cached pages, which nothing in WAL mode tells
    it are stale when the file is overwritten in place: every check below passed on them
    while the file on disk held other bytes (a fresh process finds it damaged at once).
    A new connection reads the file as a fresh process would. (Never a plain open() of
    the file: closing it would drop the POSIX locks SQLite holds on it in this process,
    and another process could then checkpoint and delete the WAL under this one.)"""
    path = next((row[2] for row in db.execute("PRAGMA database_list") if row[1] == "main"),
                "")
    if not path:  # (in memory: no file to compare)
        return []
    try:  # (read-only: a file gone is not made again)
        probe = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True)
    except sqlite3.Error:
        return []  # (gone or unreadable: the next open says so, as for any command)
    try:
        probe.execute("PRAGMA schema_version").fetchone()
    except sqlite3.DatabaseError as exc:
        if exc.sqlite_errorcode & 0xFF != sqlite3.SQLITE_NOTADB:
            return []  # (busy, say: the checks below run as before)
        return ["the database file is no SQLite database any more (overwritten while open)"]
    finally:
        probe.close()
    return []


def health_report(db: sqlite3.Connection, *, writable: bool = True) -> dict[str, Any]:
    """The report :meth:`~waymarks.store.reads.ProjectionReads.health` gives.
    ``writable=False`` (the database read as it is on a full disk): FTS5's own check, an
    INSERT to SQLite, is passed over; every other check runs."""
    from waymarks.store import claim_subjects  # (its import digests the signature's code)

    sources = []
    for row in db.execute(f"SELECT {SOURCE_FIELDS}, checksum, status, status_detail"
                          " FROM sources ORDER BY path"):
        session_id, path, _cwd, offset, lines, entries, fingerprint, _project = row[:8]
        status, detail = row[9:]
        try:
            verify_source(row[:9])
        except ProjectionDamaged:  # the integrity check below names it; the file is not
            continue  # to blame for a checkpoint the database no longer holds as written
        size, shut = _size(path)
        sources.append({
            "sessionId": session_id, "path": path, "exists": size is not None or shut,
            "checkpointOffset": offset, "fileSize": size, "lines": lines, "entries": entries,
            "unreadBytes": None if size is None else max(size - offset, 0),
            "status": status, "statusDetail": detail,
            "fileProblem": SHUT if shut else None if size is None else _file_problem(
                Path(path), session_id, offset, fingerprint),
        })
    anomaly_counts = dict.fromkeys(("skipped", "unknown", "malformed"), 0)
    for kind, count in db.execute("SELECT kind, count(*) FROM anomalies GROUP BY kind"):
        anomaly_counts[kind] = count
    anomalies = [
        {"sessionId": sid, "line": line, "entryId": entry_id, "kind": kind, "detail": detail}
        for sid, line, entry_id, kind, detail in db.execute(
            "SELECT session_id, line, entry_id, kind, detail FROM anomalies"
            " ORDER BY kind != 'malformed', session_id, line LIMIT ?", (MAX_DETAILS,))
    ]
    ignored = [
        {"sessionId": sid, "entryId": entry_id, "note": note}
        for sid, entry_id, note in db.execute(
            "SELECT session_id, entry_id, note FROM mutations WHERE effect = 'ignored'"
            " ORDER BY seq LIMIT ?", (MAX_DETAILS,))
    ]
    ignored_total = db.execute(
        "SELECT count(*) FROM mutations WHERE effect = 'ignored'").fetchone()[0]
    mutations = db.execute("SELECT count(*) FROM mutations").fetchone()[0]
    integrity_problems = _overwritten(db) or verify_all(db) or (fts_problems(
        db, ("recall_terms",)) if writable else [])
    integrity = integrity_problems[0] if integrity_problems else "ok"
    problems = []
    if integrity != "ok":
        problems.append(f"database integrity check: {integrity}")
    missing = [s["path"] for s in sources if not s["exists"]]
    if missing:  # (it named neither the files nor what to do)
        listed = ", ".join(missing[:MAX_DETAILS]) + (", …" if len(missing) > MAX_DETAILS else "")
        problems.append(f"{len(missing)} indexed session file(s) missing ({listed}): put back "
                        f"what was moved, or {REREAD} (what a gone file held then no longer "
                        "counts)")
    problems += [f"{s['path']}: indexed as session {s['sessionId']}, {_fixed(s['fileProblem'])}"
                 for s in sources if s["fileProblem"]]
    damaged_vectors = len(VectorStore(db).unsound())
    if damaged_vectors:  # derived rows, each on its own: no reason to rebuild the database
        problems.append(f"{damaged_vectors} stored vector row(s) of hybrid recall fail their "
                        "checksum (their claims are scored lexically): the next recall that "
                        "reads them, or `waymarks index --semantic`, drops them and embeds "
                        "those claims again")
    if anomaly_counts["malformed"]:
        problems.append(f"{anomaly_counts['malformed']} pin or memory entr"
                        f"{'y' if anomaly_counts['malformed'] == 1 else 'ies'} in the session "
                        "files refused: written, but nothing of it applies (see anomalies)")
    return {
        "ok": not problems, "problems": problems, "schemaVersion": current_version(db),
        "integrity": integrity, "damagedVectors": damaged_vectors,
        "mutations": mutations, "ignoredMutations": ignored_total, "ignored": ignored,
        "sources": sources, "anomalyCounts": anomaly_counts, "anomalies": anomalies,
        "unsignedClaims": claim_subjects.left_out(db),
    }

