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

#: how much higher a record saying a time ranks for a question asking when (LoCoMo dev:
#: 0.2 and 0.5 measured, the smaller taken: it keeps the relative cutoff's meaning)
TIME_BONUS: Final = 0.2

#: a question asking when: "when" leading it, or before the verb it asks with
_WHEN: Final = lazy(
    r"^\W*when\b|\bwhen\s+(?:did|do|does|is|was|were|will|are|has|have|had|should|would"
    r"|can|could)\b")

_DAY: Final = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_PERIOD: Final = (rf"(?:week|month|year|weekend|night|morning|evening|summer|winter|spring"
                  rf"|fall|autumn|day|hour|{_DAY})")
#: month names ("may" and "march", a modal and a verb too, only beside a day or a year;
#: a short name only before a day)
_MONTH: Final = (r"january|february|april|june|july|august|september|october|november"
                 r"|december|(?:jan|feb|apr|jun|jul|aug|sept?|oct|nov|dec)\.?(?=\s+\d)"
                 r"|(?:march|may)\s+\d{1,4}|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:march|may)"
                 r"|(?:last|next|this|early|late|mid|in|since|until)\s+(?:march|may)\b(?!\s+\w+ed\b)")
#: a time said: a relative day, a period before or after now, a weekday, a month, a
#: schedule, a year, a date, a clock time
_TIME: Final = lazy(
    rf"\b(?:yesterday|today|tonight|tomorrow|midnight|noon|ago"
    rf"|(?:last|next|this|past|every)\s+{_PERIOD}s?|{_DAY}s?|{_MONTH}"
    r"|hourly|daily|nightly|weekly|monthly|yearly|annually"
    r"|(?:19|20)\d\d|\d{4}-\d\d-\d\d|\d{1,2}\s?(?:am|pm))\b"
    r"|(?<![\d.:])\d{1,2}:\d\d(?![\d:])",
    re.IGNORECASE)


def asks_when(folded: str) -> bool:
    """Whether a folded question asks when something is, was or will be."""
    return "when" in folded and _WHEN.search(folded) is not None


@functools.lru_cache(maxsize=65_536)  # a store's texts, asked again by every plan
def says_time(text: str) -> bool:
    """Whether a record's text says a time (see the module docstring)."""
    return _TIME.search(text) is not None


def time_factor(when: bool, text: str) -> float:
    """How much higher a record (``text``) ranks for a question that asks ``when``."""
    return 1.0 + TIME_BONUS if when and says_time(text) else 1.0
