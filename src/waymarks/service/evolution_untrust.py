"""What untrusting a project does to its text waiting for the learning model.

A compaction summary and a work turn (``progress``: its tool calls and output) are the
repository's text, not the person's: they are captured only in a project the person
trusts (:func:`~waymarks.service.capture_turns.capture_trusted`), and learned memory is
recalled in every project. Untrusting the project is the person's word that its text is
not theirs: the sources of it still queued for the model are settled (``untrusted``:
retired, not deleted; the append-only ledger keeps them), a capture of it still waiting
in the spool first, so the next ``waymarks evolve`` sends none of them. The person's own
statements made there stay queued: they are the person's, trusted or not.

The model step checks again (:func:`~waymarks.service.trust_held.sendable`): such a
source is sent only while its project is still trusted by the rule that trusted it.
Waymarks' list is read now; Pi's decision (a capture inside Pi, of a project Pi trusts
and the list does not hold) is kept in the home (``host-trusted-projects.json``) when
captured, with Pi's agent directory: Pi, when it runs the step, is asked again (its
decision on its own project); another caller reads Pi's trust store there again
(:func:`~waymarks.service.trust_held.held_yes`: a yes the store no longer holds is stale)
unless ``waymarks untrust`` took it back. A source
whose origin no rule trusts (one captured anywhere by a version before these checks) is
settled ``untrusted``, never sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from waymarks.core.evolution.model import SCHEMA_VERSION, SettledRecord
from waymarks.service.learning import has_ledger
from waymarks.service.ports import iso
from waymarks.service.trust_held import REPOSITORY_KINDS, forget_host_trust

if TYPE_CHECKING:
    from pathlib import Path

#: the settlement code of a source retired because its project is no longer trusted
UNTRUSTED: Final = "untrusted"


def retire_untrusted(home: Path, origin: str, *, dry_run: bool = False) -> int | str:
    """Settle ``origin``'s queued repository-derived sources as :data:`UNTRUSTED`; how
    many (in a ``dry_run``: how many would be), or why they could not be now (a busy or
    damaged database: waited on briefly; the model step settles them the same way, as no
    rule trusts them any more). Nothing is created in a home without learned memory or a
    waiting capture."""
    import sqlite3

    from waymarks.service.database_errors import describe

    try:
        return _retire(home, origin, dry_run)
    except (sqlite3.Error, OSError) as problem:
        return describe(problem)


def _retire(home: Path, origin: str, dry_run: bool) -> int:
    from waymarks.service.capture_spool import CAPTURE_BUSY_MS, drain, pending
    from waymarks.service.evolution import Evolution

    if not dry_run:  # the person's word: Pi's decision as captured no longer holds
        forget_host_trust(home, origin)
    if not has_ledger(home) and not pending(home):
        return 0
    with Evolution(home, busy_timeout_ms=CAPTURE_BUSY_MS) as evo:
        if not dry_run:  # a capture of it still waiting is taken now, then retired too
            drain(home, evo)
        with evo.ledger.locked():
            evo._locked_sync()
            at = iso(evo.clock.now())
            retired = [SettledRecord(SCHEMA_VERSION, s.source_id, UNTRUSTED, at)
                       for s in evo.store.unsettled(1_000_000)
                       if s.origin == origin and s.kind in REPOSITORY_KINDS]
            if retired and not dry_run:
                evo._append(retired)
    return len(retired)
