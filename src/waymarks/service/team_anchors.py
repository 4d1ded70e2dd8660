"""Where a home keeps what it has seen of a project's team ledger: the anchors (the entry
count and head hash it last accepted of each contributor file) and the exclusions, in
``<home>/team/<digest of the checkout's path>.anchors.jsonl`` (local, derived, never
canonical; written by :mod:`waymarks.service.team`).

Each such file also names the checkout it is of, on a line without a contributor (which
every reader skips): ``{"checkout": [device, inode], "path": …}``, the checkout's folder.
A checkout moved on its file system (``mv``) keeps its folder and loses its old path:
keyed by the path alone, its anchors were lost, and with them every exclusion (the
excluded contributor's items planned again, in silence) and every anchor (a file
truncated meanwhile read as new). The first read at the new path takes them over
(:func:`_adopt`); a copy of the checkout is another folder, and its original's path is
still there: it takes nothing. Nor does a folder that got a deleted checkout's inode
number (reused at once after an ``rm -rf``): only a checkout whose team files hold a
history the anchors accepted takes them (:func:`_holds_history`).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from waymarks.core.team import TeamFormatError, parse_line
from waymarks.files.reading import read_regular
from waymarks.ledger import TEAM_DIR
from waymarks.ledger.team import SUFFIX

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks


def anchors_path(app: Waymarks) -> Path:
    digest = hashlib.sha256(app.cwd.encode("utf-8")).hexdigest()[:16]
    return app.home / "team" / f"{digest}.anchors.jsonl"


def checkout_row(cwd: str) -> str | None:
    """The line naming the checkout at ``cwd`` (``None``: its folder cannot be read)."""
    try:
        found = os.stat(cwd)
    except OSError:
        return None
    return json.dumps({"checkout": [found.st_dev, found.st_ino], "path": cwd}) + "\n"


def load_anchors(app: Waymarks, *, adopted: bool = False,
                 ) -> tuple[dict[str, dict[str, Any]], int]:
    """The anchors and exclusions of this project (later lines win), and the number of
    journal lines read; those of the checkout's old path when it was moved here. A line
    naming the checkout as it is now (its folder, its path) is added to a file without
    one: kept naming only the path it was moved from, a checkout moved back there (or a
    new folder made at that path, then the checkout moved again) found that path present
    and took nothing. Unreadable lines are skipped: this is derived state. ``adopted``:
    the file was just taken over, or made by another process meanwhile (read once more)."""
    anchors: dict[str, dict[str, Any]] = {}
    path = anchors_path(app)
    try:  # a FIFO in its place was waited on for ever (read_bytes)
        data = read_regular(path)
    except FileNotFoundError:
        # taken over here, or by another process reading the moved checkout at once: the
        # one whose link came second (or that found the old file gone) read no anchors,
        # its exclusions with them, though the file it reads was there
        if adopted or not (_adopt(app.cwd, path) or path.exists()):
            return anchors, 0
        return load_anchors(app, adopted=True)
    except OSError:
        return anchors, 0
    lines = data.splitlines()
    checkouts = _read_rows(lines, anchors)
    row_text = checkout_row(app.cwd)
    if row_text is not None and json.loads(row_text) not in checkouts:
        try:  # (an earlier version's file, or moved here: named as the anchors are journalled)
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(row_text)
        except OSError:
            pass
    return anchors, len(lines)


def _read_rows(lines: list[bytes], anchors: dict[str, dict[str, Any]]) -> list[Any]:
    """Fold the journal ``lines`` into ``anchors`` (later lines win); the lines naming a
    checkout."""
    named = []
    for line in lines:
        try:
            row = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(row, dict) and isinstance(row.get("c"), str):
            anchor = anchors.setdefault(row.pop("c"), {})
            retracts = row.pop("retracts", None)
            anchor.update(row)
            if isinstance(retracts, list):  # journalled a few at a time: accumulated
                anchor.setdefault("retracts", []).extend(retracts)
        if isinstance(row, dict) and "checkout" in row:
            named.append(row)
    return named


def _holds_history(cwd: str, lines: list[bytes]) -> bool:
    """Whether the checkout at ``cwd`` holds a team file history these anchors accepted
    (an entry at an anchored count whose hash is the anchored head). A moved checkout
    keeps its files; a folder made after an ``rm -rf`` of the checkout may get its inode
    number (reused at once), and its files, another history, were read as truncated."""
    anchors: dict[str, dict[str, Any]] = {}
    _read_rows(lines, anchors)
    for contributor, anchor in anchors.items():
        count, head = anchor.get("count"), anchor.get("head")
        if not (isinstance(count, int) and count > 0 and isinstance(head, str)):
            continue
        try:
            kept = read_regular(Path(cwd) / TEAM_DIR / f"{contributor}{SUFFIX}").splitlines()
            if len(kept) >= count and parse_line(kept[count - 1]).hash == head:
                return True
        except (OSError, TeamFormatError):
            continue
    return False


def _adopt(cwd: str, path: Path) -> bool:
    """Give ``path`` (the anchors of the checkout now at ``cwd``) the anchors file of the
    same folder kept under a path that is gone (it was moved here); whether one was."""
    try:
        here = os.stat(cwd)
        others = sorted(p for p in path.parent.glob("*.anchors.jsonl") if p != path)
    except OSError:
        return False
    for other in others:
        try:
            lines = read_regular(other).splitlines()
            rows = [json.loads(line) for line in lines if line.startswith(b'{"checkout"')]
        except (OSError, ValueError, RecursionError):
            continue
        if not any(isinstance(row, dict) and row.get("checkout") == [here.st_dev, here.st_ino]
                   and isinstance(row.get("path"), str) and not os.path.lexists(row["path"])
                   for row in rows) or not _holds_history(cwd, lines):
            continue
        try:
            os.link(other, path)  # (never over anchors another process just made)
        except OSError:
            return False
        other.unlink(missing_ok=True)
        return True
    return False
