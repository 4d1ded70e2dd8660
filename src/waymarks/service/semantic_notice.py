"""What a command says when it started the background embedding worker.

A one-shot ``waymarks recall`` on a 100k store (its database deleted, so rebuilt) started a
worker that embedded for 47 minutes beside the person's work, and nothing said so. The
command that starts one now says it once, on standard error (never in its ``--json``
document): the worker's pid, how many claims it has to embed, where its progress shows
(``waymarks status``) and how to stop it. A worker started for fewer than
:data:`NOTE_FROM` claims (a claim just written: a second of work) is not worth a word.

What must stay true: nothing here is asked on a path that started no worker (the command
line looks at :data:`~waymarks.service.semantic_backfill.started` only when the module was
imported, so a lean path imports nothing for it), and a count that cannot be read leaves
the notice without it rather than fail a command that succeeded.
"""

from __future__ import annotations

import contextlib
import sqlite3
import sys
from typing import TYPE_CHECKING, Final

from waymarks.service.outcomes import ServiceError

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

#: the fewest claims a worker started by a command must have to embed for the command to
#: say so (one batch, about a second of CPU; a written claim's own worker says nothing)
NOTE_FROM: Final = 32


def started_note(app: Waymarks, home_option: str = "") -> str | None:
    """The notice for the worker this process started for ``app``'s home, if it did and
    it has at least :data:`NOTE_FROM` claims to embed; else ``None``. ``home_option``:
    `` --home H`` for the commands named, when a bare ``waymarks`` uses another home."""
    backfill = sys.modules.get("waymarks.service.semantic_backfill")
    if backfill is None:
        return None  # (nothing imported it: no worker was started)
    pids = [pid for home, pid in backfill.started if home == app.home]
    if not pids:
        return None
    from waymarks.service.semantic_recall import missing_vectors

    missing: int | None = None
    with contextlib.suppress(ServiceError, OSError, sqlite3.Error):
        missing = missing_vectors(app)
    if missing is not None and missing < NOTE_FROM:
        return None
    claims = "the claims" if missing is None else f"{missing:,} claim(s)"
    return (f"note: started a background process (pid {pids[-1]}, at low CPU priority) "
            f"embedding {claims} for hybrid recall; `waymarks{home_option} status` shows "
            f"how far it is. To stop it: kill {pids[-1]}, and set "
            f"{backfill.SWITCH}=off so that no later command starts another (claims without "
            f"a vector are recalled by their words; `waymarks{home_option} index --semantic` "
            "embeds them when you choose)")
