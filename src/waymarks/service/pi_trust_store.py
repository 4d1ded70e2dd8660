"""What Pi's own trust store says of a project: read by the bridge, to answer "is this
project trusted?" inside Pi (:mod:`waymarks.hosts.pi_trust`), and by the model step
outside Pi, to see whether the Pi decision a queued capture was taken under still holds
(:mod:`waymarks.service.trust_held`).

Pi's trust store is ``$PI_CODING_AGENT_DIR/trust.json``, else ``~/.pi/agent/trust.json``:
a JSON object of path -> true/false, the nearest entry at or above the project deciding.
The person may also set Pi to trust every project (``defaultProjectTrust: "always"`` in
Pi's own ``settings.json``, never a project's ``.pi/settings.json``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from waymarks.files.reading import read_regular

#: a trust store past this size is not Pi's (it holds a line per decided project)
MAX_TRUST_BYTES = 4 << 20


def default_agent_dir() -> Path:
    """Pi's agent directory: ``PI_CODING_AGENT_DIR``, else ``~/.pi/agent``."""
    env = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(env).expanduser() if env else Path.home() / ".pi" / "agent"


def trust_decision(cwd: str | Path, directory: Path | None = None) -> bool | None:
    """The decision Pi's trust store holds for ``cwd`` (its nearest entry at or above
    it), or ``None``: no entry, or no store Waymarks can read as one (missing, not a
    regular file, too large, not a JSON object)."""
    data = json_object((directory or default_agent_dir()) / "trust.json")
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


def person_trusts(cwd: str | Path, directory: Path | None = None) -> bool:
    """Whether Pi's yes on ``cwd`` is the person's: an entry at or above it says true, or
    none says anything and Pi is set to trust every project."""
    decided = trust_decision(cwd, directory)
    return decided is True or (decided is None and always_trusts(directory))


def always_trusts(directory: Path | None = None) -> bool:
    """Whether the person set Pi to trust every project (``defaultProjectTrust:
    "always"`` in Pi's own ``settings.json`` in its agent directory: never a project's
    ``.pi/settings.json``, which is the repository's to write)."""
    data = json_object((directory or default_agent_dir()) / "settings.json")
    return data is not None and data.get("defaultProjectTrust") == "always"


def json_object(path: Path) -> dict[str, object] | None:
    """The JSON object in the regular file at ``path`` (at most :data:`MAX_TRUST_BYTES`),
    or ``None``: missing, not a regular file, too large, not a JSON object."""
    try:
        data = json.loads(read_regular(path, limit=MAX_TRUST_BYTES).decode("utf-8-sig"))
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None
