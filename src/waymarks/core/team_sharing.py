"""What may go into the team ledger: a remote destination for everyone who can clone the
repository (split from :mod:`waymarks.core.team`, the ledger's format and fold)."""

from __future__ import annotations

from typing import Final

from waymarks.core.egress import Egress
from waymarks.core.privacy import has_markers
from waymarks.core.secrets import holds_credential

__all__ = ["TEAM_LEVELS", "share_problem"]


#: what the team ledger may hold unless the person's policy narrows it further
TEAM_LEVELS: Final = frozenset({"normal", "internal"})


def share_problem(egress: Egress, text: str, key: str | None,
                  classification: str | None, unshare: str = "waymarks team unshare ID",
                  ) -> tuple[str, str] | None:
    """Why ``text`` may not go into the team ledger, as (code, message), or ``None``
    (``unshare``: the command that withdraws the team item whose key ``key`` is).

    The team ledger travels with the repository to everyone who can clone it, so it is
    a remote destination whatever the policy says: only levels the ``team`` egress
    admits (at most normal and internal), no working marker tags (a marked span is
    classified text the person meant to keep apart), no credential-like values
    (refused, not redacted: a redacted pin is not what the person confirmed). The
    message names the rule, never the text."""
    level = egress.level(text, classification)
    if not egress.admits(level) or level not in TEAM_LEVELS:
        return ("classification", f"the item is {level}; the team ledger takes only "
                f"{' and '.join(sorted(egress.allowed & TEAM_LEVELS)) or 'nothing'} "
                "(keep it local, or share a version without the restricted part)")
    if has_markers(text):
        return ("marked", "the text holds classification markers ([ds4:…]); share a "
                "version without marked spans")
    if holds_credential(text):
        return ("credential", "the text holds a credential-like value; share a version "
                "without it")
    if key and holds_credential(key):  # (a teammate's hand-written line: a local write
        # refuses such a key) said to be the text's, the person rewrote a clean text again
        return ("credential", "the item's key holds a credential-like value (a key is "
                "shared with its text, and a supersede keeps it): withdraw a team item so "
                f"keyed with `{unshare}`, then share the new text as an item "
                "of your own")
    if egress.text(text, classification) != text:
        return ("classification", "part of the text may not leave this machine")
    return None
