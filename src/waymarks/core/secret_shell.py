"""A password a shell is given that reads as a name in code: ``export
DB_PASS=Xiaomi_Router9  # 临时用一下，明天删``. It went to a remote model in clear: the
assignment rule (:mod:`waymarks.core.secret_checks`) keeps a value shaped as code's
dotted or snake_case name (``s3_client.token``, ``Config_V2``), which a ``NAME=VALUE``
in Python may well be; a shell has no such names, its bare word is the string itself.

- ``shell_named``: ``export NAME=VALUE``, ``set NAME=VALUE`` (cmd), ``env NAME=VALUE``,
  ``-e NAME=VALUE`` / ``--env NAME=VALUE`` (a container's), or a line starting with
  ``NAME=VALUE`` and a space (a variable before its command, a dotenv line and its
  comment); NAME in capitals, named for a credential (…PASS, …PASSWORD, …PASSWD, …PWD,
  …TOKEN, …SECRET, …KEY, …AUTH, …CREDENTIALS, up to three qualifiers after it:
  ``DB_PASSWORD_PROD``; not one saying where or what it is, ``TOKEN_FILE``, ``KEY_ID``);
  VALUE letters, digits, ``_`` and ``.``, capitals, small letters and digits all, 6
  characters or more (``Xiaomi_Router9``). A reference (``$X``, ``$(cat …)``), a quoted
  value (the assignment rule's), a variable's name in capitals (``DB_PASSWORD_DEFAULT``),
  a lower-case word (``app_user1``), a name of no digit (``Db_Password``) and a keyword
  argument in code (``dict(API_KEY=Config_V2)``) stay.

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_tokens import Rule

_NAME: Final = (r"(?P<shell_name>(?:[A-Z][A-Z0-9_]*?)?"
                r"(?:PASS|PASSWORD|PASSWD|PWD|TOKEN|SECRET|KEY|AUTH|CREDENTIALS?)"
                r"(?:_[A-Z0-9]+){0,3})")
SHELL_NAMED: Final = Rule("shell_named", "secret", lazy(
    r"(?:(?<![\w.-])(?:export|set|env)[ \t]+|(?<![\w-])(?:-e|--env)[ \t]+|(?m:^)[ \t]*)"
    + _NAME + r"=(?P<shell_named>[A-Za-z0-9_.]{6,128})(?=[ \t;]|\r?\n|\Z)", re.ASCII),
    ("PASS", "PWD", "TOKEN", "SECRET", "KEY", "AUTH", "CREDENTIAL"), hint=lazy(r"[A-Z]="))


#: a name's last part saying its value is about the credential, not it
_NOT_THE_SECRET: Final = frozenset({
    "FILE", "PATH", "DIR", "URL", "URI", "NAME", "ID", "TYPE", "LEN", "LENGTH", "ENDPOINT",
    "HOST", "PORT", "USER", "USERNAME", "HEADER", "FORMAT", "MODE", "TTL", "EXPIRY", "ARN",
    "REF", "VAR", "ENV", "PREFIX", "ALGORITHM", "ALG", "SIZE", "BITS", "VERSION"})


def shell_is_secret(match: re.Match[str], start: int, end: int) -> bool:
    """Whether the bare value a shell is given is a password: capitals, small letters and
    digits all (where it stands, first on its line or after ``export``, ``-e``, …, the
    expression has said)."""
    value = match.string[start:end]
    if match.group("shell_name").rsplit("_", 1)[-1] in _NOT_THE_SECRET:
        return False  # ``TOKEN_FILE=Token_File2``: where it is, not what
    return any(c.isupper() for c in value) and any(c.islower() for c in value) \
        and any(c.isdigit() for c in value)


def might_shell(text: str) -> bool:
    """The pre-test's part: a capital before ``=``, a needle, then the expression."""
    return "=" in text and any(needle in text for needle in SHELL_NAMED.needles) \
        and SHELL_NAMED.hint is not None and SHELL_NAMED.hint.search(text) is not None \
        and SHELL_NAMED.regex.search(text) is not None
