"""What Pi's own trust store says of a project, for the bridge's answer to "is this
project trusted?".

Pi 1.x reports ``ctx.isProjectTrusted()`` true for any directory without Pi resources of
its own (no ``.pi/settings.json``, extensions, skills, …) unless the person decided
otherwise: a fresh clone counts as trusted because Pi has nothing in it to approve. That
answer says nothing about the repository's Waymarks content (its team ledger, its
engineering docs), so it may only tighten: Pi's *untrusted* always holds, and Pi's
*trusted* counts only as the person's decision written in Pi's trust store
(``$PI_CODING_AGENT_DIR/trust.json``, else ``~/.pi/agent/trust.json``: a JSON object of
path -> true/false, the nearest entry at or above the project deciding), or as the
person's setting to trust every project (``defaultProjectTrust: "always"`` in Pi's own
``settings.json``). Without either, ``waymarks trust`` decides, as for every other host.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from waymarks.files.reading import read_regular
from waymarks.hosts.pi_install import agent_dir

#: a trust store past this size is not Pi's (it holds a line per decided project)
MAX_TRUST_BYTES = 4 << 20


def trust_decision(cwd: str | Path, directory: Path | None = None) -> bool | None:
    """The decision Pi's trust store holds for ``cwd`` (its nearest entry at or above
    it), or ``None``: no entry, or no store Waymarks can read as one (missing, not a
    regular file, too large, not a JSON object)."""
    data = _json_object((directory or agent_dir()) / "trust.json")
    if data is None:
        return None
    decided: dict[str, bool] = {}
    for key, value in data.items():
        if isinstance(value, bool) and isinstance(key, str) and key.startswith("/"):
            # keys as written, as Pi compares them (never through a link: a repository
            # that turned a trusted folder into a link to / would trust everything);
            # two spellings of one folder that disagree: no
            name = os.path.normpath(key)
            decided[name] = decided.get(name, True) and value
    here = Path(os.path.realpath(cwd))  # the project, canonical as Pi makes it
    for folder in (here, *here.parents):
        if str(folder) in decided:
            return decided[str(folder)]
    return None


def bridge_trust(reported: object, cwd: str | Path) -> bool | None:
    """The trust override the bridge sets from Pi's report: ``False`` when Pi says
    untrusted, ``True`` only when Pi's trust store holds the person's yes, else ``None``
    (Waymarks' own trust list decides). A report that is no boolean (Pi 0.x has no
    project trust) is ``None`` too."""
    if reported is False:
        return False
    if reported is True:
        decided = trust_decision(cwd)
        if decided is True or (decided is None and _always_trusts()):
            return True
    return None


def _always_trusts(directory: Path | None = None) -> bool:
    """Whether the person set Pi to trust every project (``defaultProjectTrust:
    "always"`` in Pi's own ``settings.json`` in its agent directory: never a project's
    ``.pi/settings.json``, which is the repository's to write)."""
    data = _json_object((directory or agent_dir()) / "settings.json")
    return data is not None and data.get("defaultProjectTrust") == "always"


def _json_object(path: Path) -> dict[str, object] | None:
    """The JSON object in the regular file at ``path`` (at most :data:`MAX_TRUST_BYTES`),
    or ``None``: missing, not a regular file, too large, not a JSON object."""
    try:
        data = json.loads(read_regular(path, limit=MAX_TRUST_BYTES).decode("utf-8-sig"))
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def repository_placed(session_file: Path, project: str) -> str | None:
    """Why the project's repository could have chosen or written the session file Pi
    opened, or ``None``: it lies inside the project's tree, or the project's own
    ``.pi/settings.json`` names a ``sessionDir`` (Pi reads that before it asks about
    trust, so a clone can ship a session file there, header and pins included, for
    ``pi -c`` to continue). In an untrusted project such a file is not the person's."""
    root = Path(os.path.realpath(project))
    where = Path(os.path.realpath(session_file))
    if where == root or root in where.parents:
        return f"the session file {where} lies inside the project"
    settings = _json_object(root / ".pi" / "settings.json")
    if settings is not None and "sessionDir" in settings:
        return f"the project's .pi/settings.json chose where it lies ({where})"
    return None
