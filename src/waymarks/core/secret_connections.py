"""The credential rules of a connection string written in another syntax than a URL's: an
ODBC string's password in braces, ``Driver={…};UID=sa;PWD={…};`` (judged as an
assignment's quoted value), and Go's MySQL driver's DSN, ``USER:PASSWORD@tcp(HOST:PORT)/DB``
(``@unix(…)``, ``@udp(…)``; no scheme, so the URL rule never read it), in a
``sql.Open("mysql", "…")`` call, a ``DSN=`` line or a config. Each password went out in
clear. Part of the rule table
of :mod:`waymarks.core.secret_rules`: the rule finds the protocol's ``@tcp(…)``, and
:func:`dsn_password` reads the password back from it (to the ``:`` after the user, within
the word: an expression reading forward from every place a user may start scanned the
same run from each of them, 100 KB of ``=a:`` took a second), judged as a URL's is (a
reference, ``${PW}`` or ``%s``, or the field's own name, ``password``, holds none; one
holding an ``@``, which Go's driver allows, is read as none: a run of DSNs glued together
read as one password was redacted again at each pass).

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_tokens import Rule
from waymarks.core.secret_values import _FIELD_NAMES, is_reference

CONNECTION_RULES: Final = (
    # an ODBC connection string's password in braces, ``PWD={…};`` (``Password={…}``), as
    # a driver wants one holding ``;`` or ``}`` (``}}`` inside; not a ``{``: read to 256 at
    # each of 100 KB of ``pwd={``, 270 ms): no assignment's value starts with a brace, and
    # it went out in clear
    Rule("odbc_braced", "secret", lazy(
        r"(?<![\w-])(?:pwd|password)[ \t]*=[ \t]*\{(?P<odbc_braced>(?:[^{}\n]|\}\}){1,256}+)\}",
        re.ASCII | re.IGNORECASE), ("pwd", "password"), folded=True, anchored=True,
        wrapper=True, guard="{"),
    # (the address closed: ``@tcp(host:3306)``, ``@tcp()``)
    Rule("go_dsn", "secret", lazy(r"@(?:tcp6?|udp|unix)\([^\s()]{0,256}+\)", re.ASCII),
         ("@tcp(", "@tcp6(", "@udp(", "@unix("), anchored=True, wrapper=True, guard="@"),
)

#: how far back from the ``@`` the user and password are read
_DSN_READ: Final = 320
#: the user, at the end of what stands before the password's ``:``
_USER: Final = lazy(r"(?<![\w.:/@-])[\w.-]{1,64}\Z", re.ASCII)


def dsn_password(match: re.Match[str]) -> list[tuple[int, int]]:
    """The span of the password of the Go DSN whose protocol ``match`` found: the word
    before the ``@``, from its first ``:`` after a user (``root:…``, ``DSN=app:…``); none
    when no user stands there, the word runs past :data:`_DSN_READ` or the password is a
    reference or a field's name."""
    text, at = match.string, match.start()
    low = max(0, at - _DSN_READ)
    word = max(text.rfind(" ", low, at), text.rfind("\t", low, at), text.rfind("\n", low, at),
               text.rfind("\r", low, at), text.rfind('"', low, at), text.rfind("'", low, at),
               text.rfind("`", low, at)) + 1
    if word == 0 and low > 0:
        return []
    colon = text.find(":", word, at)
    if colon == -1 or _USER.search(text, word, colon) is None:
        return []
    password = text[colon + 1:at]
    if not password or "@" in password or is_reference(password) \
            or password.lower() in _FIELD_NAMES:
        return []
    return [(colon + 1, at)]
