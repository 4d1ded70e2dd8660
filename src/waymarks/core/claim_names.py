"""Which numbers in a claim name its subject rather than state a value (for
:mod:`waymarks.core.contradiction`'s signatures): a number or a version between a name
and its verb ("Rack 3 holds …", "Python 3.12 supports …", "Issue 42 is closed."), a
hyphenated number after a name ("build step 3-5"), unless the number counts the noun
after it ("holds 500 entries.") or a verb of the one thing doing a job follows a version
("Go 1.22 builds the CLI."). Also whether a value follows a name (a product's version,
"Postgres 16"). Pure."""

from __future__ import annotations

from typing import Final

from waymarks.core.claim_denials import clause_before
from waymarks.core.claim_terms import UNITS
from waymarks.core.claim_values import ISO_DATE, PER, PLAIN_NUMBER
from waymarks.core.claim_words import ASCII_WORD, STOP, term
from waymarks.core.lazy_re import lazy

#: after a copula, a definite description: the claim says which one it is
_DEFINITE: Final = lazy(r" the\b")
#: the word right after a number when it is a plural noun: a count ("1500 tests", not
#: "5432 internally")
COUNTED: Final = lazy(r" ([a-z][a-z-]*[a-rt-z]s)\b(?<!ss)(?<!us)(?<!is)")
#: a name followed by a hyphenated number ("step 3-5", "gate 2-1"): the number names it,
#: unless the word is one a range is of (:data:`_RANGE_OF`: "ports 8000-8010" states them)
NUMBERED: Final = lazy(r"\b([a-z][a-z0-9]*) (\d+(?:-\d+)+)(?![\w.-])")
_WORD_BEFORE: Final = lazy(r"([a-z][a-z0-9]*) $")
_RANGE_OF: Final = frozenset(("port", "range"))

#: words that may follow a stated value ("listens on 8080 in dev"); any other word after
#: a plain number makes it part of a name ("Service 1 uses …", "Version 2 of the API")
VALUE_FOLLOWERS: Final = frozenset(
    "in on at for and or by with from to per when if but so than as is are was were".split())
#: the verbs of a claim's subject and value ("Issue 42 is closed."): a number before one
#: of them, right after a name, names the subject
_COPULAS: Final = frozenset(("is", "are", "was", "were"))
#: verbs of the one thing that does a job ("Node 20.11.1 powers the build.", "Go 1.22
#: builds the CLI.", "Python 3.12 runs the test suite."): a version before one is the
#: value, as in "The build uses Node 20.11.1." (named, two versions powering one build
#: were two facts); a whole number there still names ("Server 1 powers the API." beside
#: "Server 2 …": two servers may), and neither is a counted noun
SOLE_VERBS: Final = frozenset(("powers", "drives", "backs", "builds", "runs", "compiles"))
#: the verbs of a toolchain ("Node 20 builds the frontend.", "Java 17 compiles the
#: backend."): what builds or compiles a thing is a compiler or a runtime, and its whole
#: number is its version too, the value ("Node 18 builds the frontend." contradicts it;
#: named, the two were two facts); a server or a worker numbered so powers or runs things
_TOOL_VERBS: Final = frozenset(("builds", "compiles", "transpiles", "bundles"))
#: words of a bound or an estimate before a number ("at most 100 jobs", "max 10
#: connections", "roughly 500 emails"): no name it numbers (read as "most 100", the claim
#: stated no value, and "… at most 200 jobs." was written beside it)
_BOUNDS: Final = frozenset(
    "most least max min maximum minimum roughly approximately approx around nearly almost"
    " exactly only over under above below".split())
#: a fraction below one ("The threshold 0.8 triggers alerts."): a value, never a name
_FRACTION: Final = lazy(r"0\.\d+")
_VERB_BEFORE: Final = lazy(r"\b(?:is|are|was|were)\b|=")
#: the verb of a listener before its port, ending the clause ("The API answers on port
#: 9090.", "… accepts connections on port 9090.", with what any listener takes:
#: connections, requests, traffic): it says where the subject listens, and is read as
#: "listens" (a word of the subject phrase, it named a narrower thing than the API; blanked,
#: a number before it was a value: "Service 77 listens on port 2078" names service 77). The
#: verb follows a word not ending in "s": after a verb, a noun is what is served there,
#: a narrower thing ("exposes metrics on port 9100")
LISTENER_VERB: Final = lazy(
    r"(?<=[a-z0-9][a-rt-z0-9] )[a-z]+s(?: (?:connections|requests|traffic))?"
    r"(?= (?:on|at) port \S+(?: (?:in|for|behind|inside)\b[^.;!?]*)?(?:[.;!?,]|$))")


#: verbs that state the value after them, as "is" does: no product's name ("remains 1"
#: and "remains 1.5" were a line and a release of it, and agreed)
_LINKING: Final = frozenset(
    "remains remained stays stayed becomes became reaches reached hits totals averages "
    "exceeds stands sits".split())


def after_name(text: str, start: int) -> bool:
    """Whether the value at ``start`` follows a name ("Postgres 16", not "is 16" nor "30
    MB 16")."""
    if start < 2 or text[start - 1] != " ":
        return False
    # the word before the space, found without an expression (one searched from each of
    # the 40 characters before the value: 3 µs of a claim's 40)
    word = text[text.rfind(" ", 0, start - 1) + 1:start - 1]
    return (word[:1].isalpha() and word.isascii() and word.isalnum() and word not in STOP
            and word not in UNITS and word not in _LINKING)


#: verbs of a failure: what fails fails somewhere, and a product's version after the verb
#: says where ("The app crashes on Windows 11."), so failing on another is another fact
_FAILURE_VERBS: Final = frozenset(
    "crash crashes crashed fail fails failed break breaks broke hang hangs hung freeze"
    " freezes froze panic panics panicked segfault segfaults segfaulted".split())


_WORDS_OF_CLAIM: Final = lazy(r"[A-Za-z][A-Za-z0-9]*")
#: words whose number is a code saying how a thing fails, never a product's version,
#: however typed ("fails with Error 2", make's words; "HTTP 403", "Status 500", "Exit 137")
_CODE_WORDS: Final = frozenset(
    "error errors errno exit status code http https signal return rc".split())
#: a Chinese verb of failure later in the value's clause (a dot there is a version's)
_HAN_FAILED_AFTER: Final = lazy(r"[^。；，,;!?]*?(?:失败|崩溃|报错|出错|挂掉|卡死)")


def failed_on(text: str, start: int, value: str, claim: str) -> str | None:
    """``name-nVERSION`` for a version after a product's name (written with a capital in
    ``claim``, the text as typed, first or not: ``macOS``, ``iOS``) in a clause of failure
    ("crashes on Windows 11", "fails with Python 3.12"), else None: a subject term beside
    the value, so a failure on another version is about another platform (read as the
    value only, "… crashes on Windows 10." was refused beside "… crashes on Windows 11."),
    while "no longer crashes on Windows 11" still denies the failure on that one; "fails
    with exit code 2" states how it fails, and "… exit code 3" contradicts it, as "Error 1"
    does "Error 2" (:data:`_CODE_WORDS`)."""
    if value[:2] != "v:" or not PLAIN_NUMBER.fullmatch(value, 2) or not after_name(
            text, start):
        return None
    if _FAILURE_VERBS.isdisjoint(ASCII_WORD.findall(clause_before(text, start))) and (
            text.isascii() or _HAN_FAILED_AFTER.match(text, start) is None):
        # (a Chinese verb follows its place: "在 Python 3.12 上失败")
        return None
    name = text[text.rfind(" ", 0, start - 1) + 1:start - 1]
    if name in _CODE_WORDS or not any(
            not word.islower() for word in _WORDS_OF_CLAIM.findall(claim) if word.lower() == name):
        return None  # (a capital anywhere: "Windows 11", "macOS 14", "iOS 17")
    return f"{name}-n{value[2:].replace('.', '_')}"


def range_name(text: str, start: int) -> str | None:
    """The name a hyphenated number at ``start`` numbers ("step" of "step 3-5"), or None:
    after a stop word ("the date is 2024-01-02") or a word a range is of ("ports
    8000-8010": the ports it states, which agree with a port inside them)."""
    word = _WORD_BEFORE.search(text, max(0, start - 40), start)
    if word is None or word.group(1) in STOP or term(word.group(1)) in _RANGE_OF:
        return None
    return word.group(1)


#: a number of dimensions glued to its "d" ("2d", "3D"; folded): before a plural noun it
#: names the things' kind ("supports 2d arrays" and "supports 3d arrays" are two facts),
#: where after a number "d" is otherwise days ("Logs are kept for 7d.", "a 3d TTL")
_DIMENSION: Final = lazy(r"[1-4]d")


def identifier(text: str, start: int, end: int, raw: str) -> str | None:
    """``word-nN`` when a plain number or a version sits between a name and a verb ("rack
    3 holds", "Python 3.12 supports …": read as values, and "supports" as the noun they
    count, "Python 3.10 supports …" was refused beside it), so it identifies the subject
    rather than stating a value; else None. Before the
    clause's verb ("Issue 42 is closed.", "Python 3.11 is supported.", "API v1 is
    disabled."), a number or a version after a name names it too: the value, if any,
    comes after the verb. A number of dimensions before a plural noun (:data:`_DIMENSION`)
    is itself the name."""
    if _DIMENSION.fullmatch(raw) and COUNTED.match(text, end):
        return raw  # "2d arrays", "3d models": the kind of the things, not two days
    if PER.match(text, end) is not None:
        return None  # "allows 5 req/s": a rate (named, "req/s" was a path both stated)
    before = ASCII_WORD.findall(text[max(0, start - 40):start])
    after = ASCII_WORD.match(text[end:].lstrip())
    if not before or after is None or text[end:end + 1] not in (" ",):
        return None
    name, follower = before[-1], after.group(0)
    if name in STOP or name in _BOUNDS or follower in UNITS or (
            name == "t" and text[start - 4:start - 2] == "n'"):
        return None  # (the "t" of "isn't 5432 anymore" is no name)
    number = raw[1:] if raw[:1] == "v" else raw  # "API v1 is …" names API 1
    if follower in _COPULAS:
        if not PLAIN_NUMBER.fullmatch(number) or _VERB_BEFORE.search(
                clause_before(text, start)):
            return None
        if _DEFINITE.match(text, len(text) - len(text[end:].lstrip()) + after.end()):
            return None  # "Python 3.11 is the minimum version": which one, the value
    elif not PLAIN_NUMBER.fullmatch(raw if number.count(".") < 2 else number) or (
            follower in VALUE_FOLLOWERS) or (follower in SOLE_VERBS and (
                "." in number or follower in _TOOL_VERBS)) or (
            _FRACTION.fullmatch(raw)) or _counts_last(text, start, end):
        return None  # ("Release v2.3.0 shipped …" names it; "API v2 serves …" states v2)
    # one word (a dot would end it: "tls-n1.0" and "tls-n1.2" were both "tls-n1")
    return f"{name}-n{number.replace('.', '_')}"


def _counts_last(text: str, start: int, end: int) -> bool:
    """Whether the number from ``start`` to ``end`` counts the plural noun after it (or,
    1, the singular one), the last word of its clause or one of a rate ("holds 500
    entries.", "holds 8 connections per worker", "needs 1 approval."): the value, not a
    name before its verb ("Rack 3 holds …", "Service 7 listens on …"). After a name, the
    word is the clause's verb ("Migration 42 fails.", "Worker 2 crashes.": read as counts,
    two migrations failing were refused as a conflict), so the word before the number
    must read as a verb (:func:`_verb_before`)."""
    counted = COUNTED.match(text, end) or (
        _ONE_COUNTED.match(text, end) if text[start:end] == "1" else None)
    if counted is None or counted.group(1) in STOP | VALUE_FOLLOWERS | SOLE_VERBS or (
            not _verb_before(text, start)):
        return False
    after = _NEXT_WORD.match(text, counted.end())
    return after is not None and after.group(1) in (None, "per")


#: the noun one thing is counted by, singular ("needs 1 approval.": read as the name
#: "needs 1" before a verb, the claim stated no value beside "needs 2 approvals.")
_ONE_COUNTED: Final = lazy(r" ([a-z][a-z-]*)\b")
#: what follows a word: the next word, or the end of the clause
_NEXT_WORD: Final = lazy(r" *(?:([a-z][a-z0-9]*)\b|[.;:,!?)](?:\s|$)|[。；，]|$)")


#: a word that reads as a verb: of the third person ("holds", "contains"; not "class",
#: "status", "analysis", "macos"), of the past ("reached", "held"), or a modal's
#: infinitive after it ("can hold")
_VERB_FORM: Final = lazy(r"[a-z]*(?:[^suio]s|ed)|held|kept|had|ran|took|got")
_BEFORE_INFINITIVE: Final = frozenset(
    "can could may might must shall should will would to does do did".split())


def _verb_before(text: str, start: int) -> bool:
    """Whether the word right before the number at ``start`` may be a verb counting it
    ("holds 500 entries.", "can hold 500 entries."), not a name it numbers ("Migration 42
    fails."). Anything other than a plain word there ("= 1500 tests", "isn't 1500
    tests", "为 1500 tests") is no name."""
    if text[start - 1:start] != " ":
        return True
    cut = text.rfind(" ", 0, start - 1)
    word = text[cut + 1:start - 1]
    if not (word.isascii() and word.isalpha()):
        return True
    return _VERB_FORM.fullmatch(word) is not None or (
        text[text.rfind(" ", 0, max(cut, 0)) + 1:max(cut, 0)] in _BEFORE_INFINITIVE)


#: a place a state holds in, right before its value: "enabled in eu-west-1", "on db-1",
#: "on port 8080", "for orders.db" (a word between: the noun naming the place)
_PLACE_BEFORE: Final = lazy(r"\b(?:in|on|for) (?:[a-z][a-z0-9_-]* )?$")
#: the same in Chinese, its place before the state ("在端口 8080 上启用", "在 db-1 上已启用")
_HAN_PLACE_BEFORE: Final = lazy(r"在 ?(?:[\u4e00-\u9fff]{1,4} ?)?$")


def places(text: str, spots: list[tuple[int, str]], state_at: int) -> frozenset[str]:
    """Of the values at ``spots`` (start, value), those naming where the claim's state
    (its first state word at ``state_at``) holds: a name, a host, a path or a port after
    that word and a preposition of place, or after 在 (Chinese says where first). The
    same state in two places is two facts ("Maintenance mode is enabled on db-1." and
    "… on db-2."), while an amount of it
    ("enabled for 10% of users", "at 100 req/s") and a date are what it is and when."""
    return frozenset(value for start, value in spots
                     if value[:2] == "v:" and not ISO_DATE.fullmatch(value, 2) and (
                         (start > state_at and _PLACE_BEFORE.search(
                             text, max(0, start - 40), start) is not None)
                         or _HAN_PLACE_BEFORE.search(text, max(0, start - 8), start)))
