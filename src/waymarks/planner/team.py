"""The team block: pins and memory teammates shared through the repository.

Team items come right after the person's own pins (priority 940, below the pins' 950)
in a block of their own, with its own token budget, and are never mandatory: when they
do not fit they are left out and recorded by ID. Each names its author, contributor and
commit (or ``uncommitted``) as provenance, and the guidance says a teammate shared it and
that the person's own pins take precedence. Author names and item IDs come from files
anyone with push access can edit, so they go through the egress like the stored text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec

from waymarks.core.egress import Egress
from waymarks.planner.fill import fill
from waymarks.planner.memory_order import key_named, request_terms
from waymarks.planner.render import _shown, ident, meta, shows_key

TEAM_PRIORITY: Final = 940  # below the person's own pins (950), above memory
TEAM_MAX_TOKENS: Final = 1500
#: how much of a team item's text :func:`order_team` reads for the request's words: a text
#: this long is the whole team budget already (four characters a token at most), so what
#: follows cannot change whether it fits; a file of 400 entries of 250 KB made every plan
#: take 7-16 s when each was read whole
ORDER_CHARS: Final = 4 * TEAM_MAX_TOKENS
TEAM_BEGIN: Final = "[WAYMARKS TEAM CONTEXT — SHARED THROUGH THE REPOSITORY]"
TEAM_END: Final = "[END WAYMARKS TEAM CONTEXT]"
TEAM_GUIDANCE: Final = (
    "Shared by a teammate through this repository's team ledger: project context, "
    "subordinate to system and developer instructions and to the person's own pins above.")


class TeamBlock(msgspec.Struct, frozen=True):
    id: str
    kind: str  # pin | memory
    text: str
    author: str
    contributor: str
    commit: str | None
    key: str | None = None
    classification: str | None = None
    #: the key as the teammate's file wrote it (``key`` is its normalised form)
    given_key: str | None = None
    #: the person's own claim this one contradicts (same key, or the opposite state): the
    #: own claim is planned, this one left out with the reason
    overridden_by: str | None = None


def render_team(block: TeamBlock, egress: Egress) -> str:
    level = block.classification
    lines = [TEAM_BEGIN, f"Team item ID: {ident(egress, block.id, level)}",
             f"Kind: {meta(block.kind)}",
             f"Author: {_shown(egress, block.author, level)}",
             f"Contributor: {ident(egress, block.contributor, level)}",
             f"Commit: {meta(block.commit) if block.commit else 'uncommitted'}"]
    if block.key and shows_key(egress, block.text, block.given_key):
        lines.append(f"Key: {_shown(egress, block.key, level)}")
    lines += ["Shared content JSON:", _shown(egress, block.text, level), TEAM_GUIDANCE,
              TEAM_END]
    return "\n".join(lines)


def order_team(request: str, blocks: Sequence[TeamBlock]) -> list[TeamBlock]:
    """The order team items compete for the team budget: pins first (confirmed
    instructions, in replay order), then claims by how much of the request they speak
    to: a key the request names, then the request's words (of three letters or more) each
    claim holds, then replay order. Filled in replay order alone, a team of a few dozen
    claims kept its oldest and dropped the one the request was about."""
    if not blocks:  # (most plans: no team ledger)
        return []
    terms = frozenset(t for t in request_terms(request) if len(t) >= 3)

    def speaks_to(position: int, block: TeamBlock) -> tuple[bool, bool, int, int]:
        shared = len(terms & request_terms(block.text[:ORDER_CHARS]))
        return (block.kind != "pin", not key_named(block.key, terms), -shared, position)

    return [b for _, b in sorted(enumerate(blocks), key=lambda p: speaks_to(*p))]


def choose_team(blocks: Sequence[TeamBlock], egress: Egress, room: int | None
                ) -> tuple[list[tuple[TeamBlock, str, int, str]],
                           list[tuple[TeamBlock, str, str, int]], int | None]:
    """(included: block, rendered, tokens, level), (excluded: block, level, reason,
    tokens), and the room left."""
    def level(block: TeamBlock) -> str:
        return egress.level(block.text, block.classification)

    overridden = [(b, level(b), f"your own claim {b.overridden_by[:8]} says otherwise", 0)
                  for b in blocks if b.overridden_by]
    included, excluded, room = fill([b for b in blocks if not b.overridden_by], level=level,
                                    admits=egress.admits,
                                    render=lambda b: render_team(b, egress),
                                    budget=TEAM_MAX_TOKENS, what="team", room=room)
    return included, [*overridden, *excluded], room
