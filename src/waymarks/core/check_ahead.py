"""A new claim's side of the contradiction check, worked out before a write takes its lock.

A memory write checks its claim against the stored ones under the session file's lock
(:func:`~waymarks.core.rules.find_contradictions`, :func:`~waymarks.core.rules.key_apart`):
the claim's signature, its opposites, its typed slots and masked values, and each
pairwise test. The first time a process runs those, it imports their modules and compiles
their patterns (:mod:`waymarks.core.lazy_re`): measured, a fresh process's first memory
write held the lock for 13-26 ms of CPU (3 modules imported, 18 patterns compiled) where
the next ones hold it for 2 ms, and with 8 processes writing to one session every other
writer waited for that. :func:`prepare` does the claim's own analyses (memoised, so the
check finds them done) and runs each pairwise test once, the claim against itself, so
the check under the lock finds the modules loaded and the patterns compiled.

It decides nothing: the check under the lock reads and decides alone. A failure here is
left to the check, which meets it where it met it before (a memo keeps no failure).
"""

from __future__ import annotations

import contextlib


def prepare(text: str) -> None:
    """Work out what the contradiction check will ask of ``text`` (a cleaned claim) before
    the lock, and load what it will need (see the module)."""
    with contextlib.suppress(Exception):  # (see the module: decided by the check itself)
        from waymarks.core.claim_actions import agent_beside_place
        from waymarks.core.claim_descriptions import descriptions
        from waymarks.core.claim_masked import masked_ahead, masked_conflict
        from waymarks.core.claim_negations import opposite_norms
        from waymarks.core.claim_slots import slots_conflict
        from waymarks.core.contradiction import contradicts, signature, unplaced_negation
        from waymarks.core.text import normalize

        found = signature(text)
        norm = normalize(text)
        if found is not None:
            unplaced_negation(text, found)
            contradicts(found, found)
        opposite_norms(norm)
        slots_conflict(text, text)
        masked_conflict(text, text)
        masked_ahead(text)  # (the claim beside one of another value: its masks)
        descriptions(norm, norm)
        agent_beside_place(norm, norm)
