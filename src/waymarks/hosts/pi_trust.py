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
Reading Pi's files is :mod:`waymarks.service.pi_trust_store`'s (the model step reads them
too).
"""

from __future__ import annotations

import os
from pathlib import Path

from waymarks.service.pi_trust_store import json_object, person_trusts


def bridge_trust(reported: object, cwd: str | Path) -> bool | None:
    """The trust override the bridge sets from Pi's report: ``False`` when Pi says
    untrusted, ``True`` only when Pi's trust store holds the person's yes (or Pi is set to
    trust every project), else ``None`` (Waymarks' own trust list decides). A report that
    is no boolean (Pi 0.x has no project trust) is ``None`` too."""
    if reported is False:
        return False
    if reported is True and person_trusts(cwd):
        return True
    return None


def repository_placed(session_file: Path, project: str) -> str | None:
    """Why the project's repository could have chosen or written the session file Pi
    opened, or ``None``: it lies inside the project's tree, or the project's own
    ``.pi/settings.json`` names a ``sessionDir`` (Pi reads that before it asks about
    trust, so a clone can ship a session file there, header and pins included, for
    ``pi -c`` to continue). In an untrusted project such a file is not the person's; nor
    is it when that settings file is there and Waymarks cannot read it as Pi does (a byte
    that is not UTF-8, which Pi's reader takes as U+FFFD; past 4 MiB; nested past
    Python's depth): it may name one (before, it was taken as naming none)."""
    root = Path(os.path.realpath(project))
    where = Path(os.path.realpath(session_file))
    if where == root or root in where.parents:
        return f"the session file {where} lies inside the project"
    path = root / ".pi" / "settings.json"
    settings = json_object(path)
    if settings is not None and "sessionDir" in settings:
        return f"the project's .pi/settings.json chose where it lies ({where})"
    if settings is None and os.path.lexists(path):
        return (f"the project's .pi/settings.json cannot be read here and may choose where "
                f"it lies ({where})")
    return None
