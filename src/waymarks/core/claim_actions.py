"""What is done to the thing a claim is about, by a verb in the passive ("The release
artifacts are written to dist.", "… are signed with cosign."): the replay rule derives one
key from both (``X is Y``: "release artifacts"), and a claim of no value has no signature
to show the two apart, so the second was refused as a conflict. Two such claims whose
verbs differ say two things done to it, two facts (:func:`waymarks.core.rules.key_apart`
reads them), as two verbs of a signature's subject are two subjects ("stored in S3" and
"uploaded to GCS"); one verb with two objects ("written to dist" / "… to build") is left
to the signatures. Pure."""

from __future__ import annotations

from typing import Final

from waymarks.core.claim_terms import STATES
from waymarks.core.claim_words import STOP
from waymarks.core.lazy_re import lazy

#: the participles that do not end in "ed", as software notes use them
_IRREGULAR: Final = frozenset(
    "written built run sent kept made done held shown taken given hidden bound found driven"
    " known spun split shut".split())
#: the copula of the derived key's ``X is Y``, an adverb perhaps, the verb and the
#: preposition after it: a verb done to the thing, not a word said of it ("is fast")
_PASSIVE: Final = lazy(
    r"^[^=]+? (?:is|are)(?: (?:now|also|always|automatically|currently|only))?( not)?"
    r" ([a-z]+) (?:to|into|in|on|onto|under|with|by|from|for|at|via|using|through|as)\b")
#: verbs that say a value or a state rather than an action ("is set to 5433", "is changed
#: to debug", "is enabled in staging"): the signatures compare those
_NO_ACTION: Final = frozenset(
    "set changed switched updated moved configured pinned limited capped enabled disabled"
    " activated deactivated allowed required".split()) | frozenset(STATES)


#: a participle ending the claim after its copula, a negation or an adverb perhaps ("The
#: default branch is protected.", "… is not protected."): what is done to the thing, with
#: nothing after it
_PARTICIPLE_ENDS: Final = lazy(
    r"^[^=]+? (?:is|are)(?: (?:not|now|also|always|automatically|currently|only))? ([a-z]+)$")


def passive_verb(norm: str, *, denied: bool = False) -> str | None:
    """The verb of a claim (normalized) saying what is done to its subject in the passive,
    or ``None``; with ``denied``, also one saying it is not done ("… is not blocked by the
    firewall.")."""
    found = _PASSIVE.match(norm)
    if found is None or (found.group(1) and not denied):
        return None
    return _action(found.group(2))


def _action(verb: str) -> str | None:
    """``verb`` when it is a participle saying an action (no value nor state), else
    ``None``."""
    if verb in _NO_ACTION or (verb in STOP and verb not in _ADDITIVE) or not (
            verb.endswith("ed") or verb in _IRREGULAR):
        return None
    return verb


#: verbs done to a thing that end or replace it ("is replaced by Valkey", "is deprecated in
#: favour of …"): said beside a value of it, they change that value
_ENDINGS: Final = frozenset(
    "replaced superseded removed retired deprecated decommissioned dropped migrated renamed"
    " deleted sunset".split())


def action_beside_value(action: str, valued: str) -> bool:
    """Whether ``action`` (normalized, a claim of no value) says a thing done to its
    subject in the passive ("The config file is reloaded on SIGHUP.", "The default branch
    is protected.", or not: "… is not protected.") and ``valued`` (a claim stating a value:
    "The config file is at /etc/app/config.yaml.", "The default branch is main.") says
    none: what is done to it, or not, is no other value of it (a verb that ends or replaces
    it aside, and the same participle denied: "The search index is not sharded." reads as
    one shard)."""
    verb = passive_verb(action, denied=True)  # ("… is not blocked by the firewall.")
    if verb is None:
        verb = _participle_ending(action)
    if verb is None:  # "Feature branches are deleted after merge.": a rule of when, even
        ruled = _WHEN.match(action)  # for a verb that ends it (no end of it now)
        return ruled is not None and _action(ruled.group(1)) is not None and passive_verb(
            valued) is None
    return verb is not None and verb not in _ENDINGS and passive_verb(valued) is None and (
        _participle_ending(valued) != verb)


#: a verb done to the subject in the passive, then when ("are deleted after merge", "… once
#: merged", "… when the PR closes"): a rule of its life, no value of it
_WHEN: Final = lazy(
    r"^[^=]+? (?:is|are)(?: (?:automatically|always|only))? ([a-z]+) (?:after|once|when|upon)\b")


def _participle_ending(norm: str) -> str | None:
    ending = _PARTICIPLE_ENDS.match(norm)
    return None if ending is None else _action(ending.group(1))


#: verbs whose objects add up rather than replace each other ("is used for sessions" and
#: "… for rate limiting too", "is called by the CLI" and "… by the scheduler"): the same
#: verb with another object is another fact, unless a claim says it is the only one
_ADDITIVE: Final = frozenset(
    "used called consumed accessed imported shared referenced monitored scraped".split())
_ONLY: Final = lazy(r"\b(?:only|exclusively|solely|just)\b")


def other_actions(one: str, other: str) -> bool:
    """Whether two claims (normalized) say two things done to their subject, each by a
    verb in the passive, another verb each, or one whose objects add up
    (:data:`_ADDITIVE`) with another object and neither said to be the only one."""
    mine = passive_verb(one)
    if mine is None:
        return False
    theirs = passive_verb(other)
    if theirs == mine and mine in _ADDITIVE:
        return _ONLY.search(one) is None and _ONLY.search(other) is None
    return theirs not in (None, mine)


#: a claim saying what its subject is, a noun phrase after an article ending it ("Dark mode
#: is the default theme.", "… is a paid feature."): its kind or its role
_DESCRIBED: Final = lazy(r"^[^=]+? (?:is|are) (?:the|a|an|our) [a-z][\w-]*(?: [a-z][\w-]*){0,3}$")


#: a claim saying what its subject is like, one word after its copula ("The status page is
#: public."), and the words of one saying it has no value ("The base URL is unset.")
_QUALITY: Final = lazy(r"^[^=]+? (?:is|are)(?: (?:now|currently|still|always))? ([a-z]+)$")
_NO_VALUE: Final = frozenset("none empty blank unset missing unknown null undefined".split())
#: a value saying where a thing is: a host, a URL, a path (a letter, then a dot, a slash or
#: a colon: not a number, a version nor a word)
_PLACE: Final = lazy(r"v:(?=.*[a-z]).*[./:]")


def said_beside(said: str, stated: frozenset[str]) -> bool:
    """Whether ``said`` (normalized, a claim of no value) says another attribute of its
    subject than the other claim's values ``stated``: what the thing is (:data:`_DESCRIBED`)
    beside states only ("Dark mode is the default theme." / "… is enabled."), or what it is
    like in a word (:data:`_QUALITY`) beside where it is ("The status page is public." /
    "… is at status.example.com."; not a word saying it has none, nor a state)."""
    if not stated:
        return False
    if all(value[:2] == "s:" for value in stated):
        return _DESCRIBED.match(said) is not None
    quality = _QUALITY.match(said)
    return quality is not None and quality.group(1) not in _NO_VALUE | STOP | frozenset(
        STATES) and all(_PLACE.match(value) is not None for value in stated)

