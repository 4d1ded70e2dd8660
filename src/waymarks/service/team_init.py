"""``waymarks team init``: the team directory, the README and ``.gitattributes`` that say
how its files are kept, and this home's contributor ID (the writes to the ledger are in
:mod:`waymarks.service.team_write`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from waymarks.core.text import escaped, shell_command
from waymarks.files.atomic import write_atomic
from waymarks.ledger import TEAM_DIR
from waymarks.ledger.team import linked_directory
from waymarks.service.team import team_dir
from waymarks.service.team_notes import write_notes
from waymarks.service.team_write import (
    TeamRefused,
    contributor,
    refuse_linked,
    refuse_without_git,
)

if TYPE_CHECKING:
    from waymarks.service.app import Waymarks

README: Final = """# Team memory

This directory is this repository's shared Waymarks memory: pins and memory that a
teammate shared with `waymarks team share ID`. Every teammate whose agent uses Waymarks,
and who trusts this repository (`waymarks trust .`), sees these items, with who shared
them and in which commit.

- One file per contributor (`<contributor>.jsonl`), appended to only by its owner's
  Waymarks. Each line carries a hash of the line before it: do not edit, reorder or
  delete lines. A file whose chain is broken, or that lost entries, is reported by
  `waymarks team status` and its items are withdrawn until it is restored from git,
  or, where `team status` offers it (a branch switch, a history the team agreed to
  rewrite), its present history is accepted with `waymarks team accept CONTRIBUTOR`.
- Commit these files as you commit code; pull to receive your teammates' items.
- To change a shared item, use `waymarks team supersede ID -- TEXT`; to withdraw one,
  `waymarks team unshare ID`. Conflicting claims (same key) are resolved the same way
  on every clone; `waymarks team status` lists them with the command that settles them.
"""

GITATTRIBUTES: Final = (
    "# Waymarks team ledger: one append-only file per contributor, appended to only by\n"
    "# its owner, so a merge never has two sides changing one file. Should that happen\n"
    "# anyway, git must not interleave the lines (that would break the hash chain): keep\n"
    "# each file whole (a conflict to settle by hand), with LF line ends.\n"
    "*.jsonl text eol=lf merge=binary\n")



def ledger_above(cwd: str) -> Path | None:
    """The folder above ``cwd``, up to its checkout's root (the folder holding ``.git``),
    whose team ledger is the nearest, if any. A project is its folder, so a subfolder of
    the checkout had "no team ledger here yet", and the init that said to run made a
    second one there, the team's items in none of its plans."""
    here = Path(cwd)
    if (here / ".git").exists():
        return None
    for folder in here.parents:
        ledger = folder / TEAM_DIR
        if ledger.is_dir() and linked_directory(ledger) is None:
            return folder
        if (folder / ".git").exists():
            return None
    return None


def elsewhere(folder: Path) -> str:
    """What is said of the ledger :func:`ledger_above` found."""
    command = shell_command(["waymarks", "--cwd", str(folder), "team", "status"])
    return (f"this checkout has one at {escaped(str(folder / TEAM_DIR))}, the project "
            f"{escaped(str(folder))}'s: run team commands there (`{command}`)")


def blocked(app: Waymarks) -> str | None:
    """Why the team ledger cannot be here, with the fix: ``.waymarks`` or
    ``.waymarks/team`` is there and no directory (a file a commit put there, say);
    ``None`` otherwise (`team status` said "No team ledger here yet: `waymarks team
    init`", which refuses it); either one a symbolic link (one whose target is not there
    read as nothing), which init refuses too."""
    directory = team_dir(app)
    try:
        refuse_linked(directory)
        if not directory.is_dir():  # outside git: init refuses (it said "team init")
            refuse_without_git(app, repository=True, then=", then `waymarks team init`")
    except TeamRefused as linked:
        return str(linked)
    for each in (directory.parent, directory):
        if each.exists() and not each.is_dir():
            return (f"{each.relative_to(app.cwd)} exists and is not a directory; the team "
                    "ledger needs it to be one: move it away, then run the command again")
    return None


def init(app: Waymarks) -> dict[str, Any]:
    """Create the team directory, its README and ``.gitattributes`` (existing files are
    left as they are) and this home's contributor ID. An untrusted project is refused
    first, before git is asked anything: its ledger would not be read, and the init
    wrote ``.waymarks/team`` into it all the same (and a contributor ID into the home)."""
    if not app.project_trusted:
        raise TeamRefused("untrusted", f"{app.cwd} is not trusted, so nothing is "
                          "made for it; trust it first (`waymarks trust .`), then run "
                          "`waymarks team init` again")
    refuse_without_git(app, repository=True)
    directory = team_dir(app)
    refuse_linked(directory)  # mkdir and the writes below would go where it points
    problem = blocked(app)
    if problem is not None:
        raise TeamRefused("not_a_directory", problem)
    me = contributor(app, create=True)  # (a damaged ID file: refused, nothing written)
    directory.mkdir(parents=True, exist_ok=True)
    created = []
    for name, text in (("README.md", README), (".gitattributes", GITATTRIBUTES)):
        path = directory / name
        if not path.exists():
            write_atomic(path, text)
            created.append(name)
    above = ledger_above(app.cwd)
    return {"directory": str(directory.relative_to(app.cwd)), "created": created,
            "contributor": me, "trusted": app.project_trusted,
            "notices": [*write_notes(app, me or ""), *(
                [f"this ledger is this folder's alone; {elsewhere(above)}"]
                if above is not None and created else [])]}
