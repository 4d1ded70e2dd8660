"""Two claims of no value that share the replay rule's derived key and still say two
facts (:func:`waymarks.core.rules.key_apart` reads them): a participle saying what is done
to the thing ("The reports bucket is versioned.", "… is hosted on Grafana Cloud.", "… is
cleaned up every quarter.") beside another participle or beside a word saying what it is
or what it is like ("The reports bucket is public.", "The cache backend is redis.", "The
admin panel is only reachable over the VPN."). Neither has a signature, so nothing showed
the two apart, and the second was refused as a conflict. What one does and what it is
like are two attributes; a claim denied ("is not versioned"), one word the other's
opposite ("protected" / "unprotected", "deleted" / "kept", "automated" / "manual"), a verb
that replaces the thing ("is replaced by Valkey", "is renamed") and one verb said twice
("maintained by the checkout team" / "… by the billing team") still conflict. A word said
of the thing beside a value of it, where a copy of it goes ("The user uploads bucket is
private." / "… is mirrored to eu-west-1.") or a judgement of that value ("The upload
retry count is too low for flaky networks." / "… is 3."), is another attribute too. Pure."""

from __future__ import annotations

from typing import Final

from waymarks.core.claim_actions import action_of, passive_verb
from waymarks.core.claim_denials import NEGATION
from waymarks.core.claim_terms import STATES
from waymarks.core.claim_words import STOP
from waymarks.core.lazy_re import lazy

_ADVERB: Final = r"(?: (?:now|also|always|automatically|currently|only|still|usually))?"
#: what follows the copula of a claim of no value ("… is versioned.", "… are cleaned up
#: every quarter.", "… is rate limited.")
_AFTER_COPULA: Final = lazy(r"^[^=]+? (?:is|are)" + _ADVERB + r" ([a-z][a-z -]*)$")
#: a word saying what the thing is or is like, perhaps judged ("too low") and with whom or
#: where it holds ("… is only reachable over the VPN.", "… is too low for flaky networks.")
_QUALITY: Final = lazy(
    r"^[^=]+? (?:is|are)" + _ADVERB + r" (too |very |quite |fairly |rather )?"
    r"([a-z]+(?:-[a-z]+)*)( (?:for|from|to|in|on|outside|within|during|over|via|through"
    r"|behind|across|by) [a-z][\w-]*(?: [a-z][\w-]*){0,2})?$")
#: words no quality: a word saying there is no value, and a verb or state word
_NO_QUALITY: Final = frozenset(
    "none empty blank unset missing unknown null undefined manual".split()) | STOP | frozenset(
    STATES)
#: verbs that end the thing beside verbs that keep it: opposites of one attribute
_ENDING: Final = frozenset("deleted removed pruned purged destroyed dropped discarded".split())
_KEEPING: Final = frozenset("kept retained preserved archived saved stored".split())
#: verbs that replace the thing or its name: beside any other claim of it, a change of it
_REPLACING: Final = frozenset("replaced superseded renamed migrated deprecated".split())
#: a participle and the word of its opposite ("automated" / "manual")
_OPPOSITES: Final = frozenset(frozenset(pair) for pair in (
    ("automated", "manual"), ("encrypted", "plaintext"), ("signed", "unsigned"),
    ("versioned", "unversioned"), ("pinned", "floating"), ("managed", "unmanaged"),
    ("public", "restricted"), ("shared", "dedicated"), ("maintained", "archived"),
    ("maintained", "abandoned")))


def _acted(norm: str) -> str | None:
    """The participle saying what is done to the subject of ``norm`` (normalized): the
    first word after the copula ("is versioned", "are cleaned up every quarter"), or a noun
    and a participle ending the claim ("is rate limited": ``rate-limited``)."""
    found = _AFTER_COPULA.match(norm)
    if found is None:
        return None
    words = found.group(1).split()
    verb = action_of(words[0])
    if verb is not None:
        return verb
    if len(words) == 2 and words[0] not in STOP and words[1].endswith("ed"):
        return "-".join(words)
    return None


def _quality(norm: str) -> tuple[str, bool] | None:
    """The word said of the subject of ``norm`` and whether it is a judgement ("too
    low"), or ``None``."""
    found = _QUALITY.match(norm)
    if found is None or found.group(2) in _NO_QUALITY or action_of(found.group(2)) or (
            found.group(2).endswith("ed")):
        return None
    return found.group(2), found.group(1) is not None


#: the nouns of a thing whose value is a product's name ("The cache backend is redis." /
#: "… is memcached.": a name ending in "ed" is no participle there)
_NAMED_KINDS: Final = frozenset(
    "backend broker store database db registry manager tool framework library vendor cdn"
    " platform orm warehouse queue runner server engine provider driver".split())
_HEAD: Final = lazy(r"^[^=]*?([a-z]+) (?:is|are)\b")


def _named(norm: str) -> bool:
    """Whether the subject of ``norm`` ends with a noun whose values are names."""
    found = _HEAD.match(norm)
    return found is not None and found.group(1) in _NAMED_KINDS


#: words of a status, one at a time ("Issue 42 is closed." / "… is open.", "The PR is
#: approved." / "… is rejected.")
_STATUS: Final = frozenset(
    "open opened closed merged approved rejected accepted resolved fixed broken failed passed"
    " completed done pending started stopped paused resumed cancelled canceled published"
    " released shipped reverted draft live down up stale blocked".split())


def _opposed(one: str, other: str) -> bool:
    return (one == "un" + other or other == "un" + one or {one, other} <= _STATUS
            or one == "self-" + other or other == "self-" + one  # ("self-hosted" / "hosted")
            or frozenset((one, other)) in _OPPOSITES or bool({one, other} & _REPLACING)
            or (one in _ENDING and other in _KEEPING) or (other in _ENDING and one in _KEEPING))


def apart_without_values(one: str, other: str) -> bool:
    """Whether two claims (normalized) of no value, sharing a derived key, say two facts:
    two participles of two verbs, or a participle beside a word of what the thing is or is
    like, none denied nor the other's opposite."""
    if NEGATION.search(one) is not None or NEGATION.search(other) is not None:
        return False
    acts = _acted(one), _acted(other)
    if acts[0] is not None and acts[1] is not None:
        return acts[0] != acts[1] and not _opposed(acts[0], acts[1])
    for act, acting, said in ((acts[0], one, other), (acts[1], other, one)):
        word = _quality(said) if act is not None else None
        if act is None or word is None or _opposed(act, word[0]):
            continue
        # a name ending in "ed" alone ("The cache backend is redis." / "… is memcached.")
        if not (_named(acting) and acting.endswith(" " + act)):
            return True
    return False


def quality_beside_value(said: str, valued: str) -> bool:
    """Whether ``said`` (normalized, a claim of no value) says what its subject is like
    and ``valued`` (a claim of a value of it) says where a copy of it goes or what is done
    to it in the passive ("… is mirrored to eu-west-1."), or ``said`` judges the value
    ("… is too low for flaky networks.")."""
    if NEGATION.search(said) is not None:
        return False
    word = _quality(said)
    if word is None:
        return False
    verb = passive_verb(valued)
    return word[1] or (verb is not None and not _opposed(verb, word[0]))
