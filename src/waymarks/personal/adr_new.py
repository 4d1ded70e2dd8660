"""Scaffolding a decision record: ``waymarks adr new`` (the records are read by
:mod:`waymarks.personal.docs`). The next number of the project's decisions folder, taken
under a lock on it; a title refused as any write is; nothing overwritten."""

from __future__ import annotations

import fcntl
import os
import unicodedata
from collections.abc import Collection
from datetime import date
from pathlib import Path
from typing import Final

from waymarks.core.decisions import refuse_credentials
from waymarks.files.paths import leads_within, resolved
from waymarks.ledger.session_file import create_atomically
from waymarks.personal.docs import ADR_NUMBER, DECISIONS_DIR, DOCS_DIR
from waymarks.personal.entry import derive_slug

#: the bidirectional classes of the characters that reorder text (embeddings, overrides,
#: isolates, marks): a title holding one reads otherwise than it is
_BIDI_CONTROLS: Final = frozenset({"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI",
                                   "PDI"})


class AdrRefused(ValueError):
    """An ADR that cannot be scaffolded, and why (``code``: the refusal's code)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def docs_project(start: Path, trusted: Collection[str] = ()) -> Path:
    """Where a record made from folder ``start`` goes: the nearest folder from ``start``
    up to its checkout's root that has ``docs/engineering`` (a package of a monorepo keeps
    its own) or is a ``trusted`` project (plans read its docs), else that root; ``start``
    outside a checkout. Run from a subfolder, ``adr new`` made a second ``ADR-0001``
    there, in a tree no plan from the project reads; and with the root alone, a trusted
    project in a home kept in git (dotfiles) had its records put in the home."""
    from waymarks.service.evolution_observe import checkout_root

    root = checkout_root(str(start))
    if root is None:
        return start
    for folder in (start, *start.parents):
        if (folder / DOCS_DIR).is_dir() or str(folder) in trusted:
            return folder
        if folder == Path(root):
            break
    return Path(root)


def new_adr(project: Path, title: str, today: date) -> Path:
    """Scaffold the next numbered decision record; refuses to overwrite anything.

    An ADR is committed with the code: a title holding a credential is refused as any
    write is, and so is a decisions folder that leads out of the project (a link in a
    checkout) or cannot be one (a file in the way). The number is chosen and the file
    created under a lock on the folder, so two writers never take the same number."""
    title = " ".join(title.split())
    if not title:
        raise AdrRefused("invalid_argument", "an ADR title needs 1 to 120 characters")
    if len(title) > 120:  # a length limit says so as every other (it was invalid_argument)
        raise AdrRefused("too_long", f"an ADR title has {len(title)} characters; the limit "
                         "is 120. Shorten it; nothing was created")
    if any(unicodedata.category(c) == "Cc" or unicodedata.bidirectional(c) in _BIDI_CONTROLS
           or c in "\u200e\u200f\u061c" for c in title):  # the marks: classes L, R, AL
        # written raw into a committed file, an ESC or a BEL drove the terminal of whoever
        # ran cat or git diff on it, and a bidi override made it read otherwise
        raise AdrRefused("invalid_argument", "an ADR title cannot hold control characters "
                         "or ones that reorder text; nothing was created")
    credential = refuse_credentials(title, "The ADR title")
    if credential is not None:
        raise AdrRefused(credential.code, f"{credential.message}; nothing was created")
    directory = project / DECISIONS_DIR
    if not leads_within(directory, project):
        target = resolved(directory)
        where = f"leads outside the project (to {target})" if target is not None else \
            "is a loop of symbolic links"
        raise AdrRefused("invalid_argument", f"{DECISIONS_DIR} {where}; make it a folder "
                         "of the project; nothing was created")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        in_way = next((p for p in reversed(directory.parents) if p.is_relative_to(project)
                       and p.exists() and not p.is_dir()), directory)  # or a link to nothing
        raise AdrRefused("invalid_argument", f"{in_way.relative_to(project)} is not a folder; "
                         f"move it away so {DECISIONS_DIR} can be created; nothing was "
                         "created") from None
    lock = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        # every file named for a number counts (ADR-0002-Use-Kafka.md, ADR-0003_x.md,
        # ADR-10000-…): only the scaffold's own shape did, and a number was taken twice
        numbers = [int(m.group(1)) for p in directory.iterdir()
                   if (m := ADR_NUMBER.match(p.name))]
        number = max(numbers, default=0) + 1
        path = directory / f"ADR-{number:04d}-{derive_slug(title)[:48].strip('-')}.md"
        adr_id = f"ADR-{number:04d}"
        text = "\n".join([
            "---", f"id: {adr_id}", f"title: {title}", "status: Proposed",
            f"date: {today.isoformat()}", "decision: ", "why: ", "affects: ", "readWhen: ",
            "supersedes: ", "---", "", f"# {adr_id}: {title}", "", "## Decision", "", "",
            "## Why", "", "", "## Affects", "", "", "## Consequences", "", "",
            "## Read when", "", "", "## Supersedes", "", ""])
        # whole and durable, or not there: a kill mid-write left a short record holding
        # the number, and an unsynced one could vanish after a crash the command outlived
        create_atomically(path, text.encode("utf-8"), mode=0o666)  # a project document:
        # readable as any file the person makes there (the umask decides), not 0600
    finally:
        os.close(lock)
    return path
