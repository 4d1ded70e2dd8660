"""Saving each plan's manifest, which `manifest`, `included`, `excluded`, `tokens` and
`explain` read: a cache of the last plan (IDs, reasons, counts; never content).

What must stay true: a manifest that cannot be saved never fails the plan. On a full disk
(the database read as it is, or one that filled under a long-lived process that opened
it with room: a Claude Code hook's helper, Pi's bridge) the plan is answered all the same
and ``app.stale_note`` says its manifest was not saved; before, the helper's every prompt
failed whole, its pins with it. A saved manifest says when its plan was made
(:data:`MADE_AT`): once room is freed the one shown may be older than the last plan.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Final

from waymarks.service.ports import iso

if TYPE_CHECKING:
    from waymarks.planner.select import Plan
    from waymarks.service.app import Waymarks

#: a saved manifest's field: when its plan was made (ISO 8601, UTC)
MADE_AT: Final = "madeAt"
#: what the note says of a plan whose manifest could not be saved
UNSAVED: Final = ("this plan's manifest was not saved (`manifest` shows the last plan saved "
                  "before the disk filled)")


def remember_manifest(app: Waymarks, plan: Plan) -> None:
    """Save ``plan``'s manifest, with when it was made; on a full disk, say it was not
    (the full disk's module is imported then only)."""
    if app.read_only:
        from waymarks.service.projection_fill import stale_too

        stale_too(app, UNSAVED)
        return
    # the pins' entries come first, the same plan after plan: the store keeps them apart
    pins = next((at for at, e in enumerate(plan.manifest) if e.kind != "pin"),
                len(plan.manifest))
    # (handed over as they are: made into JSON only when they changed)
    made = {**plan.manifest_json(skip=pins), MADE_AT: iso(app.clock.now())}
    try:
        with app.projection.transaction():
            app.projection.save_manifest(made, head=plan.manifest[:pins])
    except sqlite3.Error as exc:
        from waymarks.service.projection_fill import filled_under, stale_too

        filled_under(app, exc)
        stale_too(app, UNSAVED)
