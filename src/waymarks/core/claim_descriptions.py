"""Two descriptions of one person or thing are two facts, not two values of one attribute.

The replay rule keys ``X is Y`` on ``X`` (:func:`waymarks.core.text.derive_key`), so a
second ``X is …`` was refused as another value of the first. Said of a value ("The log
level is info." / "… is debug.") that is the point; said of what someone is doing or how
they feel about something, it refused every second sentence about them ("Jon is starting
his own dance studio due to his passion for dancing." beside "Jon is working on new dance
routines …", "Melanie is supportive of Caroline …" beside "Melanie is currently managing
kids and work …": 178 of the 1210 LoCoMo-derived claims, ``benchmarks/ordinary_refusals.py``).

A predicate is a *description* when, past its adverbs ("currently", "also", "very" …), it
is a verb in ``-ing`` with words after it (what is being done: "is working on X", not the
state "is failing."), or a word followed by a preposition that takes a complement
("supportive of", "allergic to", "passionate about"), not a participle (a deed done to
it, a place, a tool: "is kept in Redis", "is built with MkDocs", "are made from main")
unless of a feeling or a stance ("interested in", "excited to", "involved in"). Two claims whose
predicates are both descriptions, and neither of which states a value, are two facts to
:func:`waymarks.core.rules.key_apart`: written with a key of their own.

What someone *is* beside what they are doing is two facts too: a role ("is a teacher",
"is a fan of …", "is a member of …", "is part of …"), where they belong ("is on the
backend team", "is in a beginner yoga class") or a trait ("is supportive and …", "is
lactose intolerant") beside a description ("Jon is a teacher." / "Jon is learning to
paint on weekends."). Two such states of one subject still key their value ("Jon is a
teacher." / "Jon is a doctor.", "The API is stable and fast." / "… is slow and flaky."),
as does a word ending the claim ("The build is green."). Pure."""

from __future__ import annotations

from typing import Final

from waymarks.core.claim_terms import IRREGULAR_PARTICIPLES
from waymarks.core.lazy_re import lazy

#: "X is|are <adverbs> <word> <next>": the predicate's first word and the one after it
_PREDICATE: Final = lazy(
    r"^[^,;:]+? (?:is|are|was|were) (?:(?:currently|now|still|also|very|really|actively"
    r"|particularly|always|often|usually|quite|so|deeply|increasingly|already|heavily"
    r"|totally|truly|genuinely|highly|extremely|incredibly|super) )*"
    r"(?P<word>[a-z]+) ['\"]?(?P<next>[a-z]+)\b(?P<rest>.*)", )
_PREPOSITIONS: Final = frozenset(
    "of to in about for with on at by into toward towards from".split())
#: participles of a feeling or a stance toward something ("excited to", "interested in",
#: "involved in"): how someone stands to a thing, where a participle before a
#: preposition is otherwise a deed done to it, a place or a tool ("is kept in Redis",
#: "is built with MkDocs", "are made from main": values, and the key holds)
_STANCES: Final = frozenset(
    """excited interested involved focused inspired determined encouraged motivated
    invested stressed committed dedicated devoted thrilled pleased worried concerned
    obsessed fascinated hooked amazed impressed engaged absorbed consumed delighted
    overwhelmed frustrated disappointed surprised touched moved intrigued""".split())
#: "is a teacher", "is an engineer", "is one of …", "is part of …", "is a member of …"
_ROLES: Final = frozenset("a an one part member".split())
#: "is on the backend team", "is in a beginner yoga class": where someone belongs (a
#: determiner after it; "is in us-east-1" is a value)
_PLACES: Final = frozenset("in on at".split())
_BELONGING: Final = frozenset("a an the his her their our my its".split())
#: the last word of a trait of two words or more, ending the claim or before "and" or a
#: comma ("is lactose intolerant.", "… intolerant and …")
_TRAIT: Final = lazy(r"(?:ant|ent|ive|ous|ful|ible|able)$")
#: what may follow a trait: the claim's end, "and …", a comma
_ENDS: Final = lazy(r"\s*(?:[.!]?\s*$|and |,)")
#: words in "ing" that are no verb of doing ("thing", "string", "nothing")
_NOT_DOING: Final = frozenset("thing string nothing something anything everything king"
                              " spring ring ceiling".split())


def description(text: str) -> bool:
    """Whether ``text`` (lower case) says what its subject is doing or how it stands to
    something, no value of it (see the module)."""
    return _kind(text) == "doing"


def _kind(text: str) -> str | None:
    """``"doing"`` (what its subject is doing, how it stands to something), ``"state"``
    (a role, where it belongs, a trait) or ``None`` (maybe a value: see the module)."""
    found = _PREDICATE.match(text)
    if found is None:
        return None
    word, after = found.group("word"), found.group("next")
    if word.endswith("ing") and len(word) > 4 and word not in _NOT_DOING:
        return "doing"
    if word in _STANCES or (after in _PREPOSITIONS and not word.endswith("ed")
                            and word not in IRREGULAR_PARTICIPLES):
        return "doing"  # (a feeling before any word: "is determined not to …")
    if word in _ROLES or (word in _PLACES and after in _BELONGING) or (
            after == "and" and not word.isdigit()) or (
            _TRAIT.search(after) is not None and _ENDS.match(found.group("rest"))):
        return "state"
    return None


def descriptions(mine: str, theirs: str) -> bool:
    """Whether both claims (normalized) describe their subject, one at least saying what
    it is doing or how it stands to something (:func:`description`), the other that or
    what it is (a role, where it belongs, a trait)."""
    kinds = (_kind(mine), _kind(theirs))
    return None not in kinds and "doing" in kinds
