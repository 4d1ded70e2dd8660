"""The forms a text takes marked whole at a level (``[ds4:local-only]x[/ds4:local-only]``),
for finding a text stored marked beside the same text typed plain: one indexed lookup of
every form a write or a learned claim compares (:mod:`waymarks.core.decisions`,
:mod:`waymarks.service.own_claims`)."""

from __future__ import annotations

from typing import Final

#: the levels a marker around a whole text raises it to (``normal`` raises nothing)
_WRAPPING: Final = ("internal", "sensitive", "local-only")
#: how a text marked whole may sit in its tags once normalized: a space inside each tag,
#: and the sentence's end (dropped from a plain text's form, kept before a closing tag)
_INSIDE: Final = (("", ""), ("", "."), ("", "!"), (" ", " "), (" ", ". "), (" ", "! "))


def marked_forms(norm: str) -> list[str]:
    """The normalized forms (:func:`~waymarks.core.text.normalize`) of the text whose form
    is ``norm`` marked whole at a level: ``[ds4:local-only]x[/ds4:local-only]``, with a
    space inside the tags or a final period or ``!`` before the closing one."""
    return [f"[ds4:{level}]{lead}{norm}{end}[/ds4:{level}]"
            for level in _WRAPPING for lead, end in _INSIDE]
