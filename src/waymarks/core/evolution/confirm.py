"""What a consolidated source confirms (EVOLUTION item 31): the confirmation clock.

A source *confirms* a claim when it derives the same content again, or when it was
measured to mention the claim (the claim was offered to the model for it) and left it
standing: not replaced, not quarantined against. Confirmation moves only the claim's
``reinforcedAt`` (decay and dormancy run from it), never ``updatedAt`` (the replacement
authority gate), and writes no claim-changing event. Project state is never confirmed this
way: only newer evidence replacing it keeps it current. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from waymarks.core.evolution.contract import ProposedClaim
from waymarks.core.evolution.model import (
    SCHEMA_VERSION,
    ClaimRecord,
    ConfirmRecord,
    EvolutionRecord,
    claim_id,
)
from waymarks.core.evolution.rows import ClaimRow, SourceRow


def confirmations(source: SourceRow, proposed: Sequence[ProposedClaim],
                  offered: frozenset[str], written: Sequence[EvolutionRecord],
                  claim: Callable[[str], ClaimRow | None]) -> list[ConfirmRecord]:
    """The confirm record for ``source`` (none when it confirms nothing), dated at the
    source's capture time."""
    named = {r.replaces for r in written if isinstance(r, ClaimRecord) and r.replaces}
    named |= {r.conflicts_with for r in written
              if isinstance(r, ClaimRecord) and r.conflicts_with}
    named |= {p.replaces for p in proposed if p.replaces}
    again = [claim_id(source.origin, p.kind, p.content) for p in proposed]
    ids = []
    for cid in dict.fromkeys([*again, *sorted(offered)]):
        row = claim(cid)
        if (cid not in named and row is not None and row.state == "provisional"
                and row.kind != "project_state"):
            ids.append(cid)
    if not ids:
        return []
    return [ConfirmRecord(SCHEMA_VERSION, source.source_id, tuple(ids), source.captured_at)]
