"""What a provider ID may hold: one check for every place one comes from (the
``[privacy]`` table of a configuration file, ``--provider`` on the command line, a tool's
or a plan's provider, the model Pi reports to its bridge).

A provider ID is a name matched exactly (trimmed, case-insensitive) against the
``[privacy]`` table, and shown in ``privacy``, ``config show``, plans' manifests and
notes. A character that is not seen as it is read cannot be part of one: a control
character (ESC, a line break: ``x\\x1b[2J`` was planned for and kept in the manifest),
a format character (the bidirectional overrides and isolates, which reorder what is
shown, and the zero-width ones: ``ollama\\u200b`` printed as ``ollama`` while it matched
no rule for it), a line or paragraph separator, a surrogate or a private-use character.
Such an ID names no provider a person could have meant, so it is refused where it is
read, naming what it holds; the configuration's refusal also names its file and line.
"""

from __future__ import annotations

import unicodedata
from typing import Final

#: Unicode categories no provider ID may hold, with how a refusal names them
_REFUSED: Final = {"Cc": "a control character", "Cf": "an invisible (bidirectional or "
                   "zero-width) formatting character", "Zl": "a line separator",
                   "Zp": "a paragraph separator", "Cs": "a surrogate",
                   "Co": "a private-use character"}


def provider_id_problem(value: str) -> str | None:
    """What in ``value`` keeps it from being a provider ID (``"holds a control character
    (U+001B)"``), or ``None`` when it may be one; a blank ID is the caller's to refuse (an
    empty one means "none" in some places)."""
    if value.isprintable():  # every refused category is not printable: the common case
        return None
    for ch in value:
        what = _REFUSED.get(unicodedata.category(ch))
        if what is not None:
            return f"holds {what} (U+{ord(ch):04X})"
    return None
