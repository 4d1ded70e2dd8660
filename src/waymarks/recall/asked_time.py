"""A question asking when, and a record saying a time: the answer's shape, not its words.

"When did we move to Postgres?" holds no word a record saying "We moved to Postgres last
March" lacks, but "when" is a stop word, so the claim that says when and the one that
only names Postgres scored alike. A direct question asking when
(:attr:`~waymarks.recall.scoring.QueryPlan.when`) ranks a record that says a time
(:func:`says_time`: a day, a date, a month, a year, a clock time, "yesterday", "last
week", "nightly") :data:`TIME_BONUS` higher. Relevance only: no gate reads it, so a
record is eligible exactly as before, and saying a time never makes one an answer.

Not part of the analysis (records are not re-indexed for it): read from a record's text
when it is scored, as an attribute's value of its shape is.
"""

from __future__ import annotations

import functools
import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.recall.vocabulary import NO_UNIT_AFTER

#: how much higher a record saying a time ranks for a question asking when (LoCoMo dev:
#: 0.2 and 0.5 measured, the smaller taken: it keeps the relative cutoff's meaning)
TIME_BONUS: Final = 0.2

#: a question asking when: "when" leading it (a follow-up's "and when?" too), or before
#: the verb it asks with; a leading "when" whose clause a comma ends is a condition ("When
#: the cache expires, what does CI do?" asks what, not when)
_WHEN: Final = lazy(
    r"^\W*(?:(?:and|so|but|ok|okay|then)\W+)?when\b(?!\s+[^?,]+,)|\bwhen\s+(?:did|do|does|is|was"
    r"|were|will|are|has|have|had|should|would|can|could)\b")

_DAYS: Final = frozenset(
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))
#: what "last", "next", "this", "past" or "every" is a time before
_PERIODS: Final = _DAYS | {"week", "month", "year", "weekend", "night", "morning", "evening",
                           "summer", "winter", "spring", "fall", "autumn", "day", "hour"}
_BEFORE_PERIOD: Final = frozenset(("last", "next", "this", "past", "every"))
#: a time on its own: a relative day, a schedule, a month ("may" and "march", a modal and a
#: verb too, only beside a day, a year or a word such as "since": :data:`_BEFORE_MONTH`)
_ALONE: Final = _DAYS | {
    "yesterday", "today", "tonight", "tomorrow", "midnight", "noon", "ago", "hourly",
    "daily", "nightly", "weekly", "monthly", "yearly", "annually", "january", "february",
    "april", "june", "july", "august", "september", "october", "november", "december"}
_AMBIGUOUS_MONTHS: Final = frozenset(("may", "march"))
_BEFORE_MONTH: Final = frozenset(
    ("last", "next", "this", "early", "late", "mid", "in", "since", "until", "of", "st", "nd",
     "rd", "th"))
#: month names shortened, a time only before a day ("Feb 3")
_SHORT_MONTHS: Final = frozenset(
    ("jan", "feb", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"))
_TOKEN: Final = lazy(r"[a-z]+|\d+")
#: a year: 19xx or 20xx as a word of its own, no port's number ("port 2000") and no
#: amount's ("2048 MB", "2000 requests" is none either way: no unit, but read as a year)
_YEAR: Final = lazy(r"(?<!port )(?<![\w.:-])(?:19|20)\d\d(?![\w%]|[.:]\d)" + NO_UNIT_AFTER)
#: a clock time ("9:30"; not an address's port, "10.0.0.1:80")
_CLOCK: Final = lazy(r"(?<![\d.:])\d{1,2}:\d\d(?![\d:])")
#: a question asking when in Chinese ("什么时候", "何时", "哪天", "几点")
_HAN_WHEN: Final = lazy(r"什么时候|何时|哪一?天|哪一?年|哪个月|几点")
#: a number in digits or Chinese numerals, from its first character only (tried at each
#: digit of a long run, the run was read to its end each time: quadratic)
_HAN_NUMBER: Final = r"(?<![\d一二三四五六七八九十两几])[\d一二三四五六七八九十两几]+"
#: a time said in Chinese: a relative day or period ("昨天", "上周", "去年"), a schedule
#: ("每晚"), a weekday ("周一"), a month or a date ("三月", "12月20日"), an hour ("9 点"),
#: a time ago ("三天前"); not a count ("三个服务")
_HAN_TIME: Final = lazy(
    r"[昨今明前后]天|[昨今明]晚|凌晨|午夜|中午|每(?:天|晚|周|月|年|小时|个月)"
    r"|[上下本这]个?(?:周|星期|月)|[去今明前]年|(?:周|星期|礼拜)[一二三四五六日天]"
    rf"|{_HAN_NUMBER}\s*(?:月|(?:天|周|个月|年|小时|分钟)前)|(?<!\d)\d+\s*点")
#: a Chinese character (U+4E00-U+9FFF) in UTF-8: the lead byte E5-E9, or E4 before B8-BF
#: (a continuation byte is 80-BF, so neither is ever one); texts without one skip the
#: Chinese forms. A class of the 21,000 characters themselves cost ~1.3 ms of CPU to
#: compile (``re`` marks each in a 64k-entry map), a one-shot process's first Chinese
#: question or record; this compiles in microseconds. An ASCII text (``str.isascii``:
#: constant time) holds none and is not searched
_HAN_UTF8: Final = rb"\xe4[\xb8-\xbf]|[\xe5-\xe9]"


@functools.cache
def _han_utf8() -> re.Pattern[bytes]:
    return re.compile(_HAN_UTF8)


def holds_han(text: str) -> bool:
    """Whether ``text`` holds a character of U+4E00-U+9FFF (a lone surrogate is encoded
    as is, never one)."""
    return _han_utf8().search(text.encode("utf-8", "surrogatepass")) is not None


def asks_when(folded: str) -> bool:
    """Whether a folded question asks when something is, was or will be."""
    if "when" in folded and _WHEN.search(folded) is not None:
        return True
    return not folded.isascii() and holds_han(folded) and \
        _HAN_WHEN.search(folded) is not None


@functools.lru_cache(maxsize=65_536)  # a store's texts, asked again by every plan
def says_time(text: str) -> bool:
    """Whether a record's text says a time: a relative day, "ago", a schedule ("nightly"),
    a weekday, a month, a period after "last", "next", "this", "past" or "every", a
    year (19xx, 20xx; a date's too), a clock time or an hour ("3 pm"), or their Chinese
    forms (:data:`_HAN_TIME`: "去年三月", "每晚", "上周"). Read word by word:
    one expression of every form tried at each character cost a 2,000-character claim
    3 ms, a question's hundred candidates far more than the rest of its recall."""
    folded = text.lower()
    previous = ""
    for token in _TOKEN.findall(folded):
        if token.isdigit():
            if (len(token) == 4 and token[:2] in ("19", "20")
                    and _YEAR.search(folded) is not None) or (
                    previous in _AMBIGUOUS_MONTHS or previous in _SHORT_MONTHS):
                return True
        elif token in _ALONE or (previous in _BEFORE_PERIOD and (
                token in _PERIODS or token[:-1] in _PERIODS)) or (
                token[:-1] in _DAYS and token.endswith("s")) or (
                token in _AMBIGUOUS_MONTHS and (
                    previous in _BEFORE_MONTH or previous.isdigit())) or (
                token in ("am", "pm") and previous.isdigit() and len(previous) <= 2):
            return True
        previous = token
    if ":" in folded and _CLOCK.search(folded) is not None:
        return True
    return not folded.isascii() and holds_han(folded) and \
        _HAN_TIME.search(folded) is not None


def time_factor(when: bool, text: str) -> float:
    """How much higher a record (``text``) ranks for a question that asks ``when``."""
    return 1.0 + TIME_BONUS if when and says_time(text) else 1.0
