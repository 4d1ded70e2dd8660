"""A path resolved to what it names, a loop of symbolic links taken as an unreadable file.

``Path.resolve()`` raises ``RuntimeError`` on a loop of links on Python 3.11 and 3.12
(``OSError`` otherwise), which a caller catching ``OSError`` alone let through: one
looping link in the personal memory folder or a project's engineering docs stopped every
plan and hook. Every check of where a link leads goes through :func:`resolved`.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def resolved(path: Path) -> Path | None:
    """``path`` with every link followed, else ``None``: a loop of links, or a name that
    cannot be looked at (the caller treats it as a file it cannot read)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a loop of links (Python < 3.13)
        return None


def leads_within(path: Path, root: Path) -> bool:
    """Whether ``path``, its links followed, is ``root`` or under it (``root``'s links
    followed too); a loop of links leads nowhere, so never."""
    target, base = resolved(path), resolved(root)
    return target is not None and base is not None and target.is_relative_to(base)
