"""Write decisions, their target: the item a supersede or a status change names, found
among what the session sees, or refused saying why (not found, named twice, no longer
active: then what replaced it and the command that writes to that one instead).

Split from :mod:`waymarks.core.decisions`, which re-exports :func:`find_target` and
:func:`suggested`. Pure: no I/O, no clock.
"""

from __future__ import annotations

from waymarks.core.decision_types import Rejected, WriteContext
from waymarks.core.egress import quote
from waymarks.core.model import MemoryItem
from waymarks.core.rules import ItemState, own_state
from waymarks.core.text import echoed, escaped, shell_command, unknown_id


def find_target(ctx: WriteContext, kind: str, ref: str,
                verb: tuple[str, ...] = ()) -> ItemState | Rejected:
    """The visible item ``ref`` names (full ID), or a rejection saying why not; ``verb``, the
    command words of the write (``memory supersede``), names its newest replacement's."""
    listing = f"`{ctx.prog} {'pins' if kind == 'pin' else 'memory'}`"
    if not ref.strip():  # said "No pin  in this session" as if one had been named
        return Rejected("invalid_argument", f"the {kind} ID is empty; give one (list them "
                        f"with {listing})")
    state = own_state(ctx.view, ref, ctx.session_id)  # a fork's copy, if it has one
    listed = ctx.view.get(ref)
    if (listed is not None and state is not None and listed.id != state.id
            and listed.kind == kind and ctx.visible(listed)):
        # the ID names two items this session sees: the one listed under it (another
        # session's, written first) and this session's own, kept as its copy. Replay reads
        # the ID as the copy, so "unpin" of the other item as listed unpinned the
        # person's own item instead, and left the other in effect
        return Rejected("ambiguous", f"{kind.capitalize()} ID {echoed(ref)} names two "
                        f"items here: the {kind} of session {escaped(listed.session_id)} "
                        f"listed under it, and this session's own {state.kind} kept under "
                        f"{escaped(state.id)} (the other session wrote that ID first). Give "
                        f"{escaped(state.id)} for this session's own; the other cannot be "
                        "named from this session (change it from another session, or "
                        "exclude its session with "
                        f"`{suggested(ctx.prog, 'memory', 'exclude', listed.session_id)}`)")
    if state is None or state.kind != kind or not ctx.visible(state):
        return Rejected("not_found", unknown_id(kind, ref, "in this session or project",
                                                listing.strip("`")))
    if state.status != "active":
        return Rejected("not_active",
                        f"{kind.capitalize()} {escaped(ref)} is {state.status}, not active"
                        f"{_replaced_by(ctx, state, verb)}")
    return state


def _replaced_by(ctx: WriteContext, state: ItemState, verb: tuple[str, ...]) -> str:
    """What a refusal of a write naming the replaced ``state`` adds: the newest item of its
    chain of replacements still active (its ID, and its text quoted as data) and the
    command that writes ``verb`` to it instead; nothing when none is (said only "is
    superseded", the person had to list every item to find which one holds the fact)."""
    newest, seen = state, set[str]()
    while newest.superseded_by and newest.id not in seen:
        seen.add(newest.id)
        following = ctx.view.get(newest.superseded_by)
        if following is None or not ctx.visible(following):
            newest = state
            break
        newest = following
    if newest is state or newest.status != "active":
        return _instead(ctx, state, verb)
    if not verb:
        return f": it was replaced by {escaped(newest.id)}, {quote(newest.text)}"
    tail = {"supersede": " -- NEW CLAIM", "--supersedes": " -- NEW TEXT"}.get(verb[-1], "")
    return (f": it was replaced by {escaped(newest.id)}, {quote(newest.text)}; use "
            f"`{suggested(ctx.prog, *verb, newest.id)}{tail}` to change that one")


def _instead(ctx: WriteContext, state: ItemState, verb: tuple[str, ...]) -> str:
    """What a write naming ``state``, closed and replaced by nothing in effect, does
    instead: nothing brings it back, so a replacement is a new item where it was (its
    scope and key), and closing it again has nothing left to do (said only "is invalid,
    not active", with no way forward)."""
    if not verb:
        return ""
    if verb[-1] not in ("supersede", "--supersedes"):
        return "; nothing to do: it no longer applies"
    item = state.item
    words = ["memory", "add"] if state.kind == "memory" else ["pin"]
    if item.scope != "session":
        words += ["--scope", item.scope]
    if isinstance(item, MemoryItem) and item.key:
        words += ["--key", item.key]
    step, tail = (("record the new text as a new claim", "CLAIM") if state.kind == "memory"
                  else ("pin the new text as a new pin", "TEXT"))
    return (f"; nothing makes it apply again: {step}: `{suggested(ctx.prog, *words)} -- "
            f"NEW {tail}`")


def suggested(prog: str, *words: str) -> str:
    """A command a refusal suggests, quoted as a shell reads it: the IDs in it were chosen
    by whoever wrote the item (another session's file, a teammate's team file), and one
    such as ``$(sh x)`` must stay a word of the line a person pastes."""
    return shell_command([prog, *words])
