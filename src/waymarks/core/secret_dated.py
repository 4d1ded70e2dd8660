"""A password that reads as a date or a long version, stated after a password's noun and a
verb, or as a login's second half: "Grafana admin 密码就是 2024.10.01，国庆那天设的",
"jenkins login is admin / 2023-11-04 , the day they set it up", "the wifi password is
20.11.2019". Each went to a remote model in clear: the rules after a password's noun
(:mod:`waymarks.core.secret_deny`, :mod:`waymarks.core.secret_logins`) keep a version or a
date, which after "the password was rotated on" is prose; right after the verb, or after
a login's user and ``/``, it is the value (a birthday, the day a system was set up).

- ``dated_password``: a password's noun (password, passphrase, passcode, passwd, pwd, pw;
  密码, 密碼, 口令), up to five words after "for", "of" or "on", then is, was, are, became,
  ``:``, ``=``, ``->``, "is now/still/just/literally", set/changed/reset to (是, 就是, 为,
  ``：``, 改成, 设为, 设置为), or a login's word (login, log in, sign in, creds,
  credentials, account; 账号, 用户名, 登录), an optional is/are/``:``, a user and ``/``;
  then the value: numbers parted by ``-``, ``.`` or ``/`` (two to four parts), 6 digits
  at least, ending there (punctuation, a space, the line's end; not a time after it, a
  log's "2024-01-01 10:00", nor more of a version, "1.2.3-rc1").

Not read: a date after any other word ("the password was rotated on 2024-10-01", "the
password expires 2024-12-31", "密码有效期到 2024-12-31"), a short version ("pw is 1.2"),
a pair with no login's word before it (``admin/2023-11-04`` is a folder as often).

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_tokens import Rule

#: a password's noun, and up to five words after "for", "of" or "on" (secret_pairs' too)
NOUN: Final = r"(?:(?<![A-Za-z])pass(?:word|wd|phrase|code)|(?<![A-Za-z0-9])pwd?)s?"
QUALIFIER: Final = r"(?: (?:for|of|on)(?: [\w.@-]{1,64}){1,5}?)?"
_VERB: Final = (r"(?:[ \t]+(?:is|was|are|were|became|remains|(?:was |is |got )?(?:set|changed"
                r"|reset|updated|rotated) to)(?:[ \t]*:)?|[ \t]*(?:[:=]|->|\u2192))[ \t]*"
                r"(?:(?:now|still|just|literally|simply|actually)[ \t]+)?")
_CJK_NOUN: Final = r"(?:密码|密碼|口令)"
_CJK_VERB: Final = (r"[ \t\u3000]*(?:现在|現在|目前|统一|統一|一律|还|仍然|仍)?"
                    r"(?:就是|是|为|為|[:：=＝]|(?:改|设|設|设置|設置|重置|更新)(?:成|为|為)了?)"
                    r"[ \t\u3000]*")
#: a login's word, then is/are or a colon (secret_pairs' too), and (here) a user and ``/``
LOGIN_WORD: Final = (r"(?:(?<![A-Za-z])(?:log ?in|sign ?in|creds|credentials|account)"
                     r"(?:[ \t]+(?:is|are|was|were))?[ \t]*:?"
                     r"|(?:账号|帳號|帐号|用户名|用戶名|登录|登錄)[ \t]*[:：]?)[ \t]*")
_LOGIN: Final = LOGIN_WORD + r"[A-Za-z][\w.@-]{0,31}[ \t]*/[ \t]*"
#: the needles of a rule reading after those nouns and words
NEEDLES: Final = ("pass", "pw", "密码", "密碼", "口令", "log", "sign", "cred", "account", "账号",
                  "帳號", "帐号", "用户名", "用戶名", "登录", "登錄")
#: the value: numbers parted by ``-``, ``.`` or ``/``, two to four of them, not going on
#: as a word, a longer version or a time does
_VALUE: Final = (r"(?P<dated_password>[0-9]{1,4}(?:[-./][0-9]{1,4}){1,3})"
                 r"(?![\w.:/-]*[\w])(?![ \t]*[T ]?[0-9]{1,2}:[0-9]{2})")

DATED_PASSWORD: Final = Rule("dated_password", "secret", lazy(
    r"(?:" + NOUN + QUALIFIER + _VERB + "|" + _CJK_NOUN + _CJK_VERB + "|" + _LOGIN + ")"
    + _VALUE, re.ASCII | re.IGNORECASE),
    NEEDLES, folded=True, anchored=True, wrapper=True)

#: a date or version this long at least (``2024.10.01``, ``20.11.2019``; not ``1.2``)
_DIGITS_MIN: Final = 6


#: a qualifier that tells what happened to the password, and when, before a colon: the
#: date is that event's ("… expires at: 2024-12-31", "… was emailed on: 2024-05-01")
_EVENT: Final = lazy(r"(?<![A-Za-z])(?:expir[a-z]*|valid|due|emailed|sent|created|changed"
                     r"|rotated|updated|issued|generated|set|last|since|until|before|after)"
                     r"(?![A-Za-z])[^:=]*[ \t]*(?:[:=]|->|\u2192)", re.ASCII | re.IGNORECASE)


def dated_is_secret(match: re.Match[str], start: int, end: int) -> bool:
    """Whether the value ``DATED_PASSWORD`` matched is long enough to be a password: 6
    digits at least, and not after a qualifier and a colon that tell when something
    happened to it (:data:`_EVENT`)."""
    if sum(c.isdigit() for c in match.string[start:end]) < _DIGITS_MIN:
        return False
    return _EVENT.search(match.string, match.start(), start) is None


#: two numbers parted by ``-``, ``.`` or ``/``, which every match holds
_NUMBERS: Final = lazy(r"[0-9][-./][0-9]")


def might_be_dated(text: str) -> bool:
    """The pre-test's part: two numbers parted, then the expression at a needle."""
    from waymarks.core.secret_prose import _matched_at_needles

    return _NUMBERS.search(text) is not None and _matched_at_needles((DATED_PASSWORD,), text)
