"""Names a query's features cannot hold, which make a turn a *barrier* (see
:mod:`waymarks.recall.plan`): a capital letter ("and in C?", "R", "C++", "C#") or a
capitalized stop word used as a name ("what about Go?"; never a function word such as
"Is" or "To" of Title Case), and which of them a direct query asks about.

Moved out of :mod:`waymarks.recall.plan` (near its 600 lines) as it was. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from waymarks.core.lazy_re import lazy
from waymarks.recall.analysis import fold, word_feature
from waymarks.recall.vocabulary import ATTRIBUTES, NAME_LIKE_STOP_WORDS, STOP_WORDS

if TYPE_CHECKING:
    import re

#: a name the analysis drops: one capital letter (not "I"), or a capitalized stop word,
#: after the first word of a sentence ("what about Go?", "and in C?", "C++ or C#?")
#: (Chinese is typed with no space around a name: "那Go呢？" is "what about Go?")
_DROPPED_NAME: Final = lazy(
    r"(?:(?<=[^\W\d_] )|(?<=[\u3400-\u9fff]))(?:[A-HJ-Z](?:\+\+|#)?|[A-Z][a-z]{1,4})"
    r"(?!['’+#-]|[^\W\u3400-\u9fff])")
#: the same at the start of a prompt, where every sentence has a capital: one letter but
#: the article "A" (and "I"), or a capitalized word
_LEADING_NAME: Final = lazy(
    r"\s*(?:([B-HJ-Z](?:\+\+|#)?|[A-Z](?:\+\+|#))|([A-Z][a-z]{1,4}))"
    r"(?!['’+#-]|[^\W\u3400-\u9fff])")
#: a name asked about in Chinese: "Go 呢？" ("what about Go?")
_ASKED_ABOUT: Final = lazy(r"\s*呢")
_NEXT_WORD: Final = lazy(r" (\w+)")
#: the words of a text, for telling Title Case ("What Is Our Default Branch?")
_CASED_WORD: Final = lazy(r"\b[^\W\d_][\w'’]*")


def barrier(text: str) -> bool:
    """Whether ``text`` names a subject that no feature stands for (see the docstring)."""
    return any(True for _name in dropped_names(text))


#: a name no feature stands for, and where it ends in the text (:func:`dropped_names`)
Dropped = tuple[tuple[str, int], ...]


def dropped_names(text: str) -> Iterator[tuple[str, int]]:
    """The names in ``text`` that no feature stands for ("Go", "R", "C#"), each with where
    it ends. Inside a sentence a capitalized stop word is one ("what about Go?", "what did
    Will say?"); in Title Case, where every word has a capital, only a letter (not the
    article "A") or a name-like stop word before an attribute ("What Is The Go Version?";
    "Is", "Our" and "To" are function words there). A prompt in which neither expression
    can find a name compiles neither (:func:`_may_name`: ~3 ms of CPU, a one-shot
    recall's or a hook's)."""
    if not _may_name(text):
        return
    yield from _named(text)


#: a capitalized ASCII word of at most five letters standing alone (a letter or a stop
#: word may be a name, the words both expressions yield; what they allow before and
#: after it is never an ASCII letter, digit or ``_``): in ASCII classes only, which
#: compile in a fraction of the time of theirs (a class with the Han range fills a
#: 64k-entry map first)
_CAPITALIZED: Final = lazy(r"(?<![A-Za-z0-9_])[A-Z][a-z]{0,4}(?![A-Za-z0-9_])")


def _may_name(text: str) -> bool:
    """Whether ``text`` holds a word either expression could yield: a capital letter
    alone, or a capitalized stop word (the first word a name-like one: a sentence's first
    word has a capital anyway). A question naming only longer or unknown words ("Which
    service uses Kafka for event fan-out?") compiles neither, nor does one whose only
    capital alone is the pronoun "I" ("how long should I boil an egg?": 7.7 ms of CPU, a
    one-shot recall's or a hook's, 42 M instructions). The expressions' other conditions
    (what comes before and after) only narrow this."""
    if text.islower() or not any("A" <= c <= "Z" for c in text):
        return False
    first = len(text) - len(text.lstrip())
    for match in _CAPITALIZED.finditer(text):
        word = match.group(0).casefold()
        if word == "i" and not text.startswith(("+", "#"), match.end()):
            continue  # the pronoun: neither yields "I" but as "I++" or "I#"
        if len(word) == 1 or word in NAME_LIKE_STOP_WORDS or (
                word in STOP_WORDS and match.start() > first):
            return True
    return False


def _named(text: str) -> Iterator[tuple[str, int]]:
    """:func:`dropped_names` past its pre-test."""
    leading = _LEADING_NAME.match(text)
    if leading is not None and _leading_name(text, leading):
        group = 1 if leading.group(1) else 2
        yield leading.group(group), leading.end(group)
    titled: bool | None = None
    for match in _DROPPED_NAME.finditer(text):
        word = match.group(0)
        single = len(word.rstrip("+#")) == 1
        if not single and word.casefold() not in STOP_WORDS:
            continue
        if titled is None:
            titled = _title_case(text)
        # a capital inside a sentence names something ("what did Will say"); in Title
        # Case, a letter (not the article) or a name-like stop word before an attribute
        if not titled or (single and word != "A") or (
                (single or word.casefold() in NAME_LIKE_STOP_WORDS)
                and _next_feature(text, match.end()) in ATTRIBUTES):
            yield word, match.end()


def _leading_name(text: str, match: re.Match[str]) -> bool:
    """Whether a prompt's first word is a name no feature stands for: ``C#`` or ``C++``,
    a letter before a word that is a feature ("R version?"; not a reply "Y" or "K
    thanks"), or a stop word that is no function word ("What", "Is" and "The" are) before
    an attribute ("Go version?"; not "Go ahead")."""
    feature = _next_feature(text, match.end())
    asked = _ASKED_ABOUT.match(text, match.end()) is not None
    if match.group(1):
        return match.group(1)[1:] != "" or feature is not None or asked
    return match.group(2).casefold() in NAME_LIKE_STOP_WORDS and (
        feature in ATTRIBUTES or asked)


def _next_feature(text: str, end: int) -> str | None:
    """The feature of the word right after ``end``, if any."""
    following = _NEXT_WORD.match(text, end)
    return word_feature(fold(following.group(1))) if following is not None else None


def _title_case(text: str) -> bool:
    """Whether most words of ``text`` after its first (two at least) start with a capital.
    A sentence's first word has one anyway: counted, "What about Go?" (two capitals of
    three words) was Title Case, so "Go" was no name and the subject before went on."""
    words = _CASED_WORD.findall(text)[1:]
    return len(words) >= 2 and 2 * sum(word[0].isupper() for word in words) > len(words)


#: a capital letter that is an initial or part of an abbreviation ("J.K.", "C. S.", "U.S.")
_INITIAL: Final = lazy(r"\.(?:[A-Za-z]| [A-Z]\b)")


def asked_names(text: str, dropped: Dropped) -> frozenset[str]:
    """The dropped names a direct query asks about (``dropped``, of ``text``), which a
    record must hold: not a month ("in May 2023") and not an initial ("J.K. Rowling"),
    which are no subject."""
    return frozenset(name for name, end in dropped
                     if name != "May" and not _INITIAL.match(text, end))
