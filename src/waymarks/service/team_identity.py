"""This home's team contributor ID, ``<home>/team/contributor.json``: made once per home,
on the first ``team init`` or share, and only while the file is absent.

The ID names the home's own file of every team ledger (``<id>.jsonl``): a file that is
there but holds no ID (cut mid-line, a wrong type, a directory, unreadable) is damage to
report, never a reason to make another ID; so is a missing file when this home's team
anchors name an ID it wrote under. Replaced in silence, the home began a new own
file in the repository and read its earlier shares as a teammate's (their supersedes
and unshares no longer its own). The fix names the ID the earlier shares used when this
home's team anchors name exactly one (:func:`earlier_ids`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from waymarks.core.team import CONTRIBUTOR_RE
from waymarks.core.text import shell_command
from waymarks.files.atomic import NotARegularFile
from waymarks.files.reading import read_regular

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

#: a contributor file is one short line; anything longer is not one
_MAX_BYTES = 4096


def contributor_path(app: Waymarks) -> Path:
    return app.home / "team" / "contributor.json"


def id_in(data: bytes) -> str | None:
    """The contributor ID ``data`` (the file's bytes) holds, else ``None``."""
    try:
        found = json.loads(data).get("id")
    except (ValueError, AttributeError, RecursionError):
        return None
    return found if isinstance(found, str) and CONTRIBUTOR_RE.fullmatch(found) else None


def stored_id(path: Path) -> str | None:
    """The contributor ID kept in ``path``, or ``None`` (absent or damaged: see
    :func:`damaged_contributor` for which)."""
    try:
        return id_in(read_regular(path, limit=_MAX_BYTES))
    except OSError:
        return None


def earlier_ids(home: Path) -> list[str]:
    """The contributor IDs this home noted as its own appends (``ownSeq`` lines of every
    project's anchors journal, ``<home>/team/*.anchors.jsonl``), sorted."""
    found: set[str] = set()
    for journal in sorted((home / "team").glob("*.anchors.jsonl")):
        try:
            lines = read_regular(journal).splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                row = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(row, dict) and "ownSeq" in row and isinstance(row.get("c"), str) \
                    and CONTRIBUTOR_RE.fullmatch(row["c"]):
                found.add(row["c"])
    return sorted(found)


def damaged_contributor(app: Waymarks) -> str | None:
    """Why this home's contributor file cannot give its ID, with the fix (``None``: it
    gives one, or there is none yet). A team write refuses with it; ``health`` lists it."""
    path = contributor_path(app)
    try:
        data = read_regular(path, limit=_MAX_BYTES)
    except FileNotFoundError:
        if not os.path.islink(path):
            if not earlier_ids(app.home):
                return None  # absent, and this home never shared: the next share makes it
            # absent, though this home appended under an ID: a new one would start a
            # second own file as surely as a damaged file's would
            return (f"{path} is missing, though this home's team anchors name the ID its "
                    "earlier shares used: a new ID would start another team file and make "
                    f"your earlier shares a teammate's. {_restore(app.home, path, True)}")
        what = "it is a symbolic link whose target is missing"
    except NotARegularFile as exc:
        what = str(exc.strerror)
    except OSError as exc:
        return (f"{path}: cannot read it ({exc.strerror or exc}); it holds this home's team "
                "contributor ID: make it readable to this user (its owner may have to)")
    else:
        if id_in(data) is not None:
            return None
        what = "damaged, no valid contributor ID in it"
    return (f"{path}: {what}. This file keeps this home's team contributor ID, made once "
            "per home and naming your own team file: a new ID would start another file and make "
            f"your earlier shares a teammate's. {_restore(app.home, path)}")


def _restore(home: Path, path: Path, missing: bool = False) -> str:
    ids = earlier_ids(home)
    aside = "" if missing else "move the file aside and "
    if len(ids) == 1:
        line = shell_command([json.dumps({"id": ids[0]})])
        return (f"Your earlier shares used {ids[0]}: {aside}restore the ID "
                f"with `printf '%s\\n' {line} > {shell_command([str(path)])}`")
    if ids:
        return (f"This home's team anchors name several IDs as its own ({', '.join(ids)}): "
                f"{aside}write the one whose file under .waymarks/team/ is "
                'yours back into it as {"id": "..."}')
    return ("Restore it from a backup; if this home never shared (its team anchors name no "
            "ID of its own), move it aside and the next share makes a new ID")
