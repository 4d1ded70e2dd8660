"""How the values of claim signatures (:mod:`waymarks.core.contradiction`) compare: the
kinds of a value, a bare number as the amount of a measure, and numbers written in words.
Pure."""

from __future__ import annotations

import re
from collections.abc import Iterable
from fractions import Fraction
from itertools import pairwise
from typing import Final

from waymarks.core.claim_denials import changed_from
from waymarks.core.claim_schedules import every_period
from waymarks.core.claim_terms import SECONDS
from waymarks.core.lazy_re import lazy

PLAIN_NUMBER: Final = lazy(r"\d+(?:\.\d+)*")
#: a measure's amount: a duration's and a size's are a fraction as Python writes one
#: ("d:3/2s" is 1.5 seconds; read up to the slash, it was 3)
_LEADING_NUMBER: Final = lazy(r"\d+(?:\.\d+|/\d+)?")

#: a word character as a value's edges and parts know one: a letter or digit of any script
#: but Chinese, Japanese kana and Korean Hangul (a Chinese character is ``\w`` to Python's
#: re, and a value typed right after one, "地址是https://…", "镜像是python:3.12-slim",
#: "日期是2026-12-20", "ホストはdb.internalです", was cut to a fragment or missed, unlike
#: the same value after a space); ASCII alone cut a path or URL at its first other letter
#: ("/srv/données/app" was "/srv/donn" and "es/app", and agreed with "/srv/données/web")
_NOT_HAN_WORD: Final = (
    r"[^\W\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7a3]")


def unhan(pattern: str) -> str:
    """``pattern`` with each word class (``\\w``), alone or in a character class, as
    :data:`_NOT_HAN_WORD`."""
    pattern = re.sub(r"\[\\w([^\]]*)\]",
                     lambda m: f"(?:{_NOT_HAN_WORD}|[{m.group(1)}])", pattern)
    return pattern.replace("\\w", _NOT_HAN_WORD)


#: the first character of :data:`_NOT_HAN_WORD`'s ranges: a text of none at or past it
#: holds no character the class leaves out
_FIRST_HAN: Final = "\u3040"


class WordPatterns:
    """An expression compiled on first use (:func:`~waymarks.core.lazy_re.lazy`) as
    written and with :func:`unhan`'s word class, each when a text first needs it.

    Why: Python's re compiles each copy of the class by walking its ranges (~1.2 ms a
    copy; the value expression of :mod:`waymarks.core.contradiction` holds 35, 37-77 ms
    of CPU at every Claude Code hook that signed a personal index line). In a text with
    no character at or past :data:`_FIRST_HAN`, ``\\w`` and the class match the same
    characters, so the expression as written (1.5 ms) finds exactly the same matches
    there. What must stay true: :meth:`for_text` answers with the pattern of the text it
    is used on (``tests/recall/test_contradiction_patterns.py`` compares both)."""

    def __init__(self, pattern: str) -> None:
        self.source = pattern
        self._plain = lazy(pattern)
        self._unhan = lazy(unhan(pattern))

    def for_text(self, text: str) -> re.Pattern[str]:
        """The compiled expression that reads ``text`` (``\\w`` where it is the class)."""
        return self._plain if max(text, default="") < _FIRST_HAN else self._unhan


#: numbers written in words, as digits ("one" is left alone: mostly a pronoun)
NUMBER_WORDS: Final[dict[str, str]] = {
    **{word: str(n) for n, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split())
       if n >= 2},
    "fifteen": "15", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50",
    "sixty": "60", "ninety": "90", "half a minute": "30 seconds",
    "half an hour": "30 minutes"}
_UNIT_WORD: Final = (r"(?:milliseconds?|seconds?|minutes?|hours?|days?|weeks?|times"
                     r"|[kmgt]i?b|bytes?|percent)\b")
_NUMBER_WORD: Final = lazy(
    rf"(?<![\w-])(?:({'|'.join(sorted(NUMBER_WORDS, key=len, reverse=True))})(?![\w-])"
    rf"(?=\s*(?:[.;,!?]|$)| ?{_UNIT_WORD})|(half an?|one|an?)(?= {_UNIT_WORD}))")
#: what "a" follows where it is "per" ("twice a minute", "100 requests a day")
_PER_A: Final = lazy(r"(?:\b(?:once|twice|thrice|times)|\d+(?: [a-z]+)?) $")


def spelled(text: str) -> str:
    """``text`` with a number written in words as digits where it is a value: before a
    unit or at the end of its clause ("thirty seconds", "the retry count is three.";
    "half a minute" is 30 seconds); "one" and "a" before a unit only ("kept for one
    week", "expires after an hour": one of it; "the fast one", "twice a minute" as they
    are). Read as words, they agreed with nothing and were refused beside the same value
    in digits."""
    if not _NUMBER_WORD.search(text):
        return text
    return _NUMBER_WORD.sub(_as_digits, text)


def _as_digits(match: re.Match[str]) -> str:
    if match.group(1):
        return NUMBER_WORDS[match.group(1)]
    if match.group(2)[:4] == "half":
        return "0.5"  # "half a second" (read as "half 1 second", it was one second)
    if match.group(2) != "one" and _PER_A.search(  # (the words right before it only:
            match.string, max(0, match.start() - 40), match.start()):  # from 0, quadratic)
        return match.group(2)
    return "1"


#: a frequency in words ("twice a day", "3 times per week", "once every hour"): how many
#: times, "a", "an", "per", "each" or "every", and a time unit of :data:`PER`'s
_FREQUENCY: Final = lazy(
    r"\b(once|twice|thrice|(\d+) times) (?:an?|per|each|every) "
    r"(seconds?|minutes?|hours?|days?|weeks?)\b")
_TIMES: Final = {"once": "1", "twice": "2", "thrice": "3"}
#: "hourly", "daily", "nightly" or "weekly" where it says how often (the end of its clause,
#: or before the time: "runs daily at 02:00"), not before the noun it names ("the daily
#: backup" is which backup)
_EVERY: Final = lazy(r"\b(hour|dai|night|week)ly(?=\s*(?:[.;,!?]|$)| (?:at|on|from|between) )")
_EVERY_UNIT: Final = {"hour": "hour", "dai": "day", "night": "day", "week": "week"}


def frequencies(text: str) -> str:
    """``text`` with a frequency in words as a rate ("twice a day" is "2 per day", "3 times
    every week" "3 per week", "runs daily" "1 per day"): read as words, "runs twice a day"
    stated no value, so
    "runs twice a week" was written beside it, both active (no "is": no derived key
    either). After :func:`spelled` ("three times a week" is "3 times a week" by then)."""
    if "ly" in text:  # ("runs daily" is "runs 1 per day")
        text = _EVERY.sub(lambda m: f"1 per {_EVERY_UNIT[m.group(1)]}", text)
    if "once" in text or "twice" in text or "thrice" in text or "times" in text:
        text = _FREQUENCY.sub(
            lambda m: f"{m.group(2) or _TIMES[m.group(1)]} per {m.group(3)}", text)
    # ("every night" is nightly, "every sunday" and "on sundays" once a week)
    return every_period(text) if "every" in text or "days" in text or "每" in text else text


#: a rate's time unit after a value and perhaps a count noun ("100 requests per minute"),
#: or after a slash ("100 req/s", "50 MB/s": read as a path, "req/s" was a value both
#: claims shared, so "200 req/s" agreed with "100 req/s"); a number and its slash unit
#: glued ("100/min") are matched as a path, one value; after a verb, a number before one is
#: the rate, no name (:func:`waymarks.core.claim_names.identifier`)
PER: Final = lazy(
    r"(?: ([a-z]+))? per (seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?)\b"
    r"|(?: ?([a-z]+))?/(s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|d|days?)(?![\w/-]|\.\w)")


#: a number in thousands ("10k", "1.5k"; folded, so "10K" too): a letter glued to it
_KILO: Final = lazy(r"(?<![\w.])(\d+(?:\.\d+)?)k(?!\w|\.\d)")


def thousands(text: str) -> str:
    """``text`` with a number in thousands as its digits ("10k" is 10000, "1.5k" 1500).
    Read as written, "10k" was no value: the claim had no signature, and the replay
    rule's shared key refused "The batch size is 10000." beside "The batch size is
    10k.", the same fact."""
    if "k" not in text:
        return text
    return _KILO.sub(_kilo, text)


def _kilo(match: re.Match[str]) -> str:
    number = Fraction(match.group(1)) * 1000
    return str(number) if number.denominator == 1 else match.group(0)  # "1.2345k": as is


#: a part of a duration written in two or more units ("1 minute 30 seconds", "1h30m",
#: "1 分钟 30 秒"): an amount and a unit of :data:`SECONDS`, longest first; the parts are
#: written together or joined by "and", never by a comma, which separates two durations
#: ("The connect timeout is 5m, 30s is the read timeout.", "1h, 5m for negative entries")
_DURATION_UNITS: Final = "|".join(sorted(SECONDS, key=len, reverse=True))
_ONE_PART: Final = lazy(rf"(\d+(?:\.\d+)?) ?({_DURATION_UNITS})(?![a-z])")
_DIGIT: Final = lazy(r"\d")
_COMPOUND_DURATION: Final = lazy(
    rf"(?<![\w.])\d+(?:\.\d+)? ?(?:{_DURATION_UNITS})(?![a-z])"
    rf"(?:(?: and | )?\d+(?:\.\d+)? ?(?:{_DURATION_UNITS})(?![a-z]))+")


def durations(text: str) -> str:
    """``text`` with a duration written in two or more units, each smaller than the one
    before, as its sum in seconds ("1 minute 30 seconds" is "90 seconds", "1h30m" 5400).
    Read part by part, it stated two values, neither the sum, and was refused beside the
    same duration in one unit."""
    if _DIGIT.search(text) is None:  # (each character looked at in C, not in Python)
        return text
    return _COMPOUND_DURATION.sub(_summed, text)


def _summed(match: re.Match[str]) -> str:
    parts = [(Fraction(p.group(1)), SECONDS[p.group(2)])
             for p in _ONE_PART.finditer(match.group(0))]
    if any(later >= earlier for (_, earlier), (_, later) in pairwise(parts)):
        return match.group(0)  # no descending units: no one duration
    total = sum(amount * unit for amount, unit in parts)
    if total.denominator == 1:
        return f"{total} seconds"
    return f"{total * 1000} ms" if (total * 1000).denominator == 1 else match.group(0)


#: a date written in Chinese ("2026年12月20日", "2026 年 12 月 20 号")
_HAN_DATE: Final = lazy(r"(?<!\d)(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")


#: a rate written in Chinese, its time unit first, of times or things counted ("每分钟
#: 100 次", "每秒 2 个请求"); not a time ("每天 3:00") nor a measure ("每天 2 GB")
_HAN_RATE: Final = lazy(r"每\s*(秒钟|秒|分钟|小时|天|周)\s*(\d+(?:\.\d+)?)"
                        r"(?=\s*(?:[次个条项封笔人。，,；;]|$))")
_HAN_PER: Final = {"秒钟": "second", "秒": "second", "分钟": "minute", "小时": "hour",
                   "天": "day", "周": "week"}


def dated(text: str) -> str:
    """``text`` with a date written in Chinese or English as an ISO date ("2026年12月20日"
    and "December 20, 2026" are 2026-12-20): read as numbers, it was another value than
    the same date written 2026-12-20, and agreed with another day of the same month
    (sharing 2026 and 12); and a rate written in Chinese as the English one
    ("每分钟 100 次" is "100 per minute 次"): read as a plain number,
    "每小时 6000 次" was another value than "每分钟 100 次"."""
    if "每" in text:
        text = _HAN_RATE.sub(lambda m: f"{m.group(2)} per {_HAN_PER[m.group(1)]} ", text)
    if _MONTH_HINT.search(text) is not None:
        text = _MONTH_DATE.sub(_iso_month_date, text)
    if "from " in text:
        text = _PERIOD.sub(_period, text)
    if "年" not in text:
        return text
    return _HAN_DATE.sub(
        lambda m: f"{m.group(1)}-{int(m.group(2)):02d}-{int(m.group(3)):02d}", text)


#: a date written in English, folded ("december 20, 2026", "dec. 20th 2026", "20
#: december 2026"): read as two numbers, it was no other value than 2026-12-18
_MONTHS: Final = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                  "dec")
_MONTH: Final = (r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?"
                 r"|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_MONTH_HINT: Final = lazy(r"\d \w|[a-z]\.? \d")
_MONTH_DATE: Final = lazy(
    rf"(?<![\w-])(?:{_MONTH}\.? (\d{{1,2}})(?:st|nd|rd|th)?,? (\d{{4}})"
    rf"|(\d{{1,2}})(?:st|nd|rd|th)? {_MONTH}\.?,? (\d{{4}}))(?![\w-])")


#: a period from one ISO date to another ("from 2026-12-20 to 2027-01-05"): one value,
#: ISO's interval (read as two dates, either in common was an agreement)
_PERIOD: Final = lazy(r"\bfrom (\d{4}-\d{2}-\d{2}) (?:to|until|till|through|thru) "
                      r"(\d{4}-\d{2}-\d{2})(?![\w/-])")


def _period(match: re.Match[str]) -> str:
    if changed_from(match.string, match.start(1)):
        return match.group(0)  # "moved from 2026-12-20 to …": a change, its first denied
    return f"from {match.group(1)}/{match.group(2)}"


def _iso_month_date(match: re.Match[str]) -> str:
    month, day, year = (match.group(1, 2, 3) if match.group(1)
                        else (match.group(5), match.group(4), match.group(6)))
    number = _MONTHS.index(month[:3]) + 1
    if not 1 <= int(day) <= 31:
        return match.group(0)
    return f"{year}-{number:02d}-{int(day):02d}"


#: the kinds of a number with a unit or a count: a plain number ("the timeout is 30") may
#: be any of them, so it is compared with each
MEASURES: Final = frozenset(("d:", "b:", "p:", "r:", "c:"))
#: the kind of a rate of bytes ("r:5242880b/s", of "5 MB/s")
BYTE_RATE: Final = "rb"


def place(raw: str) -> str:
    """A URL or a path without its trailing slashes and a relative path without its
    leading ``./``: ``https://docs.example.com/`` is ``https://docs.example.com``,
    ``/srv/app/dist/`` is ``/srv/app/dist``, ``./scripts/deploy.sh`` is
    ``scripts/deploy.sh``, a folder with its slash its name, ``dist/`` is ``dist`` (as
    written, each was another value than its twin, and a restatement was refused as a
    conflict); the root ``/`` stays itself."""
    if "://" in raw:
        stripped = raw.rstrip("/")
        return stripped if not stripped.endswith(":") else raw
    if raw[:1] == "[" and raw[-1:] == "]":
        return raw[1:-1]  # an IPv6 address without a port: "[::1]" is "::1"
    if raw.endswith("/") and raw.rstrip("/") not in ("", ".", "..", "~"):
        raw = raw.rstrip("/")  # ("dist/" is the folder "dist", as "./dist" is)
    return raw[2:] if raw.startswith("./") else raw


#: an hour of one digit in a clock time or a range of them ("3:00", "2:00-4:00")
_SHORT_HOUR: Final = lazy(r"(?<![\d:])(\d:\d{2})")


def clock(raw: str, half: str | None = None) -> str:
    """A clock time, or a range of them, with each hour in two digits: ``3:00`` is
    ``03:00``, ``2:00-4:00`` is ``02:00-04:00`` (as written, the same time was another
    value, and a restatement was refused as a conflict); a time of the 12-hour clock
    (``half``: ``a`` or ``p``, of "am" or "pm" after it) in the 24-hour one: ``11:30`` pm
    is ``23:30``, ``12:15`` am ``00:15``; after a range, its end's half of the day, and
    its start's unless that starts it after its end: ``2:00-4:00`` pm is ``14:00-16:00``,
    ``11:00-1:00`` pm ``11:00-13:00`` (a range was left as written, so "2:00-4:00 PM"
    was refused beside "14:00-16:00" and agreed with "2:00-4:00 AM"). ``raw`` is a time
    as :func:`waymarks.core.contradiction.signature` matched one: digits and colons,
    perhaps a hyphen."""
    raw = _SHORT_HOUR.sub(r"0\1", raw)
    if half is None:
        return raw
    if "-" in raw:
        start, _, end = raw.partition("-")
        if "-" in end or not (_twelve(start) and _twelve(end)):
            return raw
        end, moved = _in_half(end, half), _in_half(start, half)
        return f"{start if moved > end else moved}-{end}"
    return _in_half(raw, half) if _twelve(raw) else raw


def _twelve(time: str) -> bool:
    """Whether ``time`` (``HH:MM…``) may be one of the 12-hour clock."""
    return 1 <= int(time[:2]) <= 12


def _in_half(time: str, half: str) -> str:
    """``time`` of the 12-hour clock in the 24-hour one, ``half`` ``a`` or ``p``."""
    return f"{int(time[:2]) % 12 + (12 if half == 'p' else 0):02d}{time[2:]}"


#: "am" or "pm" after a time ("11:30 PM", "11:30 p.m.", "7:45am"; folded to lower case)
MERIDIEM: Final = lazy(r" ?([ap])\.?m\b\.?")


def decimal(amount: str) -> str:
    """A percentage's or a rate's amount without trailing zeros after its point: ``80.0``
    is ``80``, ``0.10`` is ``0.1`` (as written, "80.0%" was another value than "80%"). A
    plain number keeps them: ``1.10`` is a version, not ``1.1``."""
    return amount.rstrip("0").rstrip(".") if "." in amount else amount


def version(value: str) -> str:
    """A dotted number of two or three parts without its trailing zero parts: ``2.0`` is
    ``2``, ``3.12.0`` is ``3.12`` (a version and a decimal alike; four parts, as an IPv4
    address has, are left whole). Written so, the same version was another value and a
    restatement was refused as a conflict. For comparing only (:func:`agreeing`): a value
    is kept as written, since ``3.12.0`` is a release and ``3.12`` a line of them."""
    if value[:2] != "v:" or not PLAIN_NUMBER.fullmatch(value[2:]) or not 1 <= value.count(".") <= 2:
        return value
    parts = value[2:].split(".")
    while len(parts) > 1 and parts[-1].strip("0") == "":
        parts.pop()
    return "v:" + ".".join(parts)


def agreeing(mine: Iterable[str], theirs: Iterable[str]) -> list[tuple[str, str]]:
    """The pairs of values, one of each side, that state one thing: the same value (a
    version with its trailing zero parts or without: :func:`version`), or a version and a
    release of it (``20`` and ``20.11.1``, ``3.12`` and ``3.12.4``: the longer of three
    parts, so ``1`` and ``1.5``, which may be decimals, still differ; and the shorter
    written with fewer, so ``2.0.0`` and ``2.0.1``, two releases, differ too), an
    address with a port and its address or its port (:func:`_part_of`), or a range and a
    number inside it (:func:`_within`)."""
    mine, theirs = list(mine), list(theirs)
    # only a value with a dot, a colon or a hyphen is ever another's equal in another
    # form: the other pairs (most: plain numbers, words) are compared as they are
    shaped = {value for value in (*mine, *theirs)
              if _SHAPED.search(value, 2) or value[:2] == "r:"}
    return [(one, other) for one in mine for other in theirs
            if one == other or ((one in shaped or other in shaped) and _one_thing(one, other))]


_SHAPED: Final = lazy(r"[.:-]")


def _one_thing(one: str, other: str) -> bool:
    return (version(one) == version(other) or _same_rate(one, other) or _release_of(one, other)
            or _release_of(other, one) or _part_of(one, other) or _part_of(other, one)
            or _within(one, other) or _within(other, one) or _dual_stack(one, other))


#: a rate's time unit (:data:`waymarks.core.claim_terms.RATE_NAMES`' names) in seconds
_RATE_SECONDS: Final = {"s": 1, "min": 60, "h": 3600, "d": 86400, "w": 604800}
#: a rate: an amount (of bytes: "b"), a slash and its time unit
_RATE: Final = lazy(r"r:(\d+(?:\.\d+)?)(b?)/([a-z]+)(@[\w-]+)?")


def _same_rate(one: str, other: str) -> bool:
    """Whether ``one`` and ``other`` are one rate in two time units ("r:100/min" and
    "r:6000/h", "100 MB/s" and "6000 MB/min"): kept each in its own unit, the same rate
    restated was another value."""
    mine = per_second(one)
    return mine is not None and mine == per_second(other)


def per_second(value: str) -> tuple[str, Fraction] | None:
    """A rate's measure (of bytes or things, of each whom) and its amount per second, or
    ``None`` for no rate in a known time unit."""
    found = _RATE.fullmatch(value)
    if found is None or found.group(3) not in _RATE_SECONDS:
        return None
    return (f"r:{found.group(2)}{found.group(4) or ''}",
            Fraction(found.group(1)) / _RATE_SECONDS[found.group(3)])


def _dual_stack(one: str, other: str) -> bool:
    """Whether ``one`` and ``other`` are addresses with one port, an IPv4 and an IPv6 one
    ("[::]:8080" and "0.0.0.0:8080"): a server listens on both, no other value."""
    mine, theirs = _address(one), _address(other)
    return (mine is not None and theirs is not None and mine[1] is not None
            and mine[1] == theirs[1]
            and (_IPV4.fullmatch(one, 2) is None) != (_IPV4.fullmatch(other, 2) is None))


_RANGE: Final = lazy(r"v:(\d+)-(\d+)")


def _within(span: str, number: str) -> bool:
    """Whether ``number`` is a whole number inside the range ``span`` ("v:8000-8010" and
    "v:8005": "ports 8000-8010" states the port 8005 among them)."""
    found = _RANGE.fullmatch(span) if "-" in span else None
    return (found is not None and number[:2] == "v:" and number[2:].isdigit()
            and int(found.group(1)) <= int(number[2:]) <= int(found.group(2)))


def _release_of(short: str, long: str) -> bool:
    return (short[:2] == long[:2] == "v:" and long.count(".") == 2
            and short.count(".") < 2 and long.startswith(short + ".")
            and PLAIN_NUMBER.fullmatch(long[2:]) is not None
            and PLAIN_NUMBER.fullmatch(short[2:]) is not None)


def one_amount(mine: frozenset[str], theirs: frozenset[str]) -> bool:
    """Whether a bare number on one side is the amount of a measure on the other, in a
    unit it is written in (a duration's in seconds, minutes, hours or milliseconds, a
    size's in bytes or a multiple, binary or decimal)."""
    for bare, measures in ((mine, theirs), (theirs, mine)):
        numbers = {Fraction(v[2:]) for v in bare
                   if v[:2] == "v:" and PLAIN_NUMBER.fullmatch(v[2:]) and v.count(".") <= 1}
        if numbers and any(numbers & amounts(v) for v in measures if v[:2] in MEASURES):
            return True
    return False


def amounts(value: str) -> set[Fraction]:
    found = _LEADING_NUMBER.match(value, 2)
    if found is None:
        return set()
    amount = Fraction(found.group(0))
    if value[:2] == "b:":  # in bytes: a bare number may be in any multiple, binary or
        # decimal ("16k" is 16000 and "16 KB" 16384 bytes: one size, as people write it)
        return {amount / 1024 ** power * scale ** power
                for power in range(5) for scale in (1, 1000)}
    if value[:2] != "d:":
        return {amount}
    return {amount, amount / 60, amount / 3600, amount * 1000}


#: an IPv4 address, perhaps with its port ("0.0.0.0:8080")
_IPV4: Final = lazy(r"(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{1,5}))?")
#: an IPv6 address in brackets with its port ("[::1]:8080"), and one alone ("::1",
#: "2001:db8::10": a "::" or eight groups; "12:30" is a time)
_IPV6_PORT: Final = lazy(r"\[([0-9a-f.:]*:[0-9a-f.:]*)\]:(\d{1,5})")
_IPV6: Final = lazy(r"(?=.*::)[0-9a-f.:]+|(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}")
#: a host name with its port ("smtp.example.com:587"): where and which port, as an IP
#: address with its port (read apart, the host in common agreed, and the port changed
#: on the same host was accepted beside the stored one)
_HOST_PORT: Final = lazy(r"([a-z0-9-]*[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+):(\d{1,5})")


ISO_DATE: Final = lazy(r"\d{4}-\d{2}-\d{2}")


def _address(value: str) -> tuple[str, str | None] | None:
    """An IP address value ("v:0.0.0.0:8080", "v:[::1]:8080", "v:::1") or a host name with
    its port ("v:smtp.example.com:587") as its address and its port (``None`` without
    one), or ``None`` for any other value."""
    if value[:2] != "v:" or (":" not in value[2:] and "." not in value):
        return None  # (the common case, a plain number or a word: no expression tried)
    for pattern in (_IPV4, _IPV6_PORT, _HOST_PORT):
        found = pattern.fullmatch(value, 2)
        if found is not None:
            return found.group(1), found.group(2)
    return (value[2:], None) if _IPV6.fullmatch(value, 2) else None


#: a host name: dotted labels, the last of letters ("cache.prod.example.com", "db.internal")
_HOST_NAME: Final = lazy(r"v:[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}")


def located(values: Iterable[str], placed: Iterable[str]) -> set[str]:
    """The attributes an address or a host name states by its shape, for a subject that
    names a thing alone ("Redis runs on cache.prod.example.com.", "Postgres is at
    db.internal:5432."): its host, and its port when the address has one (a subject of one
    term contained no other, so such a claim was written beside "The Redis host is
    cache2…" or "The Postgres port is 6432."). A host name only among ``placed``, the
    values after "on" or "at": "nginx.conf" of "configured in nginx.conf" is a file."""
    placed = set(placed)
    found: set[str] = set()
    for value in values:
        address = _address(value)
        if address is not None:
            found.add("host")
            if address[1] is not None:
                found.add("port")
        elif value in placed and _HOST_NAME.fullmatch(value):
            found.add("host")
    return found


def _address_parts(value: str) -> tuple[str, str] | None:
    """An IP address with its port ("v:0.0.0.0:8080", "v:[::1]:8080") as its address and
    its port."""
    found = _address(value)
    if found is None or found[1] is None:
        return None
    return "v:" + found[0], "v:" + found[1]


def _part_of(whole: str, part: str) -> bool:
    """Whether ``part`` is the address or the port of the address with a port ``whole``:
    "listens on 0.0.0.0:8080" states the port 8080 ("The API port is 8080." agrees with
    it) and the address 0.0.0.0. Kept one value, it is another than ``0.0.0.0:8081`` and
    ``127.0.0.1:8080`` (split in two, each agreed with the other on a part, and a changed
    port or address was accepted beside the stored one)."""
    parts = _address_parts(whole)
    return parts is not None and part in parts


#: the kind of an address's port (:func:`kinds`)
_PORT: Final = "pt"


def kinds(values: Iterable[str], versioned: bool = False) -> set[str]:
    """The kinds of values compared with ``values``: a plain number is any measure too; an
    IP address (kind ``a:``) is compared with names (a host name) but not with a number:
    "The API listens on 0.0.0.0." says where, "The API port is 8080." which port. A dotted
    number (kind ``n:``) is compared with one of the address's shape in a claim of a
    version (``versioned``): "2.0.0.1" may be a version of four parts, and "The app
    version is 2.1.0." contradicts it (no port is dotted); said of no version, the shape
    is an address ("Redis is at 10.0.0.7." is no other version than "Redis is version
    7.2."). A rate of bytes (kind ``rb``) is another kind than a rate of things counted:
    "The API allows 5 MB/s." says how much it moves, "… 5 req/s." how often it is asked
    (compared, they were one attribute with two values, a conflict). The port of an address
    (kind ``pt``) is compared with a plain number, but not with one said of a version:
    "Postgres is at db.internal:5432." is no other value than "Postgres is version 16."."""
    found = set()
    for value in values:
        address = _address(value)
        if address is not None or (value[:2] == "v:" and "://" in value):
            found.add("a:")  # an address: compared with names, not with a number
            if address is not None and address[1] is not None:
                found.add(_PORT)  # with its port: compared with a port too
            elif versioned and _IPV4.fullmatch(value, 2):
                found.add("n:")
            continue
        if value[:2] == "v:" and ISO_DATE.fullmatch(value[2:]):
            found.add("t:")  # a date is when, compared with dates only
            continue
        if value[:2] == "r:" and "b/" in value:
            found.add(BYTE_RATE)  # a rate of bytes: another attribute than one of requests
            continue
        if value[:2] == "r:" and "@" in value:  # a rate of each user: another attribute
            found.add("r" + value[value.index("@"):])  # than the whole's rate
            continue
        if value[:2] == "k:":  # a name of a kind ("k:ci:jenkins"): compared within it
            found.add(value[:value.index(":", 2) + 1])
            continue
        found.add(value[:2])
        if value[:2] == "v:":
            found |= MEASURES | {BYTE_RATE} if PLAIN_NUMBER.fullmatch(value[2:]) else {"a:"}
            if not versioned and PLAIN_NUMBER.fullmatch(value[2:]):
                found.add(_PORT)  # (in a claim of a version, a number is no port)
            if "." in value and PLAIN_NUMBER.fullmatch(value[2:]):
                found.add("n:")
    return found
