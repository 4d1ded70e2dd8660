"""The team items a plan in a directory offers, and the question learned claims are
asked against them and the person's own (:meth:`.own_claims.OwnClaims.held`): the
planner and every recall of learned claims ask both. Apart from both: the team's views
read the person's own claims (:mod:`.team_views`), so own_claims reaching for the team
items through the planner closed a cycle (own_claims -> planning -> team_views ->
own_claims)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from waymarks.planner.team import TeamBlock
    from waymarks.service.app import Waymarks

__all__ = ["held_here", "team_blocks_here"]


def team_blocks_here(app: Waymarks) -> list[TeamBlock]:
    """Team memory for a plan in ``app``'s directory: only a trusted project with a team
    ledger has any, and that is checked before the team modules load (~8 ms of imports,
    OpenSSL's hashlib and ``subprocess`` among them, on every hook process of a project
    without a team)."""
    from waymarks.ledger import TEAM_DIR

    if not app.project_trusted or not (Path(app.cwd) / TEAM_DIR).is_dir():
        return []
    from waymarks.service.team_views import team_blocks

    return team_blocks(app)


def held_here(app: Waymarks) -> Callable[[str], str | None]:
    """What a learned claim's text must not stand for in ``app``'s directory: a pin or
    claim of the person's saying or contradicting it, or a team item here contradicting
    it (:meth:`~waymarks.service.own_claims.OwnClaims.held`), made on the first text
    asked: a home that never learned asks none, and a one-shot recall there imported
    :mod:`.own_claims` (and :mod:`weakref`) for nothing."""
    held: Callable[[str], str | None] | None = None

    def asked(text: str) -> str | None:
        nonlocal held
        if held is None:
            from waymarks.service.own_claims import OwnClaims

            held = OwnClaims(app, team=lambda: team_blocks_here(app)).held
        return held(text)

    return asked
