"""The rules of the shapes each in a module of its own (a lock's code, a date after a
password's noun, …), registered in one place: their expressions (:data:`RULES`, after the
others in :mod:`waymarks.core.secret_rules`), their checks (:data:`CHECKS`, asked by
:func:`waymarks.core.secret_checks.accepts`), those that match in fewer than 20
characters (:data:`SHORT`, :mod:`waymarks.core.secret_pretest`) and their part of the
pre-test (:func:`might_hold`). A new shape's module adds a line to each here, not to the
shared files.

Pure: no I/O, no state.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from waymarks.core.secret_codes import LOCK_CODE, code_is_secret, might_open_a_lock
from waymarks.core.secret_dated import DATED_PASSWORD, dated_is_secret, might_be_dated
from waymarks.core.secret_pairs import (
    DOTTED_PASSWORD,
    PAIR_WORKS,
    dotted_is_secret,
    might_pair,
    works_is_secret,
)
from waymarks.core.secret_shell import SHELL_NAMED, might_shell, shell_is_secret
from waymarks.core.secret_vendor import (
    PREFIXED_TOKEN,
    SENDGRID_ANY,
    might_be_vendor,
    prefixed_is_secret,
    sendgrid_is_secret,
)

RULES: Final = (LOCK_CODE, DATED_PASSWORD, SENDGRID_ANY, PREFIXED_TOKEN, DOTTED_PASSWORD,
                PAIR_WORKS, SHELL_NAMED)
#: each rule's check: whether its match (the value ``start:end``) is a credential
CHECKS: Final[dict[str, Callable[[re.Match[str], int, int], bool]]] = {
    "lock_code": code_is_secret,
    "dated_password": dated_is_secret,
    "sendgrid_any": sendgrid_is_secret,
    "prefixed_token": prefixed_is_secret,
    "dotted_password": dotted_is_secret,
    "pair_works": works_is_secret,
    "shell_named": shell_is_secret,
}
SHORT: Final = frozenset({"lock_code", "dated_password", "prefixed_token", "dotted_password",
                          "pair_works", "shell_named"})


def might_hold(text: str) -> bool:
    """Whether a rule of this registry could match ``text``: its literals first, then its
    expression where they stand (:func:`waymarks.core.secret_prose._matched_at_needles`,
    reading ``text`` ASCII-lower-cased, whose places are ``text``'s)."""
    return might_open_a_lock(text) or might_be_dated(text) or might_be_vendor(text) \
        or might_pair(text) or might_shell(text)
