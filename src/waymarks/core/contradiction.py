"""Claim signatures: what a short factual claim is about, and the value it states.

The replay rules (:mod:`waymarks.core.rules`) find conflicts by an exact derived key or an
opposite polarity inside one partition; they miss paraphrases ("The dev DB listens on
5436." beside "The database port is 5435."), Chinese claims (``数据库端口是 5434。``) and
claims in the other scope a session sees. A *signature* splits a claim into its subject
terms (words mapped to a small bilingual vocabulary of canonical names, so ``DB``,
``database`` and ``数据库`` are one term and ``listens on`` is the port) and its values
(numbers, versions, times, paths, on/off states). Two claims contradict when

- both state values of one kind (a state, a number, a duration, a size…) and no value
  is shared, or one denies a value the other states ("is not 5432", "不是 5432"), and
- their subjects are equal, or the smaller (at least two terms: a subject and an
  attribute) is contained in the larger ("the dev database port" is about "the database
  port", "the database host" is not).

Pure, deterministic and small on purpose: it decides whether a *write request* is refused
(:mod:`waymarks.core.decisions`), never what a ledger already holds means, so improving it
cannot change the replay of existing ledgers. Long claims (more subject terms or values
than a fact states) have no signature: they are descriptions, not single facts; nor has a
text longer than any claim a write accepts (:data:`~waymarks.core.model.MAX_CLAIM_CHARS`),
which only a ledger written by hand or by other code can hold: its numbers could exceed
what Python converts (4,300 digits: ``ValueError``), and reading a megabyte took seconds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from itertools import combinations
from typing import Final

import msgspec

from waymarks.core.claim_about import MAX_EXTRA_TERMS
from waymarks.core.claim_about import MIN_CONTAINED_TERMS as MIN_CONTAINED_TERMS
from waymarks.core.claim_about import about as _about
from waymarks.core.claim_about import narrower as _narrower
from waymarks.core.claim_bounds import bound_at, bounds_clash, worded_bounds
from waymarks.core.claim_change_verbs import describing
from waymarks.core.claim_days import on_other_days
from waymarks.core.claim_denials import (
    NEGATION,
    clause_before,
    is_denied,
    never_done,
    not_made,
)
from waymarks.core.claim_frames import active
from waymarks.core.claim_kinds import kind_subject, kind_values
from waymarks.core.claim_names import (
    LISTENER_VERB,
    NUMBERED,
    after_name,
    failed_on,
    places,
    range_name,
)
from waymarks.core.claim_names import (
    identifier as name_of,
)
from waymarks.core.claim_schedules import han_schedule
from waymarks.core.claim_states import stated_state
from waymarks.core.claim_terms import HAN_NOUN_VERBS as _HAN_VERBS
from waymarks.core.claim_terms import TERMS as _TERMS
from waymarks.core.claim_terms import UNITS as _UNITS
from waymarks.core.claim_units import with_unit
from waymarks.core.claim_values import MERIDIEM as _MERIDIEM
from waymarks.core.claim_values import PLAIN_NUMBER as _PLAIN_NUMBER
from waymarks.core.claim_values import (
    WordPatterns,
    agreeing,
    clock,
    durations,
    frequencies,
    kinds,
    located,
    one_amount,
    spelled,
    thousands,
)
from waymarks.core.claim_values import dated as _dated
from waymarks.core.claim_values import place as _place
from waymarks.core.claim_word_values import word_values
from waymarks.core.claim_words import STOP as _STOP
from waymarks.core.claim_words import adds
from waymarks.core.claim_words import subject_terms as _subject_terms
from waymarks.core.lazy_re import lazy
from waymarks.core.model import MAX_CLAIM_CHARS
from waymarks.core.privacy import strip_markers
from waymarks.core.text import fold_unicode, straight_apostrophes, undotted_i

MAX_SUBJECT_TERMS: Final = 7
MAX_VALUES: Final = 3
#: signatures kept per process: a write compares its claim with every active claim of the
#: partitions it sees, so without the memo each write re-analysed all of them (O(n))
SIGNATURE_MEMO: Final = 1 << 16

#: where a value (:data:`_VALUE`) may start, tested before its alternatives (which cost
#: 30 µs a claim tried at every position): not inside an ASCII word (only an IPv6 address
#: in brackets starts there), and a run of characters up to a space holding a digit or
#: one of ``/:*.[,-`` (each alternative's value has one before its first space)
_VALUE_START: Final = r"(?:(?<![a-z0-9_])|(?=\[))(?=(?>[^\s\d/:*.\[,-]*)[\d/:*.\[,-])"

#: a value is matched whole or not at all: the number alternative is atomic and may not
#: end before ``-``, ``/`` or a letter, nor start after ``3:`` (it backtracked to a
#: fragment: ``python:3.12-slim`` read as 3, ``2.0.0-rc1`` as 2.0, ``02:00-04:00`` as
#: 02 and 00, ``12/20`` as 12, and the fragment shared with ``python:3.11-slim`` meant
#: agreement); a cron line, a time or time range, an ISO date and a URL are one value each.
#: Each value holds, before any space, a digit or one of ``/:*.[,-`` (:data:`_VALUE_START`)
#: (the alternatives that may not follow a word character say so once for each run of them:
#: each copy of the class :class:`WordPatterns` compiles for a Chinese, Japanese or Korean
#: text costs re's compiler ~1.2 ms)
_VALUE: Final = WordPatterns(_VALUE_START + "(?:" + (
    r"(?<!\w)(?:(?<![*/,-])(?=(?:[\d*/,-]+ ){0,4}[\d/,-]*\*)(?:[\d*/,-]+ ){4}[\d*/,-]+(?![\w*/,-])"
    r"|(?<![.:/-])(?P<clock>\d{1,2}:\d{2}(?::\d{2})?(?:-\d{1,2}:\d{2}(?::\d{2})?)?)"
    r"(?!(?![ap]\.?m\b)[\w/:-])"  # ("7:45am": its half of the day glued to it)
    r"|(?<![./-])\d{4}-\d{2}-\d{2}(?![\w/-]))"
    # an IPv6 address, in brackets with a port or without them ("[::1]:8080", "::1",
    # "2001:db8::10"; read as numbers, "::1" was the port 1)
    r"|\[[0-9a-f.:]*:[0-9a-f.:]*\](?::\d{1,5})?(?![\w:/-]|\.\w)"
    r"|(?<!\w)(?:(?<![.:\[])(?=[0-9a-f]{0,4}:)(?=[0-9a-f:]*[0-9a-f])"
    r"(?=[0-9a-f]*(?::[0-9a-f]*)*::|(?:[0-9a-f]{1,4}:){7}[0-9a-f])"
    r"[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}(?![\w:-]|\.\w)"
    r"|(?<![.-])[a-z][a-z0-9+.-]*://[^\s,;)\]>\"'。、）]+"
    # an image or package reference with its tag ("python:3.12-slim", "redis:7.2")
    r"|(?<![./:-])[a-z][\w.+-]*(?:/[\w.+-]+)*:(?:\d[\w.-]*[a-z_-]|\d+\.\d|[a-z][\w.-]*\d)"
    r"[\w.-]*(?<![.-])(?![\w:/-]))"
    r"|(?<![a-z0-9_./-])(?<!\d:)(?>v?\d+(?:[.:]\d+)*)(?:%|ms|secs?|s|mins?|m|hrs?|h|d|w|[kmgt]i?b|[kmgt]i)?"
    r"(?![a-z0-9_/-])"
    # a range ("ports 8000-8010"): one value, unless a name's number (:data:`NUMBERED`)
    r"|(?<!\w)(?:(?<![./:-])(?P<range>\d+-\d+)(?![\w/:-]|\.\w)"
    r"|(?<![./~-])(?:~|\.{1,2})?/?(?:[\w.@+-]+/)+[\w.@+-]+"
    # a folder and its slash ("dist/", "./dist/"), before a space, a full stop or the end
    r"|(?<![./~-])(?:~/|\./)?[\w.@+-]*\w/(?![\w/-]|\.\w)"
    # host names (with a port: "smtp.example.com:587", one value as "10.0.0.5:5432" is),
    # dotted identifiers
    r"|(?<![.-])[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d{1,5}(?![a-z0-9_/:-]|\.[a-z0-9]))?(?![\w-])"
    # a hyphenated name ending in a number ("us-east-1"): a value after a copula only
    r"|(?<![./-])(?P<named>[a-z][a-z0-9]*(?:-[a-z0-9]+)*-[a-z]*\d[a-z0-9]*)(?![\w-]|\.\w))") + ")")
#: a copula earlier in the clause: a hyphenated name after it is the value ("The deploy
#: region is us-east-1."), before it the subject ("The checkout-v2 flag is enabled.")
_COPULA_BEFORE: Final = lazy(r"\b(?:is|are|was|were)\b|=|是|为")
#: a clause of advice or consequence after the fact ("…, so don't rely on it", "…; nobody
#: should disable it", "，不要依赖它"): what to do about the fact, no part of its subject
#: or state (its words made the subject too long to contain the stored one's)
_ADVICE: Final = lazy(
    r"\s*(?:so|please|pls|don't|dont|do not|never|nobody|no one|you|we|it|they|see|thus|hence"
    r"|because)\b|\s*(?:不要|别|请|所以|因此|勿|不能|不用|无需)")
#: a single capital letter inside a sentence names something ("Service A"), unlike "a"
#: (before a Chinese, Japanese or Korean word too: "A 服务", "Aサービス", "A 서비스")
_LETTER_NAME: Final = lazy(  # (a capital first: the look-behinds tried at capitals only)
    r"(?=[A-Z])(?:(?<=[\w)] )[A-Z](?![\w'’-])|(?:^|(?<=[\u4e00-\u9fff]))[A-Z]"
    r"(?= ?[\u30a1-\u30fa\u4e00-\u9fff\uac00-\ud7a3]))")
#: where a claim's subject phrase ends: its copula (or the first value, when earlier)
_HEAD_END: Final = lazy(r"\b(?:is|are|was|were|be|defaults?)\b|[=,;:!?]|是|为|。")
#: where a clause ends, for text read forwards (:data:`_CLAUSE_END` is for reversed text)
_FORWARD_CLAUSE: Final = lazy(r"[.;:,!?](?:\s|$)|。|[;:,!?](?=[\u3400-\u9fff])")
#: the verbs of no subject word, English and Chinese (:func:`never_done`: "doesn't use the
#: default port", "不使用默认端口" deny which port, no count of uses)
_NO_ACTION: Final = _STOP | frozenset(_HAN_VERBS)


class Signature(msgspec.Struct, frozen=True):
    """A claim's subject terms and the values it states (both canonical)."""

    subject: frozenset[str]
    values: frozenset[str]
    #: the values the claim denies ("is not 5433", "8080, not 8000", "不是 5433"): a
    #: negation right before the value, in its clause ("never expose it" denies no value);
    #: a denied state is the opposite state instead ("is not enabled": off)
    denied: frozenset[str] = frozenset()
    #: the subject terms before the claim's verb or first value (its subject phrase: "the
    #: API metrics port" of "The API metrics port is 9090."), where a word more names a
    #: narrower thing; the terms after it qualify the value ("… 5433 after the migration")
    head: frozenset[str] = frozenset()
    #: the plain numbers of one part or two written right after a name ("Postgres 16.2",
    #: "Python 3"): a product's version, where a whole number is the line a two-part
    #: release of it belongs to (:func:`_agreeing`)
    released: frozenset[str] = frozenset()
    #: the parts of a number read both ways, as a list too ("1" and "500" of "is set to
    #: 1,500."): a part shared with another such number is no agreement (:func:`_agreeing`)
    listed: frozenset[str] = frozenset()
    #: the values naming where its state holds ("on db-1" of "… is enabled on db-1."):
    #: compared apart from the state, no value of it (:func:`_split`)
    where: frozenset[str] = frozenset()
    #: each value stated as a bound, and which ("<=" of "at most 100 jobs", of "never sends
    #: more than 50 …"): compared by size (:func:`bounds_clash`)
    bounds: frozenset[tuple[str, str]] = frozenset()
    #: it adds a value to what holds (:func:`adds`): another value is no contradiction
    adds: bool = False


#: a number grouping its thousands with commas ("1,500": groups of exactly three digits;
#: "1,2,3" is a list and "3,5" a decimal comma), and the word after it
_THOUSANDS: Final = lazy(
    r"(?<![\d,.])(\d{1,3}(?:,\d{3})+)(?![\d,])(?=( ?[a-z]+| ?[\u4e00-\u9fff])?)")


_RATE_WORDS: Final = frozenset(("per", "a", "an", "each", "every"))


def _grouped(match: re.Match[str]) -> str:
    """"1,500 tests" as 1500 tests: one number before a unit, a counted noun or a rate
    ("1,024 MB", "1,500 per minute", "1,500 个"), with a round group ("10,000"), or after
    a currency sign ("$1,500"). Anything else is left as written: both a list and a
    number (:func:`signature` reads the groups as values and adds the joined number), so
    "listens on 80,443." agrees with "port 443", and "is set to 1,500." with "1500".
    Read as one of them alone, each wording had its false conflicts."""
    follower = (match.group(2) or "").strip()
    grouped = match.group(1)
    if (follower and (follower not in _STOP or follower in _UNITS
                      or follower in _RATE_WORDS)) or ",000" in grouped \
            or match.string[max(0, match.start() - 1):match.start()] in _CURRENCY:
        return grouped.replace(",", "")
    return grouped


_CURRENCY: Final = frozenset("$€£¥")


@lru_cache(maxsize=SIGNATURE_MEMO)
def signature(claim: str) -> Signature | None:
    """The signature of a short factual claim, or ``None`` if it states no value or is
    too long to be one fact. Classification markers (``[ds4:internal]…``) are no words of
    it: read as subject terms, they made a marked claim another subject than the same
    claim unmarked, so it was kept beside the fact it contradicts."""
    claim = strip_markers(claim)
    if len(claim) > MAX_CLAIM_CHARS:  # (no one fact: see the module's docstring)
        return None
    # (the passive of use; a change describing a noun, "升到 v2 的用户数", is the noun's)
    text = _dated(thousands(han_schedule(active(describing(_folded(claim))))))
    if "," in text:  # (no thousands without one: the expression not tried, nor below)
        text = _THOUSANDS.sub(_grouped, text)
    text = worded_bounds(durations(frequencies(spelled(text))))
    pieces: list[str] = []
    text = _without_advice(text)
    if (added := adds(text)) is not None:  # "also listens on 9090": a value more, no other
        text = added
    if " port " in text:
        text = LISTENER_VERB.sub("listens", text)
    worded = text  # (a state is read with its word values: "hosted on aws." is no "on.")
    text, values, denied = kind_values(text, is_denied)  # "runs on CircleCI", "in eu-west-1"
    for start, end, said_not in word_values(text):
        word = "v:" + text[start:end]
        values.add(word)
        if said_not or is_denied(text, start, end):
            denied.add(word)
        text = text[:start] + " " * (end - start) + text[end:]
    position = 0
    phrase: str | None = None  # the subject phrase and more, up to the first value
    names: set[str] = set()  # the numbers and letters that name the subject
    released: set[str] = set()
    listed: set[str] = set()
    spots: list[tuple[int, str]] = []  # where each value starts (:func:`places`)
    bounds: set[tuple[str, str]] = set()
    for match in _VALUE.for_text(text).finditer(text):
        if match.start() < position:
            continue  # read with the value before ("p.m." of "11:30 p.m.")
        pieces.append(text[position:match.start()])
        position = match.end()
        raw = _place(match.group(0).rstrip("."))
        if match.group("clock"):  # "3:00" is "03:00", "11:30 pm" "23:30"
            half = _MERIDIEM.match(text, position)
            if half is not None:
                position = half.end()
            raw = clock(raw, half.group(1) if half else None)
        if (match.group("named") and not _COPULA_BEFORE.search(
                clause_before(text, match.start()))) or (
                match.group("range") and range_name(text, match.start()) is not None):
            pieces.append(raw)  # a name of the subject
            continue
        identifier = name_of(text, match.start(), match.end(), raw)
        if identifier is not None:  # "rack 3 holds …": the number names the subject
            pieces.append(" " + identifier + " ")
            names.add(identifier)
            continue
        if raw[:1] == "v" and raw[1:2].isdigit():
            raw = raw[1:]  # "v3.2" and "3.2" are one version
        value, position, noun = with_unit(text, raw, position)
        bound = bound_at(text, match.start())
        if bound is not None:  # its words qualify the value, no subject's ("most 100")
            bounds.add((value, bound[0]))
            pieces[-1] = pieces[-1][:len(pieces[-1]) - (match.start() - bound[1])]
        if phrase is None:
            phrase = "".join(pieces)
        pieces.append(f" {noun} ")
        values.add(value)
        spots.append((match.start(), value))
        if value[:2] == "v:" and value.count(".") < 2 and _PLAIN_NUMBER.fullmatch(
                value, 2) and after_name(
                text, match.start()):
            released.add(value)
        failing = failed_on(text, match.start(), value, claim)
        if failing is not None:  # "crashes on Windows 11": where, a name as well
            names.add(failing)
        if len(values) > MAX_VALUES:  # no fact, whatever follows (values only grow): a
            return None  # long text's next values each searched the text before them
        if bound is None and is_denied(text, match.start(), position):
            denied.add(value)
    for both in _THOUSANDS.finditer(text) if "," in text else ():  # left as written:
        # the number it may be too
        joined = "v:" + both.group(1).replace(",", "")
        values.add(joined)
        listed.update("v:" + part for part in both.group(1).split(","))
        if is_denied(text, both.start(), both.end()):
            denied.add(joined)
    rest = "".join(pieces) + text[position:]
    state = stated_state(worded)
    where = frozenset[str]()
    if state is not None:
        values.add("s:" + state[0])
        where = places(text, spots, state[1])
        if phrase is None:  # a state only: its subject phrase ends at the state word
            phrase = text[:state[1]]
    if not values and never_done(text, _NO_ACTION):  # "does not retry failed rows": no times
        values.add("v:0")
    if not values and (made := not_made(rest)) is not None:  # "is not sharded": 1 shard
        values.add("c:1")
        rest = made
    if not values or len(values) > MAX_VALUES:
        return None
    subject = kind_subject(_subject_terms(rest), values)
    phrase = rest if phrase is None else phrase
    verb = _HEAD_END.search(phrase)
    head = _subject_terms(phrase[:verb.start()] if verb else phrase)
    # "build step 3-5 takes 5s" and "build step 3-7 takes 7s" are about two steps (a
    # hyphenated number after a name is part of the name, never a value; after a stop
    # word, as in "the date is 2024-01-02", it is not taken as a name)
    if "-" in text:
        names.update(f"{m.group(1)}-n{m.group(2)}" for m in NUMBERED.finditer(text)
                     if range_name(text, m.start(2)) is not None)
    names.update("x:" + m.group(0).lower() for m in _LETTER_NAME.finditer(claim))
    if len(subject) == 1 and not names:  # a thing alone at an address: its host, its port
        subject |= located(values - denied, (value for start, value in spots
                                             if text[start - 3:start] in ("on ", "at ")))
    subject |= names
    if not subject or len(subject) > MAX_SUBJECT_TERMS:
        return None
    return Signature(frozenset(subject), frozenset(values), frozenset(denied),
                     frozenset(head & subject | names), frozenset(released),
                     frozenset(listed), where, frozenset(bounds), added is not None)


def _without_advice(text: str) -> str:
    """``text`` with each clause of advice (:data:`_ADVICE`) after the first blanked, unless
    it states a value ("so don't use 5433" denies one)."""
    ends = [m.end() for m in _FORWARD_CLAUSE.finditer(text)]
    for start, end in zip(ends, [*ends[1:], len(text)], strict=False):
        clause = text[start:end]
        if _ADVICE.match(clause) and _VALUE.for_text(clause).search(clause) is None:
            text = text[:start] + " " * len(clause) + text[end:]
    return text


def unplaced_negation(claim: str, found: Signature) -> bool:
    """Whether ``claim`` holds a negation its signature placed neither on a value (a
    denied value) nor on a state (the opposite state), in a clause that states a value:
    what it denies is not known. One in another clause denies no value of it ("The cache
    is 512 MB, so don't raise it."): counted, an n't anywhere kept such a claim in
    conflict with one it only shares a derived key with."""
    if found.denied or any(value.startswith("s:") for value in found.values):
        return False
    return any(NEGATION.search(clause) is not None
               and _VALUE.for_text(clause).search(clause) is not None
               for clause in _FORWARD_CLAUSE.split(_folded(claim)))


def negates(claim: str) -> bool:
    """Whether a claim denies something ("is not 5433", "不是"): a signature keeps the
    denied value as a value, so a shared value proves no agreement then."""
    return NEGATION.search(_folded(claim)) is not None


def _folded(claim: str) -> str:
    """A claim's comparison form with its apostrophes straight ("isn’t" is "isn't") and
    no dot above an i ("İzmir" is "izmir")."""
    return undotted_i(straight_apostrophes(fold_unicode(claim)))


def contradicts(a: Signature, b: Signature) -> bool:
    """Same subject (or one contained in the other), a kind of value both state, and no
    value in common, or a value in common that one of them denies ("the port is 5432" /
    "the port is not 5432"). Values of other kinds are other attributes of the subject:
    "the payment service is enabled" (a state) says nothing of the port it listens on (a
    number), nor "the test suite takes 12 minutes" (a duration) of the 1500 tests it has.
    A state and the values beside it are compared apart (:func:`_split`): a state in
    common is no agreement on the values ("enabled for 10% of users" / "… 50% …"), nor
    a value in common on the state ("enabled on port 8080" / "disabled on port 8080")."""
    if on_other_days(a.values, b.values) or not any(
            _clash(mine, theirs) for mine, theirs in _split(a, b)):
        return False  # (opposite states on other days: core/claim_days.py)
    return a.subject == b.subject or _about(a, b) or _about(b, a)


def _clash(a: Signature, b: Signature) -> bool:
    """Whether the values of ``a`` and ``b`` disagree: none in common, of a kind both
    state, or one in common that only one of them denies."""
    by_size = bounds_clash(a, b)
    if by_size is not None:
        return by_size
    shared = _agreeing(a, b)
    if shared:
        return not all((mine in a.denied) == (theirs in b.denied) for mine, theirs in shared)
    # other attributes, a side asserting none ("is not 5432"), a bare number that is the
    # measure's amount ("30" and "30 seconds"), or one more value: no disagreement
    return not _other_attributes(a, b) and not _one_more(a, b)


def _one_more(a: Signature, b: Signature) -> bool:
    """Whether one side adds a value ("also on 9090"), of no state (one holds at a time)."""
    return (a.adds or b.adds) and not any(v[:2] == "s:" for v in a.values | b.values)


#: the kinds of value compared apart from the others (:func:`_split`): a state, a rate, a
#: day of the week
_APART: Final = ("s:", "r:", "k:weekday:")


def _split(a: Signature, b: Signature, apart: tuple[str, ...] = _APART
           ) -> list[tuple[Signature, Signature]]:
    """``a`` and ``b`` whole, or, when both state a state (then a rate, then a day of the
    week) and other values, those and their other values apart: one in common of either
    was taken for agreement on all ("The allowed ports are 9000-9010." agreed with "…
    8000-8010.", both "allowed"; "runs once a day at 02:00" with "… at 03:00", both once
    a day; "starts on Friday at 16:00" with "… on Thursday at 16:00", both at 16:00)."""
    if not apart:
        return [(a, b)]
    kind = apart[0]
    ours = [frozenset(v for v in side.values if v.startswith(kind)) for side in (a, b)]
    if not all(ours) or ours[0] == a.values or ours[1] == b.values:
        return _split(a, b, apart[1:])
    # (where each holds is none of them: the same state on db-1 and on db-2 is two facts)
    mine, theirs = (_only(side, side.values - found - (side.where if kind == "s:" else set()))
                    for side, found in ((a, ours[0]), (b, ours[1])))
    return [(_only(a, ours[0]), _only(b, ours[1])), *_split(mine, theirs, apart[1:])]


def _only(side: Signature, values: frozenset[str]) -> Signature:
    return msgspec.structs.replace(side, values=values, denied=side.denied & values)


def _agreeing(a: Signature, b: Signature) -> list[tuple[str, str]]:
    """The pairs of values of ``a`` and ``b`` that state one thing (:func:`agreeing`), and
    a product's major version beside a two-part release of it, both written after a name:
    "Postgres 16" and "Postgres 16.2" (a number after no name, "is 1" and "is 1.5", may
    be a decimal, and differs)."""
    shared = agreeing(a.values, b.values)
    if a.listed and b.listed:  # "1,500" and "2,500": one number or one list each, and
        # either way another ("500" in common agreed): only the whole groups may agree
        shared = [(mine, theirs) for mine, theirs in shared
                  if mine not in a.listed or theirs not in b.listed]
    if a.released and b.released:
        shared.extend((mine, theirs) for mine in a.released for theirs in b.released
                      if _line_of(mine, theirs) or _line_of(theirs, mine))
    return shared


def _line_of(major: str, release: str) -> bool:
    return "." not in major and release.count(".") == 1 and release.startswith(major + ".")


def _other_attributes(a: Signature, b: Signature) -> bool:
    """Whether the values ``a`` and ``b`` assert are of no kind in common, or one is a bare
    number that is the other's measured amount (:func:`one_amount`)."""
    mine, theirs = a.values - a.denied, b.values - b.denied
    return kinds(mine, _VERSION in a.subject).isdisjoint(
        kinds(theirs, _VERSION in b.subject)) or one_amount(mine, theirs)


_VERSION: Final = _TERMS["version"]


def two_facts(a: Signature, b: Signature) -> bool:
    """Whether two signatures positively show two facts that may both hold: a value in
    common (the claims agree on it; :func:`contradicts` checks its denials), values of
    other kinds only (other attributes), subjects that each name something the other
    does not, or one naming a narrower thing (:func:`_narrower`). Not when one subject
    contains the other otherwise, however many terms it adds:
    "The DB port is 5433 after the March infra migration." is about the DB port (its
    reason added three subject terms, more than :data:`MAX_EXTRA_TERMS`, so the claims
    did not contradict and :func:`waymarks.core.rules.key_apart` kept both active)."""
    if contradicts(a, b):
        return False
    if _agreeing(a, b) or _other_attributes(a, b) or _one_more(a, b) or bounds_clash(
            a, b) is False or on_other_days(a.values, b.values):
        # (a value in common, other attributes, one more, within a bound, other days)
        return True
    if a.subject <= b.subject:
        return _narrower(a, b)
    return _narrower(b, a) if b.subject <= a.subject else True


def whole(subject: Iterable[str]) -> str:
    """The key of a whole subject: its terms in order (were a term to hold a NUL, two
    subjects could share a key: one more candidate, never one fewer)."""
    return "k:" + "\x00".join(sorted(subject))


def parts(subject: frozenset[str]) -> list[str]:
    """The keys of the subjects ``subject`` may contain and contradict: those of at least
    ``MIN_CONTAINED_TERMS`` terms with at most ``MAX_EXTRA_TERMS`` of its terms left out."""
    terms = sorted(subject)
    smallest = max(MIN_CONTAINED_TERMS, len(terms) - MAX_EXTRA_TERMS)
    return [whole(part) for size in range(smallest, len(terms))
            for part in combinations(terms, size)]


def subject_keys(claim: str) -> list[str]:
    """The keys a claim is found under by a claim it may contradict: each subject term
    (``t:``) and the whole subject (``k:``); none without a signature."""
    found = signature(claim)
    if found is None:
        return []
    return [*("t:" + term for term in found.subject), whole(found.subject)]
