"""A code that opens a door, arms an alarm, opens a safe or joins a call, written as its
digits right after what it opens, no verb: "arm/disarm code 4826", "conference bridge pin
889 2071 then #", "Loading dock keypad: 8 0 6 1 then enter", "档案室保险柜密码 37-12-58".
Each went to a remote model in clear: the prose rule (:mod:`waymarks.core.secret_prose`)
wants a verb after a lock's code ("the gate code is 558213"), and reads one run of digits,
not digits spaced or dashed as a keypad's, a bridge's PIN or a safe's combination are
written.

- ``lock_code``: a device's or a call's word (alarm, door, gate, safe, lock, keypad,
  locker, garage, entry, access, intercom, lockbox, padlock, mailbox, bridge, conference,
  dial-in, voicemail, moderator, participant; 保险柜, 门禁, 门锁, 密码锁, 车库, 报警器, 电话会议,
  语音信箱, 储物柜), at most one word after it, then code, PIN, passcode, combination or
  combo (密码, 口令, PIN, 码; after a Chinese word a space may stand before it), an
  optional verb or separator (is, was, now, ``:``, ``=``,
  ``-``, 是, 为, 改成), then the digits: one run, or runs parted by single spaces or dashes
  ("889 2071", "8 0 6 1", "37-12-58"), 4 to 12 digits in all; a keypad, lockbox or
  padlock alone before its digits ("keypad: 8061"), a combination or combo only with a
  separator ("combination: 12-34-56"). A ``#`` or ``*`` after the digits stays.

Not read: a code of no lock's word ("status code 404", "error code E1234", "exit code
137", "zip code 94107", "area code 415", "code review"), a bank's or card's PIN with no
verb (the project's own flows keep "Bank PIN 4321" marked local-only: docs/privacy.md), a
code with no digits ("ask Marco for the alarm code"), a version or a decimal ("bridge pin
3.2.1"), a year that does not end its clause ("fire alarm code 2019 edition").

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_tokens import Rule

#: what a code opens, arms or joins (English), each a needle
_DEVICES: Final = ("alarm", "door", "gate", "safe", "lock", "keypad", "locker", "garage",
                   "entry", "access", "unlock", "disarm", "intercom", "lockbox", "padlock",
                   "mailbox", "bridge", "conference", "dial-in", "dialin", "voicemail",
                   "moderator", "participant")
#: the same in Chinese (a safe, an access control, a door lock, a combination lock, a
#: garage, an alarm, a phone conference, a voicemail box, a locker)
_CJK_DEVICES: Final = ("保险柜", "保险箱", "保險櫃", "保險箱", "门禁", "門禁", "门锁", "門鎖",
                       "密码锁", "密碼鎖", "车库", "車庫", "报警器", "報警器", "电话会议",
                       "電話會議", "语音信箱", "語音信箱", "储物柜", "儲物櫃")
#: a keypad's, lockbox's or padlock's digits follow its word alone ("keypad: 8061")
_ALONE: Final = r"(?:keypad|lockbox|padlock)s?(?:[ \t]*[:=#-][ \t]*|[ \t]+)"
_NOUN: Final = r"(?:pass[ ]?code|code|pin|combination|combo)s?"
_SEPARATOR: Final = (r"(?:[ \t]+(?:is|was|are|now|is[ \t]+now|remains)[ \t]*:?[ \t]*"
                     r"|[ \t]*(?:[:=#]|--?|->|\u2013|\u2014)[ \t]*|[ \t]+)")
#: the digits: one run, or runs parted by a space or a dash (a keypad's "8 0 6 1", a
#: bridge's "889 2071", a safe's "37-12-58"); not glued to a word, a decimal or a time
_DIGITS: Final = (r"(?P<lock_code>[0-9]{1,8}(?:(?:[ ]|[ \t]?-[ \t]?)[0-9]{1,8}){1,7}"
                  r"|[0-9]{4,12})"
                  r"(?=[#*]?(?:[^\w.:/-]|[.:,;!?](?:\s|\Z)|\Z))")
_CJK_NOUN: Final = r"(?:的)?(?:密码|密碼|口令|PIN|pin|code|码|碼)"
_CJK_SEPARATOR: Final = (r"[ \t\u3000]*(?:就是|是|为|為|改成了?|改为|改為|[:：=＝])?"
                         r"[ \t\u3000]*")

LOCK_CODE: Final = Rule("lock_code", "secret", lazy(
    r"(?:(?<![A-Za-z])(?:(?:" + "|".join(_DEVICES) + r")(?:[ \t][A-Za-z]{2,12})?[ \t-]?"
    + _NOUN + _SEPARATOR + "|" + _ALONE + r"|(?:combination|combo)[ \t]*[:=][ \t]*)"
    # (a space may part a Chinese word and its noun: "车库门禁 PIN 4826")
    r"|(?:" + "|".join(_CJK_DEVICES) + r")[ \t\u3000]?" + _CJK_NOUN + _CJK_SEPARATOR + ")"
    + _DIGITS,
    re.ASCII | re.IGNORECASE),
    (*_DEVICES, "combination", "combo", *_CJK_DEVICES), folded=True, anchored=True,
    wrapper=True)

#: a code's digits in all, and a year's four (1900-2099)
_CODE_DIGITS: Final = (4, 12)
_YEAR: Final = lazy(r"(?:19|20)[0-9]{2}")
#: what ends a clause after the digits (punctuation, the line's end, Chinese punctuation)
_CLAUSE_END: Final = lazy(r"[ \t]*(?:[#*]|[.,;!?)\]]|\r?\n|\Z|[\u3000-\u303f\uff01-\uff1f])")


#: a plural noun before the digits ("pins", "codes"): a board's pins or a range of codes,
#: unless a separator says what they are ("door codes: 4826")
_PLURAL: Final = lazy(r"(?:code|pin|combination|combo)s(?![A-Za-z])(?P<said>[ \t]*[:=]"
                      r"|[ \t]+(?:is|are|was|were)(?![A-Za-z]))?", re.ASCII | re.IGNORECASE)
#: a date or a span of years ("2024-05-01", "2023-2024"), not a code
_DATED: Final = lazy(r"(?:19|20)[0-9]{2}-(?:[01][0-9]-[0-3][0-9]|(?:19|20)[0-9]{2})")
#: a count and its unit after the digits ("code 1000 lines", "1200 events per second")
_COUNTED: Final = lazy(r"[ \t]+(?:lines?|bytes?|[kmg]?b|ms|seconds?|minutes?|hours?|days?"
                       r"|times|events?|requests?|rows?|files?|tests?|errors?|px|loc"
                       r"|percent|%)(?![A-Za-z])", re.ASCII | re.IGNORECASE)


def code_is_secret(match: re.Match[str], start: int, end: int) -> bool:
    """Whether the digits ``LOCK_CODE`` matched are a code: 4 to 12 in all, and a year's
    four only where they end their clause ("alarm code 2019." goes; "the fire alarm code
    2019 edition" names a standard). After a plural noun only one run said to be it ("door
    codes: 4826"; "the H-bridge pins 5 6 9 10", "Access error codes 4001-4099" are a board's
    pins and a range); neither a date nor a count with its unit ("code 1000 lines")."""
    value = match.string[start:end]
    digits = sum(c.isdigit() for c in value)
    if not _CODE_DIGITS[0] <= digits <= _CODE_DIGITS[1]:
        return False
    plural = _PLURAL.search(match.string, match.start(), start)
    if plural is not None and (plural.group("said") is None or not value.isdigit()):
        return False
    if _DATED.fullmatch(value) is not None or _COUNTED.match(match.string, end) is not None:
        return False
    if _YEAR.fullmatch(value) is not None:
        return _CLAUSE_END.match(match.string, end) is not None
    return True


#: a digit, which every match holds (a text with none pays a search only)
_ANY_DIGIT: Final = lazy(r"[0-9]")


def might_open_a_lock(text: str) -> bool:
    """The pre-test's part: a digit, then the expression at a device's word."""
    from waymarks.core.secret_prose import _matched_at_needles

    return _ANY_DIGIT.search(text) is not None and _matched_at_needles((LOCK_CODE,), text)
