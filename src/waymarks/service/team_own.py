"""Team memory: which entries of its own file this home wrote, and the judgement of a
contributor file against this home's anchor of it (:func:`judge`).

**Written.** Every entry this home appends to its own file is noted twice: in the
project's anchors (``ownSeq`` and ``ownHead``: the last one it wrote, see
:func:`waymarks.service.team.note_own`), and here, home-wide, as the first
:data:`DIGITS` hex digits of its hash, one a line, in ``<home>/team/written.hashes``.
``team accept`` may lower the anchor's note (a branch switch, a revert, a branch where the
file is absent); the entries it wrote past the note, merged back unchanged, are
recognised here as its own, not someone else's (``foreign``). The record is kept for
every checkout of every project of the home (a worktree, a second clone: another anchors
file) and bounded (the newest :data:`KEPT` once it holds twice as many); a hash holds
its whole chain before it, so a line written in place of one's own never matches. An
older home has no record: entries past the note are someone else's, as they were.
Derived state: a record that cannot be written is as one that was never kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from waymarks.files.atomic import write_atomic
from waymarks.files.locks import holding, open_lock
from waymarks.files.reading import read_regular

if TYPE_CHECKING:
    from waymarks.service.team import SourceState

#: hex digits of an entry's hash kept (128 bits: no line is written to match one)
DIGITS: Final = 32
#: hashes kept after a compaction (one is made when the record holds twice as many)
KEPT: Final = 8192
AVAILABLE: Final = "available"
FOREIGN: Final = "foreign"


def written_path(home: Path) -> Path:
    return home / "team" / "written.hashes"


def note_written(home: Path, entry_hash: str) -> None:
    """Record that this home appended the entry whose hash is ``entry_hash`` (under a
    home-wide lock: a compaction must not drop another project's append)."""
    path = written_path(home)
    try:
        with holding(open_lock(path.with_suffix(".lock"))):
            with open(path, "a", encoding="ascii") as handle:
                handle.write(entry_hash[:DIGITS] + "\n")
                size = handle.tell()
            if size > 2 * KEPT * (DIGITS + 1):
                kept = read_regular(path).splitlines()[-KEPT:]
                write_atomic(path, b"".join(line + b"\n" for line in kept), mode=0o600)
    except OSError:
        return


def written(home: Path) -> frozenset[str]:
    """The (shortened) hashes of the entries this home appended, as far as kept."""
    try:
        data = read_regular(written_path(home))
    except OSError:
        return frozenset()
    return frozenset(data.decode("ascii", "replace").split())


def judge(source: SourceState, anchor: dict[str, Any] | None, home: Path | None) -> None:
    """Compare a read with this home's anchor of the contributor (``home``, this home's,
    when the file is its own: every entry past the last it wrote was written by someone
    else, unless it is one this home wrote, which moves the note forward)."""
    if source.status != AVAILABLE:
        return
    anchor = anchor or {}  # (a first read here: one's own file is judged all the same)
    noted = anchor.get("ownSeq") if home is not None else None
    if (isinstance(noted, int) and 0 < noted <= source.count
            and isinstance(anchor.get("ownHead"), str)
            and source.entries[noted - 1].hash != anchor["ownHead"]):
        # the entries it wrote were changed: more than a line added after them
        source.status, source.detail = "rewritten", \
            f"entry {noted} is not the one this home wrote"
        return
    seen = anchor.get("count")
    if isinstance(seen, int) and seen > 0:
        if source.count < seen:
            source.status, source.detail = "truncated", \
                f"{source.count} entries, {seen} seen before"
            return
        if source.entries[seen - 1].hash != anchor.get("head"):
            source.status, source.detail = "rewritten", \
                f"entry {seen} is not the one seen before"
            return
    if home is None:
        return
    mine: frozenset[str] | None = None
    if not isinstance(noted, int):
        # nothing appended from this checkout (another clone, a worktree): its entries
        # are this home's as far as the last one the record holds (its hash holds the
        # chain before it), any after it someone else's. A file holding none the record
        # holds is not judged, as a home without a record judges nothing: the record
        # began with its first share after an upgrade and keeps the newest 8,192, so
        # one's own older file read in a new worktree was all "foreign" (every item
        # withdrawn, shares refused until `team accept`)
        mine = written(home)
        noted = next((n for n in range(source.count, 0, -1)
                      if source.entries[n - 1].hash[:DIGITS] in mine), 0)
        if not noted:
            return
    if not 0 <= noted < source.count:
        return
    mine = written(home) if mine is None else mine
    last = noted
    while last < source.count and source.entries[last].hash[:DIGITS] in mine:
        last += 1  # (only unbroken: an entry after someone else's is not taken on trust)
    if last > noted:  # its own entries, back after `team accept` lowered the note
        anchor.update(ownSeq=last, ownHead=source.entries[last - 1].hash)
    if last < source.count:
        source.status, source.detail = FOREIGN, (
            f"entries {last + 1}-{source.count} were not written by this home")
