"""IDs as people type them: the visible items a reference names, exactly or as a prefix.

A reference is matched as typed, else in lower case (IDs are lower-case), against the
IDs of the items the session may see (:func:`waymarks.core.text.ids_named`). The
candidates are read from the items' ID index, then their rows by ID (which verifies
them): listing every visible item to match one ID cost about 2 s of CPU at 60k claims, in
each ``memory show``, each refused status change and each ``team share``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal

from waymarks.core.text import ids_named, unknown_id

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

#: more candidates than this (a prefix of a character or two in a large store): the
#: visible items are listed instead of read by ID (one query holds only so many)
MAX_CANDIDATES: Final = 10_000


def named_ids(app: Waymarks, kind: Literal["pin", "memory"], ref: str) -> list[str]:
    """Full IDs of the visible items of ``kind`` that ``ref`` names."""
    session = app.refresh()  # (the index read next must hold what the session wrote)
    sid = session.session_id if session is not None else ""
    candidates = list(dict.fromkeys(
        found for typed in dict.fromkeys((ref, ref.lower()))
        for found in app.projection.ids_starting(kind, typed, sid, app.cwd))) if ref else None
    if candidates is not None and not candidates:
        return []
    if candidates is not None and len(candidates) > MAX_CANDIDATES:
        candidates = None
    return ids_named((v.id for v in app.items(kind, ids=candidates)), ref)


def no_claim(ref: str) -> str:
    """What every learned-claim command says of an ID no claim has (``evolution show``
    said it in words of its own, without the ID or its shape)."""
    return (unknown_id("learned claim", ref, "in this home", "waymarks evolution list")
            + " (IDs are 24 hex digits)")


def not_learned(app: Waymarks, ref: str) -> str | None:
    """What a learned-claim command given ``ref`` says when it names a visible pin or
    memory instead (their UUIDs are not learned claims' 24 hex digits, and `learn forget`
    answered "no learned claim has the ID" with no word of what it is): the command that
    retires it. ``None``: it names neither."""
    commands = {"memory": "memory invalidate", "pin": "unpin"}
    kinds: tuple[Literal["pin", "memory"], ...] = ("memory", "pin")
    for kind in kinds:
        found = named_ids(app, kind, ref)
        if len(found) == 1:
            return (f"{found[0]} is a {kind}, not a learned claim: `{app.command_prefix} "
                    f"{commands[kind]} {found[0]}` retires it")
    return None
