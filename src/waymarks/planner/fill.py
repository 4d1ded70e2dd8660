"""Filling an optional block kind within its own token budget (team items, learned claims).

One rule for every optional kind, in the order given: a block the destination may not
receive is left out for its classification; one that would pass the kind's budget is left
out for it; one that would pass the model's remaining room is left out for that; the rest
go in, each shrinking the room. Every block left out is recorded with its reason and its
size, so the manifest names it by ID. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from waymarks.core.tokens import estimate_tokens

#: why an item the room had no space for was left out (with a host's cap on added
#: context, the planner names the cap too)
NO_ROOM = "model limit reached"
#: what a separator between two items of a block may add to the estimate (a blank line is
#: two characters: at most one more token than the items' estimates summed)
SEPARATOR = 1

B = TypeVar("B")


def fill(blocks: Sequence[B], *, level: Callable[[B], str], admits: Callable[[str], bool],
         render: Callable[[B], str], budget: int, what: str, room: int | None,
         limit: int | None = None, floor: Callable[[B], int] | None = None, used: int = 0
         ) -> tuple[list[tuple[B, str, int, str]], list[tuple[B, str, str, int]], int | None]:
    """(included: block, rendered, tokens, level), (excluded: block, level, reason,
    tokens), and the room left; ``what`` names the budget in its reason ("team",
    "learned"). The blank line between two items counts against the budget and the room
    (:data:`SEPARATOR`), as in every other block: a block of three items passed its budget
    by two tokens. ``limit``: the most items included; the blocks after the one that
    reached it are not looked at (nor listed). ``floor``: the fewest tokens a block can
    render to, cheaply: one whose floor does not fit is left out unrendered, with its
    floor as its size. ``used``: the budget items of the block before took (included
    already: the first item here is after a separator)."""
    included: list[tuple[B, str, int, str]] = []
    excluded: list[tuple[B, str, str, int]] = []
    after = used > 0
    for block in blocks:
        if limit is not None and len(included) >= limit:
            break
        found = level(block)
        if not admits(found):
            excluded.append((block, found, f"classification {found} not allowed for this "
                             "provider", 0))
            continue
        separator = SEPARATOR if included or after else 0
        least = None if floor is None else floor(block)
        if least is not None and used + least + separator > budget:
            excluded.append((block, found, f"{what} token budget ({budget}) reached", least))
            continue
        if least is not None and room is not None and least + separator > room:
            excluded.append((block, found, NO_ROOM, least))
            continue
        rendered = render(block)
        tokens = estimate_tokens(rendered)
        cost = tokens + separator
        if used + cost > budget:
            excluded.append((block, found, f"{what} token budget ({budget}) reached", tokens))
            continue
        if room is not None and cost > room:
            excluded.append((block, found, NO_ROOM, tokens))
            continue
        included.append((block, rendered, tokens, found))
        used += cost
        room = None if room is None else room - cost
    return included, excluded, room
