"""Text a write command stores, checked before the command runs: a control character
that is not text (NUL, BEL, ESC, DEL, C1: every one but tab, line feed, carriage return,
form feed, and the separators and NEL that split lines) is refused, naming which and
where, and nothing is opened or written. Text with nothing visible in it is left to the
command (``empty``, as before).

A typed or pasted ``ESC[31m`` (or ``ESC]0;title BEL``) was stored as is and later sent to
models and to other programs reading the ledger; the CLI's own output escapes it
(:func:`waymarks.commands.render.cell`), every other reader had to. ``pin --file`` refuses
such a file's text the same way (``bad_input``: a file's content); text given on the
command line is a value, ``invalid_argument``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import wraps
from typing import Any

from waymarks.commands.results import Result, refused

#: the control characters Python's ``str.splitlines`` takes as line breaks besides those
#: of :data:`~waymarks.core.text.TEXT_CONTROLS`: the line tabulation (U+000B, the line
#: break Word and PowerPoint put in copied text for Shift+Enter), the file, group and
#: record separators and NEL (U+0085), line breaks as U+2028 is. Typed text keeps them
#: (no terminal acts on them; every view and an export show them escaped), where ``pin
#: --file`` refuses them with the other C0 and C1 characters.
BREAKS = str.maketrans(dict.fromkeys("\x0b\x1c\x1d\x1e\x85", " "))


def stray_in(params: Mapping[str, Any], stores: Mapping[str, str]) -> Result | None:
    """The refusal of the first of ``stores`` (parameter name: what it is, e.g. ``"the
    pin's text"``) whose value holds a control character that is not text; a ``nargs=-1``
    argument is checked as the words joined, as the command stores them."""
    from waymarks.core.text import stray_control, visible

    for name, what in stores.items():
        value = params.get(name)
        if isinstance(value, tuple):
            value = " ".join(v for v in value if isinstance(v, str))
        if not isinstance(value, str) or not visible(value.strip()):
            continue  # (nothing in it: the command's own `empty` answers)
        stray = stray_control(value.translate(BREAKS))
        if stray is not None:
            return refused("invalid_argument", f"{what} holds a control character that is "
                           f"not text ({stray}; a terminal's escape sequence, or a paste of "
                           "binary data?): remove it and try again; nothing was written")
    return None


def checking(function: Callable[..., Any], stores: Mapping[str, str]) -> Callable[..., Any]:
    """``function`` (a command's callback) refusing, before it runs, a value of
    ``stores`` that holds a control character that is not text (:func:`stray_in`)."""

    @wraps(function)
    def checked(**params: Any) -> Any:
        return stray_in(params, stores) or function(**params)

    return checked
