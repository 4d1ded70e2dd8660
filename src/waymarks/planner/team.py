"""The team block: pins and memory teammates shared through the repository.

Team items come right after the person's own pins (priority 940, below the pins' 950)
in a block of their own, with its own token budget, and are never mandatory: when they
do not fit they are left out and recorded by ID. Each names its author, contributor and
commit (or ``uncommitted``) as provenance, and the guidance says a teammate shared it and
that the person's own pins take precedence. Author names and item IDs come from files
anyone with push access can edit, so they go through the egress like the stored text.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

import msgspec

from waymarks.core.egress import Egress
from waymarks.core.tokens import estimate_tokens
from waymarks.planner.fill import SEPARATOR, fill
from waymarks.planner.memory_order import key_named, request_terms
from waymarks.planner.render import SHOWN_MEMO, _shown, ident, meta, shows_key

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

_EMPTY: Final = '""'  # a text shown empty, in a floor (:func:`team_floor`)
#: the fewest tokens any team block renders to (every field empty): when the budget left
#: is smaller, no claim is ordered for the request, none can enter
_LEAST: Final = estimate_tokens("\n".join([
    TEAM_BEGIN, "Team item ID: ", "Kind: ", 'Author: ""', "Contributor: ", "Commit: ",
    "Shared content JSON:", '""', TEAM_GUIDANCE, TEAM_END]))


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
    return _rendered(block, egress)


def team_floor(block: TeamBlock) -> int:
    """The fewest tokens ``block`` can render to: the block without its key line and with
    what the egress shows of it (its ID, author, contributor and text: classified,
    redacted, quoted, what rendering costs) empty, ``""``; each can only add to it, so a
    block whose floor does not fit is left out unrendered. What remains are its kind and
    commit, which many blocks share: estimated once for each."""
    return _floor(block.kind, block.commit)


@functools.lru_cache(maxsize=SHOWN_MEMO)
def _floor(kind: str, commit: str | None) -> int:
    return estimate_tokens(_rendered(TeamBlock("", kind, "", "", "", commit), None))


def _rendered(block: TeamBlock, egress: Egress | None) -> str:
    """The block as :func:`render_team` shows it; with no ``egress``, its floor's."""
    level = block.classification
    lines = [TEAM_BEGIN, f"Team item ID: {ident(egress, block.id, level) if egress else ''}",
             f"Kind: {meta(block.kind)}",
             f"Author: {_shown(egress, block.author, level) if egress else _EMPTY}",
             f"Contributor: {ident(egress, block.contributor, level) if egress else ''}",
             f"Commit: {meta(block.commit) if block.commit else 'uncommitted'}"]
    if egress and block.key and shows_key(egress, block.text, block.given_key):
        lines.append(f"Key: {_shown(egress, block.key, level)}")
    lines += ["Shared content JSON:", _shown(egress, block.text, level) if egress else _EMPTY,
              TEAM_GUIDANCE, TEAM_END]
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
        return (block.kind != "pin", not key_named(block.key, terms),
                -_shared(terms, block.text[:ORDER_CHARS]), position)

    return [b for _, b in sorted(enumerate(blocks), key=lambda p: speaks_to(*p))]


def _shared(terms: frozenset[str], text: str) -> int:
    """How many of the request's ``terms`` ``text`` holds. Each of a text's words is a
    piece of it case-folded (NFKC, which leaves ASCII as it is), so an ASCII text holding
    none of the terms as a piece holds none as a word, and is not analysed (most team
    claims, most plans)."""
    if text.isascii():
        folded = text.lower()
        if not any(term in folded for term in terms):
            return 0
    return len(terms & request_terms(text))


def choose_team(request: str, blocks: Sequence[TeamBlock], egress: Egress,
                room: int | None) -> tuple[list[tuple[TeamBlock, str, int, str]],
                                           list[tuple[TeamBlock, str, str, int]], int | None]:
    """(included: block, rendered, tokens, level), (excluded: block, level, reason,
    tokens), and the room left, for the team items in the order of :func:`order_team`.
    Only what can enter is worked on: a block whose floor (:func:`team_floor`) does not
    fit is left out unrendered, its floor its size; and the claims are ordered for the
    request only when the pins leave room for one (20k team items took 1.8 s CPU a plan,
    every item rendered and every claim read for the request's words)."""
    def level(block: TeamBlock) -> str:
        return egress.level(block.text, block.classification)

    def chosen(part: Sequence[TeamBlock], used: int, room: int | None
               ) -> tuple[list[tuple[TeamBlock, str, int, str]],
                          list[tuple[TeamBlock, str, str, int]], int | None]:
        return fill(part, level=level, admits=egress.admits,
                    render=lambda b: render_team(b, egress), budget=TEAM_MAX_TOKENS,
                    what="team", room=room, floor=team_floor,
                    used=used)

    overridden = [(b, level(b), f"your own claim {b.overridden_by[:8]} says otherwise", 0)
                  for b in blocks if b.overridden_by]
    offered = [b for b in blocks if not b.overridden_by]
    pins, claims = ([b for b in offered if (b.kind == "pin") is pin] for pin in (True, False))
    included, excluded, room = chosen(order_team(request, pins), 0, room)
    used = sum(tokens for _b, _r, tokens, _l in included) + SEPARATOR * (len(included) - 1)
    full = used + SEPARATOR + _LEAST > TEAM_MAX_TOKENS  # no claim can enter: none scored,
    more, left, room = chosen(claims if full else order_team(request, claims),  # replay
                              used if included else 0, room)                    # order
    return [*included, *more], [*overridden, *excluded, *left], room
