"""Whether a Claude Code ``Stop`` has a work turn to close, answered with ``os`` alone.

Why: both lean ``Stop`` paths (the hook's own process when no helper runs, and the helper
after it answered) close the turn's tool observations (issue 19). Closing imports the
Claude Code host module, the learning switch (``tomllib``, ``msgspec``) and reads the whole
session ledger: about 50 ms on every ``Stop`` without the helper, though most turns record
no tool observation at all (a question answered from memory) or were closed already.

So a close leaves a *mark*: the session ledger's identity (device, inode) and its size
when the close started, in ``<home>/claude-code/turns/<session>``. The next ``Stop``
reads only the ledger bytes appended since the mark and looks for an observation record
(``"waymarks-tool-observation-v1"``, the exact quoted JSON string, which a quoted mention
inside some text cannot produce: its quotes would be escaped). No mark, another file, or a
shorter one (rewritten): the whole ledger is searched, in chunks.

What must stay true:
- a ``False`` answer means closing would change nothing: no observation was recorded since
  a close that returned normally (a turn's entries are the last prompt and the
  observations after it; with none appended since that close, it sees the same ones, and
  the capture is idempotent), or none at all;
- the mark is written only after a close returned, with the size read *before* it, so
  anything appended meanwhile is searched again (a lost or stale mark costs one more
  close, never a missed one); a ``Stop`` with nothing to close writes nothing (the
  search from the last close covers only prompts since, a few kilobytes);
- this module imports only ``os``, the hook's lean client runs it; nothing of a record is
  read beyond the search, and nothing of it is logged.
"""

from __future__ import annotations

import os

OBSERVATION_MARK = b'"waymarks-tool-observation-v1"'
MARKS = ("claude-code", "turns")
CHUNK = 1 << 20


def session_ledger(home: str, session_id: str) -> str | None:
    """The Waymarks ledger Claude Code's session ``session_id`` records into (the
    ``sessions/<project>/<time>_<session>.jsonl`` name the hooks give it), or ``None``."""
    suffix = f"_{session_id}.jsonl"
    root = os.path.join(home, "sessions")
    try:
        projects = [entry.path for entry in os.scandir(root) if entry.is_dir()]
    except OSError:
        return None
    found = []
    for project in projects:
        try:
            found += [entry.path for entry in os.scandir(project) if entry.name.endswith(suffix)]
        except OSError:
            continue
    return min(found) if found else None  # the first, as the close itself picks it


def _mark_path(home: str, session_id: str) -> str:
    safe = "".join(c if c.isalnum() or c == "-" else "_" for c in session_id)[:80]
    return os.path.join(home, *MARKS, safe)


def _read_mark(home: str, session_id: str) -> tuple[int, int, int] | None:
    try:
        with open(_mark_path(home, session_id), "rb") as handle:
            parts = handle.read(128).split()
        dev, ino, size = (int(p) for p in parts)
    except (OSError, ValueError):
        return None
    return dev, ino, size


def _contains(path: str, start: int) -> bool:
    """Whether the file holds an observation record past byte ``start``."""
    keep = len(OBSERVATION_MARK) - 1
    tail = b""
    with open(path, "rb") as handle:
        handle.seek(start)
        while chunk := handle.read(CHUNK):
            if OBSERVATION_MARK in tail + chunk:
                return True
            tail = chunk[-keep:]
    return False


def pending_turn(home: str, session_id: str) -> tuple[bool, tuple[int, int, int] | None]:
    """(whether an observation was recorded since the last close, the ledger's identity
    and size now: what :func:`mark_closed` records after a close). An unreadable ledger
    or mark answers ``True``: the close itself decides."""
    ledger = session_ledger(home, session_id)
    if ledger is None:
        return False, None  # no ledger: nothing was recorded (the close creates none)
    try:
        stat = os.stat(ledger)
        now = (stat.st_dev, stat.st_ino, stat.st_size)
        mark = _read_mark(home, session_id)
        start = mark[2] if mark is not None and mark[:2] == now[:2] and mark[2] <= now[2] else 0
        if start == now[2]:
            return False, None  # nothing appended since the mark: it stands
        return _contains(ledger, start), now
    except OSError:
        return True, None


def mark_closed(home: str, session_id: str, seen: tuple[int, int, int] | None) -> None:
    """Record that the turn was closed with the ledger as ``seen`` (read before the close).
    Written off the hook's path (the helper, or the detached process that closed the
    turn), atomically and durably like every rewrite; best effort: without the mark the
    next ``Stop`` searches again."""
    if seen is None:
        return
    path = _mark_path(home, session_id)
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        from waymarks.files.atomic import write_atomic

        write_atomic(path, b"%d %d %d\n" % seen, mode=0o600)
    except OSError:
        return
