"""Whether one claim's subject is about another's fact (:mod:`waymarks.core.contradiction`
compares the values of two claims only then): the same subject, or a larger one that
contains the smaller with a term or two more, none naming a narrower thing. Pure."""

from __future__ import annotations

from typing import Final, Protocol

from waymarks.core.claim_terms import SAME_FACT
from waymarks.core.claim_words import term as _term
from waymarks.core.claim_words import words_of as _words_of

MIN_CONTAINED_TERMS: Final = 2
#: a paraphrase qualifies or rewords its subject a little ("the dev DB"); a claim with
#: many more subject terms than the other is about something else
MAX_EXTRA_TERMS: Final = 2


class Subjected(Protocol):
    """A claim's signature, as far as its subject goes."""

    @property
    def subject(self) -> frozenset[str]: ...
    @property
    def head(self) -> frozenset[str]: ...


def about(small: Subjected, large: Subjected) -> bool:
    """Whether ``large`` is about ``small``'s fact: its subject contains the smaller (of
    at least two terms), with at most :data:`MAX_EXTRA_TERMS` more, none naming a
    narrower thing (:func:`narrower`)."""
    return (len(small.subject) >= MIN_CONTAINED_TERMS and small.subject < large.subject
            and len(large.subject) - len(small.subject) <= MAX_EXTRA_TERMS
            and not narrower(small, large))


def narrower(small: Subjected, large: Subjected) -> bool:
    """Whether a term the larger subject adds names a narrower thing: a word of its subject
    phrase other than a qualifier of the same fact (:data:`SAME_FACT`: "The API metrics
    port is 9090." is not about "The API listens on port 8080.", "The dev DB listens on
    5436." is about "The database port is 5435."), or an identifier not made of the
    smaller's words ("db_port" is "db port", "test_db_port" is not), or a verb of where a
    copy goes (:data:`COPIES`)."""
    extra = large.subject - small.subject
    identifiers = {term for term in extra if "_" in term}
    if any(not _words_of(term) <= small.subject for term in identifiers):
        return True
    # an identifier's pieces are its words ("api_v2" is "api v2", whose "v2" is a value)
    pieces = {_term(piece) for term in identifiers for piece in term.split("_")}
    return any((term in large.head and term not in SAME_FACT) or term in COPIES
               for term in extra - identifiers - pieces)


#: the verbs of where a copy of the thing goes ("The primary region is replicated to
#: eu-west-1.", "… is mirrored to …", "… is backed up to …"): the copy's place, a narrower
#: thing than the thing's own ("The primary region is eu-central-1."), wherever they stand
COPIES: Final = frozenset(
    "replicated replicate mirrored copied copy synced sync backed archived exported".split())
