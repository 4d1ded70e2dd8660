"""IDs as people type them: any unique prefix of an item ID, and a clear answer when a
prefix is not unique (every match listed, never "No memory b")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from waymarks.commands.render import cell

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks
    from waymarks.service.outcomes import Rejected, WriteOutcome

Kind = Literal["pin", "memory"]
FULL_ID = 36
SHOWN_MATCHES = 10


def matching(app: Waymarks, kind: Kind, ref: str) -> list[str]:
    """Full IDs of the visible items of ``kind`` that ``ref`` names (exactly, or as a
    prefix)."""
    ids = [v.id for v in app.items(kind)]
    return [ref] if ref in ids else [i for i in ids if i.startswith(ref)]


def ambiguous(kind: Kind, ref: str, matches: list[str]) -> Rejected:
    from waymarks.service.outcomes import Rejected

    shown = ", ".join(m[:12] for m in matches[:SHOWN_MATCHES])
    more = f" and {len(matches) - SHOWN_MATCHES} more" if len(matches) > SHOWN_MATCHES else ""
    return Rejected("ambiguous", f"{cell(ref)!r} is the start of {len(matches)} {kind} IDs "
                    f"({shown}{more}); type more of the ID", tuple(matches))


def resolve(app: Waymarks, kind: Kind, ref: str) -> str | Rejected:
    """The one full ID ``ref`` names, or why it names none."""
    from waymarks.service.outcomes import Rejected

    matches = matching(app, kind, ref) if ref else []
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        return ambiguous(kind, ref, matches)
    return Rejected("not_found", f"No {kind} {cell(ref)!r} in this session or project; list "
                    f"them with `waymarks {'pins' if kind == 'pin' else 'memory'}`")


def explain_not_found(app: Waymarks, kind: Kind, ref: str | None,
                      outcome: WriteOutcome) -> WriteOutcome:
    """A write refused because ``ref`` named nothing: when the prefix is ambiguous, say
    so and list the matches (the service expands only unique prefixes)."""
    from waymarks.service.outcomes import Rejected

    if not isinstance(outcome, Rejected) or outcome.code != "not_found" or not ref \
            or len(ref) >= FULL_ID:
        return outcome
    matches = matching(app, kind, ref)
    return ambiguous(kind, ref, matches) if len(matches) > 1 else outcome
