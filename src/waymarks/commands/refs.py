"""IDs as people type them: any unique prefix of an item ID, and a clear answer when a
prefix is not unique (every match listed, never "No memory b")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from waymarks.core.text import echoed, shell_command, unknown_id

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks
    from waymarks.service.outcomes import Rejected, WriteOutcome

Kind = Literal["pin", "memory"]
FULL_ID = 36
SHOWN_MATCHES = 10


def matching(app: Waymarks, kind: Kind, ref: str) -> list[str]:
    """Full IDs of the visible items of ``kind`` that ``ref`` names (exactly, or as a
    prefix)."""
    from waymarks.service.item_refs import named_ids

    return named_ids(app, kind, ref)


def ambiguous(kind: Kind, ref: str, matches: list[str]) -> Rejected:
    from waymarks.service.outcomes import Rejected

    shown = ", ".join(m[:12] for m in matches[:SHOWN_MATCHES])
    more = f" and {len(matches) - SHOWN_MATCHES} more" if len(matches) > SHOWN_MATCHES else ""
    return Rejected("ambiguous", f"'{echoed(ref)}' is the start of {len(matches)} {kind} IDs "
                    f"({shown}{more}); type more of the ID", tuple(matches))


def resolve(app: Waymarks, kind: Kind, ref: str) -> str | Rejected:
    """The one full ID ``ref`` names, or why it names none."""
    from waymarks.service.outcomes import Rejected

    listing = f"waymarks {'pins' if kind == 'pin' else 'memory'}"
    if not ref.strip():  # as a write refuses an empty ID
        return Rejected("invalid_argument", f"the {kind} ID is empty; give one (list them "
                        f"with `{listing}`)")
    matches = matching(app, kind, ref)
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        return ambiguous(kind, ref, matches)
    hint = _other_kind(app, kind, ref)
    return Rejected("not_found", unknown_id(kind, ref, "in this session or project", listing)
                    + (f" ({hint})" if hint else ""))


def explain_not_found(app: Waymarks, kind: Kind, ref: str | None,
                      outcome: WriteOutcome) -> WriteOutcome:
    """A write refused because ``ref`` named nothing: when the prefix is ambiguous, say
    so and list the matches (the service expands only unique prefixes)."""
    from waymarks.service.outcomes import Rejected

    if not isinstance(outcome, Rejected) or outcome.code != "not_found" or not ref:
        return outcome
    matches = matching(app, kind, ref)
    if len(matches) > 1 and len(ref) < FULL_ID:
        return ambiguous(kind, ref, matches)
    hint = _elsewhere(app, matches[0]) if len(matches) == 1 else _other_kind(app, kind, ref)
    return Rejected(outcome.code, f"{outcome.message} ({hint})") if hint else outcome


def _elsewhere(app: Waymarks, item_id: str) -> str:
    """Why an item this session lists cannot be changed from here: it is a project item
    of another project (written by this session from there)."""
    state = app.projection.view.get(item_id)
    where = state.item.project_path if state is not None else None
    if state is None or state.item.scope != "project" or not where or where == app.cwd:
        return ""
    return (f"{item_id[:8]} is a project item of {echoed(where, 300)}; change it from there, "
            f"or with `--cwd {echoed(where, 300)}`")


def _other_kind(app: Waymarks, kind: Kind, ref: str) -> str:
    """A pin ID given where a memory is expected, or the other way round."""
    other: Kind = "memory" if kind == "pin" else "pin"
    found = matching(app, other, ref)
    if len(found) != 1:
        return ""
    # the command named must run as written: `memory show` needs the ID (quoted as a
    # shell reads it: a hand-edited ledger's ID may hold anything)
    listing = (f"`{shell_command(['waymarks', 'memory', 'show', found[0][:8]])}`"
               if other == "memory" else "`waymarks pins`")
    return f"{echoed(found[0][:8])} is a {other}, not a {kind}; see {listing}"
