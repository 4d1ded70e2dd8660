"""A login's password the other rules read as a name: one of words and digits joined by
dots, and a user and password said to still work. "vpn creds: jli / ferret.Mango.88",
"旧密码 … 已经停用，新密码 Xin_Mima.2026", "Unifi controller: ubnt / ubnt still works on the
old AP": each went to a remote model in clear (a dotted value reads as a file's, a
module's or a host's name to :mod:`waymarks.core.secret_values`; a pair with no login's
word before it and no shipped account is a path or a role list to
:mod:`waymarks.core.secret_logins`).

- ``dotted_password``: after a login's word and a user and ``/`` (login, log in, sign in,
  creds, credentials, account; 账号, 用户名, 登录), or a password's noun (password,
  passphrase, passcode, passwd, pwd, pw; 密码, 密碼, 口令) and a verb, a colon or a space
  (is, was, became, set/changed/reset to; 是, 为, ``：``, 改成), a value of parts joined by
  ``.`` (and ``-`` or ``_``), a dot at least: capitals, small letters and digits all, 6
  characters or more, its last part no lower-case word (a file's extension, a domain, an
  attribute: ``config.Prod2.yaml``, ``api.Example2.com`` stay), nor a version
  (``v1.2.3-Beta4``). Not after ``=``: code's
  ``password = cfg.Db2.password``.
- ``pair_works``: a user and a password side by side, ``/`` between, then "(still) works",
  "worked", "logs in", "gets you in", "lets me in": the second half the first again
  (``ubnt / ubnt``, ``admin/admin``: both halves go, the user telling the password), a
  system's default (``pi / raspberry``), or strong after a shipped account. "read/write
  still works", "linux/arm64 works", "CI/CD works" stay. (A pair with no word of it
  working is the login rule's: "the default login is admin/admin" is redacted there, as
  at eaddfd3d.)

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_dated import LOGIN_WORD, NEEDLES, NOUN, QUALIFIER
from waymarks.core.secret_tokens import Rule

_VERB: Final = (r"(?:[ \t]+(?:is|was|are|were|became|remains|(?:was |is |got )?(?:set|changed"
                r"|reset|updated|rotated) to)(?:[ \t]*:)?[ \t]+"
                r"(?:(?:now|still|just|literally|simply|actually)[ \t]+)?"
                r"|[ \t]*(?::|->|\u2192)[ \t]*|[ \t]+)")
_CJK: Final = (r"(?:密码|密碼|口令)[ \t\u3000]*(?:现在|現在|目前|还|仍然|仍)?"
               r"(?:就是|是|为|為|[:：]|(?:改|设|設|设置|設置|重置|更新)(?:成|为|為)了?)?"
               r"[ \t\u3000]*")
_LOGIN: Final = LOGIN_WORD + r"[A-Za-z][\w@-]{0,31}[ \t]*/[ \t]*"
#: parts of letters and digits joined by ``.``, ``-`` or ``_``, one ``.`` at least
_DOTTED: Final = (r"(?P<dotted_password>[A-Za-z0-9]{2,64}(?:[_-][A-Za-z0-9]+)*"
                  r"(?:\.[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)*)+)"
                  r"(?=[.,;:)!?]*(?:[^\w.@/-]|\Z))")

DOTTED_PASSWORD: Final = Rule("dotted_password", "secret", lazy(
    r"(?:" + NOUN + QUALIFIER + _VERB + "|" + _CJK + "|" + _LOGIN + ")" + _DOTTED,
    re.ASCII | re.IGNORECASE),
    NEEDLES, folded=True, anchored=True, wrapper=True)

_MIN: Final = 6
_LOWER_WORD: Final = lazy(r"[a-z]+")
#: a version's head: numbers parted by dots, a ``v`` before them or not
_VERSION: Final = lazy(r"[vV]?[0-9]+\.[0-9]+")


def dotted_is_secret(match: re.Match[str], start: int, end: int) -> bool:
    """Whether a dotted value is a password: 6+ characters, capitals, small letters and
    digits all, its last part no lower-case word (an extension, a domain, an attribute)."""
    value = match.string[start:end]
    if _VERSION.match(value) is not None:
        return False  # "v1.2.3-Beta4", "2.0.1-RC1": a version's numbers first
    return len(value) >= _MIN and any(c.isupper() for c in value) \
        and any(c.islower() for c in value) and any(c.isdigit() for c in value) \
        and _LOWER_WORD.fullmatch(value.rsplit(".", 1)[1]) is None


#: "still works", "worked", "logs you in", "gets me in", "lets us in"
_WORKS: Final = (r"(?:(?:still|also|now|both)[ \t]+)?(?:works|worked|work"
                 r"|logs?[ \t]+(?:(?:you|me|us)[ \t]+)?in|gets?[ \t]+(?:you|me|us)[ \t]+in"
                 r"|lets?[ \t]+(?:you|me|us)[ \t]+in)(?![A-Za-z])")
PAIR_WORKS: Final = Rule("pair_works", "secret", lazy(
    # the same word twice: both halves (the user, the password again, tells it)
    r"(?<![\w./:@-])(?:(?P<pair_same>(?P<pair_one>[A-Za-z][\w@-]{2,31})[ \t]*/[ \t]*"
    r"(?P=pair_one))|(?P<pair_user>[A-Za-z][\w@-]{0,31})[ \t]*/[ \t]*"
    r"(?P<pair_works>[!#-&(-.0-\[\]-~]{3,64}?))[.,;]?[ \t]+" + _WORKS,
    re.ASCII | re.IGNORECASE),
    ("work", "log", "get", "let"), folded=True, hint=lazy(r"/"))


def works_is_secret(match: re.Match[str], start: int, end: int) -> bool:
    """Whether the second half of a pair said to work is a password: the first half again,
    a system's default, or strong (prose's test) after a shipped account."""
    from waymarks.core.secret_logins import _USERS
    from waymarks.core.secret_prose import DEFAULT_PASSWORDS
    from waymarks.core.secret_values import prose_value_is_secret

    if match.lastgroup == "pair_same":
        return True  # "ubnt / ubnt still works": the word is the login, both halves of it
    user, value = match.group("pair_user").lower(), match.string[start:end]
    if not any(c.isalnum() for c in value):
        return False
    return value.lower() == user or value.lower() in DEFAULT_PASSWORDS or (
        user in _USERS and prose_value_is_secret(value, quoted=False, pin=False))


#: a ``/`` between two runs, then a space: what a pair said to work holds
_PAIR_HINT: Final = lazy(r"[A-Za-z0-9][ \t]*/[ \t]*[!-~]{3}")


def might_pair(text: str) -> bool:
    """The pre-test's part for both rules: a dot, then the expression at a needle; a ``/``
    and a word of working, then the expression."""
    from waymarks.core.secret_prose import _matched_at_needles

    if "." in text and _matched_at_needles((DOTTED_PASSWORD,), text):
        return True
    return "/" in text and any(needle in text.lower() for needle in PAIR_WORKS.needles) \
        and _PAIR_HINT.search(text) is not None and PAIR_WORKS.regex.search(text) is not None
