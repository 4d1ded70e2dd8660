"""What a team write or ``team init`` says beside its outcome: git ignoring this home's
team file, git naming no author. Apart from the writes (:mod:`.team_write`), which call
it after they land, and ``team init``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from waymarks.core.text import escaped
from waymarks.ledger import TEAM_DIR
from waymarks.ledger.team import SUFFIX
from waymarks.service import team_git

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks


def write_notes(app: Waymarks, me: str) -> tuple[str, ...]:
    """What a write or ``team init`` says beside its outcome: :func:`untracked`, and a
    note when git has no ``user.name`` here: the contributor ID (``contributor-…``) was
    then every entry's author, which teammates read in `team status` and in plans, and
    nothing said why or how to be named."""
    try:  # (after a write: a git hanging now refuses nothing written; it answered before)
        named = bool(team_git.user_name(Path(app.cwd)))
    except team_git.GitTimedOut:
        named = True
    unnamed = () if named else (
        f"git has no user.name here, so your team entries name their author by your "
        f"contributor ID ({escaped(me)}); set yours (`git config --global user.name "
        "'Your Name'`) and your next entries carry it (the ID stays)",)
    return untracked(app, me) + unnamed


def untracked(app: Waymarks, me: str) -> tuple[str, ...]:
    """A note when git ignores this home's team file (a ``.gitignore`` holding
    ``.waymarks/``): ``git add -A`` skips it in silence, and what was written to it never
    reaches a teammate, while every command said to commit it to share it. The file is
    made at the first share: before it (``team init``), adding the folder now adds the
    rest alone (it said "add it once" there, and the share then said it again)."""
    relative = f"{TEAM_DIR.as_posix()}/{me}{SUFFIX}"
    rule = team_git.ignored_by(Path(app.cwd), relative)
    if rule is None:
        return ()
    when = "once" if (Path(app.cwd) / relative).exists() else (
        "after your first `waymarks team share`, which makes it,")
    return (f"git ignores {escaped(relative)} ({escaped(rule)}), so `git add` skips it and "
            f"your team entries never reach a teammate: add it {when} with `git add -f "
            f"{TEAM_DIR.as_posix()}` (tracked, it is committed as any file), or change that "
            "rule",)
