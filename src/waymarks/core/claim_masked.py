"""Another value said in other words, read with the values masked (issue 20 item 4).

The typed slots (:mod:`waymarks.core.claim_slots`) take two claims for one thing when
their subjects are equal or one is the other with a single word more; said in other
words, the two subjects differ by the verbs and words of the predicate ("Password reset
links stay valid for 30 minutes." / "A password reset link expires after 2 hours.", "The
HTTP client gives up after 15 seconds." / "The HTTP client timeout is 45 seconds.").
Here each claim's typed values are masked, each replaced by its kind ("… stay valid for
DURATION"), and two claims conflict when

- each states one typed value (a clock time, a size, a duration, a duration of a period
  — "every 10 seconds", "the interval" —, a plain number, a count of a thing, a rate,
  a percentage, a version, a region, a URL or a host, or a name of a kind of service:
  :func:`waymarks.core.claim_slots.kind_of`), one value masked in its text, both of one
  kind and one bound (none, at most, at least), the values differing;
- neither states a state, a denial, a value more ("also"), a range or a list;
- nothing separates them: no word of one that the other lacks names an environment, a
  region, a rank or role or another component (``claim_slots``' words apart), a copy
  ("replicated to"), another attribute (both name one, each its own: "port" beside
  "version"), nor a participle in the subject phrase ("Upgraded nodes"); no word naming
  a thing in each claim is missing from the other (another named component: "Audit
  logs" / "Access logs", "Redis" / "Postgres"), and a word more on one side qualifies a
  subject the other still names by two words or more ("Backups" / "Backup
  verification" are two; a Chinese word more names another thing), and the start of a
  thing is not its end ("starts at 01:00" / "ends at 02:00"), and a plain number's own
  noun (the word right before it, else the one attribute the claim names) is not
  another in each ("port 8060" / "Node 20", "database port is 5433" / "runs Postgres 16");
- and their masked texts are near: their subject words overlap, weighted by rarity
  (the words of any claim — verbs, attribute and function words, :data:`COMMON` — count
  a quarter of a word naming a thing), by :data:`LEXICAL_NEAR` or more; or, when the
  caller passes a similarity of the two masked texts (the service's semantic embedder:
  :mod:`waymarks.service.conflict_semantic`), by :data:`SEMANTIC_NEAR` or more.

Pure: no model is called here; a similarity function is data the caller passes."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Final

from waymarks.core.claim_about import COPIES
from waymarks.core.claim_slots import APART, GENERIC, SAME, kind_of, normalized, weekly_of_day
from waymarks.core.claim_terms import IRREGULAR_PARTICIPLES
from waymarks.core.claim_words import STOP, term
from waymarks.core.lazy_re import lazy

#: a similarity of two masked texts, from -1 to 1 (a cosine of their embeddings)
Similarity = Callable[[str, str], float]

#: the least weighted overlap of two subjects that makes the masked texts near
LEXICAL_NEAR: Final = 0.3
#: the least similarity (a cosine of multilingual e5-small's vectors) that does
SEMANTIC_NEAR: Final = 0.9

_DURATION_UNITS: Final = (
    r"(?:ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?"
    r"|months?|years?|毫秒|秒钟?|分钟|小时|天|周|个月|月|年)")
_SIZE_UNITS: Final = (r"(?:b|bytes?|kb|mb|gb|tb|kib|mib|gib|tib|ki|mi|gi|ti|kilobytes?"
                      r"|megabytes?|gigabytes?|terabytes?)")
#: each typed value's shape and the kind that masks it, in order (a URL before its host)
_MASKS: Final = tuple((lazy(shape, re.I), f" {kind} ") for shape, kind in (
    (r"https?://[^\s。，,]+?(?=[.。，,]?(?:\s|$))", "URL"),
    (r"(?<![\w.-])(?=[\w.-]*[a-z])[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?"
     r"(?=[.。，,]?(?:\s|$|[\u4e00-\u9fff]))", "HOST"),
    (r"(?<![\w-])[a-z]{2,}(?:-[a-z]+)+-?\d+[a-z]?(?![\w-])", "REGION"),
    (r"\d{1,2}:\d{2}(?::\d{2})?(?:\s*utc)?", "TIME"),
    (r"\d+(?:\.\d+)?\s*%", "PERCENT"),
    (r"(?<![\w.])v?\d+(?:\.\d+){1,3}(?![\w.]*\d)", "VERSION"),
    (r"\d+(?:\.\d+)?\s*" + _DURATION_UNITS + r"(?![a-z])", "DURATION"),
    (r"\d+(?:\.\d+)?\s*" + _SIZE_UNITS + r"(?![a-z])", "SIZE"),
    (r"\d+(?:[.,]\d+)*k?", "NUMBER")))
_MASKED: Final = lazy(r"\b(?:URL|HOST|REGION|TIME|PERCENT|VERSION|DURATION|SIZE|NUMBER)\b")


def masked(text: str) -> str:
    """``text`` (normalized: :func:`waymarks.core.claim_slots.normalized`) with each typed
    value replaced by its kind ("… stay valid for DURATION .")."""
    return _masking(normalized(text))


def _masking(said: str) -> str:
    for shape, kind in _MASKS:
        said = shape.sub(kind, said)
    return " ".join(said.split())


#: verbs, adjectives and adverbs of a predicate, in any claim ("stays valid", "gives up",
#: "is reachable", "sharp"): words of how a value is said, naming no thing
_PREDICATE: Final = """accept answer reach receive route send deliver give get take need hold
keep last stay live expire fire happen go goe come begin start finish end stop close open
release renew roll process provision size split pin depend aim pass cross exceed hit drop
reject refuse block fail retry poll sync scale grow shrink ship push pull publish deploy
host store save write read load handle serve support run build compile bundle test check
wait sit point resolve forward redirect allocate assign grant reserve cap limit throttle
restrict bound raise lower reduce increase decrease make produce generate emit create
delete remove purge prune clear evict flush rotate refresh reload restart reboot kick
trigger schedule plan expect target require valid good long big large small short fast
slow full max min up out off away down back over about around roughly approximately sharp
exactly only just least most currently usually typically reachable available accessible
when where while once whenever if whether throw thrown""".split()


def _forms(verb: str) -> set[str]:
    said = {verb, verb + "s", verb + "ed", verb + "d", verb + "ing", verb + "es"}
    if verb.endswith("e"):
        said.add(verb[:-1] + "ing")
    if verb.endswith("y"):
        said |= {verb[:-1] + "ies", verb[:-1] + "ied"}
    return said


#: words of an attribute or of any thing ("port", "version", "service", "api")
_ATTRIBUTES: Final = frozenset(
    """port version size count timeout lifespan interval limit rate threshold delay latency
    backoff deadline duration period window quota budget concurrency""".split())
_ANY_THING: Final = frozenset(
    """service api server app application system data file config maximum minimum number
    time host url address every each per after before new""".split())
#: Chinese characters of a function, read one by one as a signature reads Chinese words
#: outside its vocabulary
_HAN_FUNCTION: Final = frozenset("只要了的在被由将是为有会每后前内时约于到上中里")
#: Chinese words of a predicate, where one ends a word (before a value, a space or a
#: function character: "分配了 4 GB", "基于 Django"); one starting a noun is the noun's
#: ("使用说明", the manual)
_HAN_PREDICATE: Final = lazy(
    "(?:基于|位于|使用|采用|运行|需要|设为|设置|配置|分配|接收|发送|发出|等待|放弃|容纳|超过"
    "|达到|保持|提供|支持|当前|可以|最多|最少|大约|一次|完整|托管|存放)"
    "(?=[^\u4e00-\u9fff]|[了的过有是为在]|$)")
#: words that name no thing: they count a quarter in the overlap, and a word of them
#: one claim lacks is no other component
COMMON: Final = (frozenset(term(form) for verb in _PREDICATE for form in _forms(verb))
                 | frozenset(term(word) for word in STOP) | IRREGULAR_PARTICIPLES
                 | _ATTRIBUTES | _ANY_THING | GENERIC | _HAN_FUNCTION)
#: the words of a start and of an end: two attributes of one thing
_STARTS: Final = frozenset(term(form) for verb in ("start", "begin", "kick", "open", "launch")
                           for form in _forms(verb)) | {"began", "begun"}
_ENDS: Final = frozenset(term(form) for verb in ("end", "finish", "stop", "close", "complete")
                         for form in _forms(verb))
_AT_MOST: Final = frozenset(("max", "maximum", "limit", "capacity", "cap", "capped"))
_AT_LEAST: Final = frozenset(("min", "minimum"))
#: a version or an amount said to be a floor ("Python 3.10 and later", "8 GB 以上")
_AND_LATER: Final = lazy(
    r"\b(?:and|or) (?:later|newer|higher|above|up|more)\b|以上|或更高", re.I)
#: a duration of a period ("every 10 seconds", "the health probe interval"): another
#: attribute than a lifespan or a timeout ("Session cookies last 8 hours." / "… are
#: refreshed every 15 minutes.")
_PERIOD: Final = lazy(r"\b(?:every|each|interval|per|hourly|daily)\b|每|间隔|频率", re.I)


class Valued:
    """A claim's one typed value, its kind and bound, and its subject terms."""

    __slots__ = ("bound", "head", "kind", "names", "said", "subject", "value")

    def __init__(self, kind: str, value: str, said: str, bound: str,
                 subject: frozenset[str], head: frozenset[str], predicate: str) -> None:
        self.kind, self.value, self.said, self.bound = kind, value, said, bound
        self.subject, self.head = subject, head
        #: the subject's words naming a thing (not :data:`COMMON`, nor a character of a
        #: Chinese word of its predicate)
        self.names = subject - COMMON - frozenset(predicate)


@lru_cache(maxsize=1 << 14)
def valued(text: str) -> Valued | None:
    """The one typed value of a claim and what it is said of, or ``None`` (no value or
    more than one, a state, a denial, a value more, a range or a list: see the module)."""
    from waymarks.core.contradiction import negates, signature

    said = normalized(text)
    found = signature(said)
    if found is None or found.where or found.denied or found.adds or found.listed:
        return None
    values = [value for value in found.values - weekly_of_day(found.values)
              if not value.startswith("k:weekday")]
    if len(values) != 1 or negates(text):
        return None
    kind, value = kind_of(values[0])
    if kind in ("", "word", "state"):
        return None
    if kind == "d:" and _PERIOD.search(said):
        kind = "period"
    bound = dict(found.bounds).get(values[0], "") or (
        "<=" if found.subject & _AT_MOST else ">=" if found.subject & _AT_LEAST
        or _AND_LATER.search(said) else "")
    return Valued(kind, value, values[0], bound, frozenset(SAME.get(t, t) for t in found.subject),
                  frozenset(SAME.get(t, t) for t in found.head),
                  "".join(_HAN_PREDICATE.findall(said)))


@lru_cache(maxsize=1 << 12)
def _values_masked(text: str) -> int:
    return len(_MASKED.findall(masked(text)))


#: words before a value that are no noun of its own ("runs 8", "is 20", "在 8080")
_NO_NOUN: Final = (frozenset(term(form) for verb in _PREDICATE for form in _forms(verb))
                   | frozenset(term(word) for word in STOP) | _HAN_FUNCTION)


@lru_cache(maxsize=1 << 12)
def _number_noun(text: str) -> str:
    """The noun right before a claim's one plain number ("port" of "on port 8060", "node"
    of "runs on Node 20"), or "" (a verb, a function word or nothing before it)."""
    words = masked(text).split()
    at = words.index("NUMBER") if "NUMBER" in words else 0
    before = term(words[at - 1].lower()) if at else ""
    return "" if before in _NO_NOUN or not before.isalpha() else SAME.get(before, before)


def masked_ahead(text: str) -> None:
    """Work out what :func:`masked_conflict` asks of a claim with one typed value (its
    values masked, the noun before its number), memoised, so that a comparison with a
    claim stating another value finds them done: a process's first supersession compiled
    the masks' 9 patterns under the session lock (5-6 ms of CPU, measured), where
    :mod:`waymarks.core.check_ahead` calls this before it."""
    if valued(text) is not None:
        _values_masked(text)
        _number_noun(text)


def _own_noun(text: str, value: Valued) -> str:
    """What a claim's one plain number is a number of: the noun right before it, else
    the one attribute its subject names ("The staging database port is 5433."), or ""."""
    attributes = value.subject & _ATTRIBUTES
    return _number_noun(text) or (next(iter(attributes)) if len(attributes) == 1 else "")


def masked_conflict(mine: str, theirs: str, similar: Similarity | None = None) -> bool:
    """Whether two claims state another value of one thing in other words (see the
    module); ``similar``: a similarity of their masked texts, asked in place of the
    lexical overlap."""
    one = valued(mine)
    other = valued(theirs) if one is not None else None
    if one is None or other is None or one.kind != other.kind or one.bound != other.bound:
        return False
    if one.value == other.value:
        return False
    # the subjects first: a write compares its claim with every claim sharing a term of
    # it (up to 48 a term), and most stand apart there, before their values are compared
    overlap = _overlap(one, other)
    if overlap is None:
        return False
    from waymarks.core.claim_values import agreeing

    if agreeing([one.said], [other.said]) or _values_masked(mine) != 1 or (
            _values_masked(theirs) != 1):
        return False  # (two values masked: "3.9 through 3.12", "on 8080 and 9090")
    if one.kind == "number" and "" != _own_noun(mine, one) != _own_noun(theirs, other) != "":
        return False  # (a number of its own noun each: "port 8060" / "Node 20")
    if similar is not None:
        return similar(masked(mine), masked(theirs)) >= SEMANTIC_NEAR
    return overlap >= LEXICAL_NEAR


#: the words apart and those of a copy, either of which separates two subjects
_APART_COPIES: Final = APART | COPIES


def _overlap(one: Valued, other: Valued) -> float | None:
    """The two subjects' overlap weighted by rarity, or ``None`` when a word of one
    separates them (see the module)."""
    mine, theirs = one.subject, other.subject
    if (mine ^ theirs) & _APART_COPIES or (
            (mine & _ATTRIBUTES) - theirs and (theirs & _ATTRIBUTES) - mine):
        return None
    if (mine & _STARTS and theirs & _ENDS) or (mine & _ENDS and theirs & _STARTS):
        return None  # ("The export starts at 01:00." / "The export ends at 02:00.")
    if any(word.endswith("ed") for word in (one.head - theirs) | (other.head - mine)):
        return None  # (a participle of the subject phrase: "Upgraded nodes", a state)
    names, their_names = one.names, other.names
    more, their_more = names - theirs, their_names - mine
    if (more and their_more) or not names or not their_names or (
            more and len(their_names) < 2) or (their_more and len(names) < 2) or any(
            not (word.isascii() and word.isalpha()) for word in more | their_more):
        return None  # (a Chinese word more names another thing: 使用说明 is no 说明)
    every = names | their_names

    def weight(words: frozenset[str]) -> float:
        return sum(1 if word in every else 0.25 for word in words)

    return weight(mine & theirs) / weight(mine | theirs)
