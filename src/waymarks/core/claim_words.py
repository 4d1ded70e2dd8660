"""A claim's subject words (:mod:`waymarks.core.contradiction`'s signatures): the ASCII
words of its text with the stop words left out, each mapped to its canonical term
(plurals folded, ``db`` the database), an identifier's pieces beside it, and Chinese,
Japanese and Korean words from :mod:`waymarks.core.claim_cjk_words`."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

from waymarks.core.claim_change_verbs import DETERMINERS, WHERE_IS
from waymarks.core.claim_cjk_words import cjk_terms
from waymarks.core.claim_denials import CHANGE_WORDS, NOT_AUXILIARIES, is_change_verb
from waymarks.core.claim_terms import NOT_PLURAL as _NOT_PLURAL
from waymarks.core.claim_terms import STATES as _STATES
from waymarks.core.claim_terms import TERMS as _TERMS
from waymarks.core.lazy_re import lazy

ASCII_WORD: Final = lazy(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
_WHERE_IS: Final = lazy(WHERE_IS)
#: words that name no subject (articles, copulas, auxiliaries, state and unit words...;
#: the verbs of serving a port: "The API exposes port 8080." is about the API port, as "…
#: serves on port 8080." is, while a word of its own, "exposes" named a narrower thing)
STOP: Final = frozenset(
    """
    a an the our my your their its this that these those is are was were be been being am
    it they we i you he she of to in on at by for with from into as and or but so than
    has have had will would should must can could may might shall do does did
    now currently still always usually actually also then there here which who what
    set sets use uses used using run runs running ran changed change changes moved
    configured configure value values equals equal every each per after before about
    until till previously formerly only exclusively solely
    turned switched same new please note that's it's s serve serves served serving
    expose exposes exposed exposing allow allows
    seconds second secs sec minutes minute mins hours hour days day ms percent
    times time mb gb kb bytes
    """.split()
) | frozenset(_STATES) | frozenset(
    {"not", "never", "no", "longer", "anymore", "cannot", "won"}) | frozenset(
    aux + end for aux in NOT_AUXILIARIES for end in ("n", "nt"))


def subject_terms(text: str) -> set[str]:
    if "in" in text or "at" in text or "on" in text or "under" in text:
        text = _WHERE_IS.sub(_blank, text)  # "lives in", "located at": no subject word
    terms: set[str] = set()
    for word in ASCII_WORD.finditer(text):
        joined = word.group(0)
        if joined in CHANGE_WORDS and not _after_determiner(text, word.start()) \
                and is_change_verb(text, word.end(), STOP, word.start()):
            continue  # (a change's verb, by where it stands: not kept per word)
        if joined == "rest" and text.endswith("at ", 0, word.start()):
            continue  # "encrypted at rest": where it is stored, no narrower thing (a "REST
            # API" is one)
        terms.update(_word_terms(joined))
    if not text.isascii():
        terms |= cjk_terms(text)
    return terms


def _blank(match: re.Match[str]) -> str:
    return " " * (match.end() - match.start())


def _after_determiner(text: str, start: int) -> bool:
    """Whether the word at ``start`` follows a determiner ("the update window"): a noun."""
    before = text[max(0, start - 8):start].split()
    return bool(before) and before[-1] in DETERMINERS


@lru_cache(maxsize=1 << 13)
def _word_terms(joined: str) -> frozenset[str]:
    """The subject terms of one ASCII word (kept per process, 8,192 words, ~3 MB: a
    rebuild's claims share most of their words; 65,536 held 24 MB)."""
    # an identifier's words are the subject's words too: "db_port = 5432" is about the
    # database port as "db port = 5433" is (both were kept, and both planned); the
    # identifier itself stays a term, so two identifiers are one subject only when they
    # are one identifier ("test_db_port" is not "db_port", "x_offset" not "y_offset");
    # one with a numbered part ("pool_2") and a hyphenated name ("new-checkout") are one
    # term
    terms: set[str] = set()
    _addterm(terms, joined)
    pieces = joined.split("_")
    if len(pieces) > 1 and all(piece[:1].isalpha() for piece in pieces):
        for piece in pieces:
            _addterm(terms, piece)
    return frozenset(terms)


def _addterm(terms: set[str], word: str) -> None:
    if word in STOP or len(word) == 1:  # single letters: see _LETTER_NAME
        return
    terms.add(term(word))


#: the endings of a word that takes "es" in the plural ("push", "batch", "branch",
#: "search", "process", "index"): without its "s" alone, "pushes" was "pushe", another
#: subject than "push"
_ES_PLURALS: Final = ("shes", "tches", "nches", "rches", "sses", "xes")


def term(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"  # "retries" and "retry" are one term
    elif len(word) > 4 and word.endswith(_ES_PLURALS):
        word = word[:-2]  # "pushes" is "push", "batches" "batch" (not "caches": "cache")
    elif (len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))
          and word not in _NOT_PLURAL):
        word = word[:-1]  # a plain plural: "brokers" and "broker" are one term
    return _TERMS.get(word, word)


def words_of(identifier: str) -> frozenset[str]:
    """An identifier term's words as the same words in a sentence are subject terms: stop
    words and single letters dropped (a sentence's are), and a piece holding a digit
    (``api_v2``: a sentence's ``v2`` is a value). Kept, they made ``max_retries_per_job``
    no longer the subject of "max retries per job" (``per`` is a stop word). Single
    letters are not told apart, as in words alone ("shard a port" / "shard b port")."""
    return frozenset(term(word) for word in identifier.split("_")
                     if word not in STOP and len(word) > 1
                     and not any(c.isdigit() for c in word))


#: a word saying a claim adds to what holds ("The API also listens on port 9090.", "… on
#: 9090 too", "… as well", "API 也监听端口 9090。", 还 (not 还是, "still is"), 同时, 另外): its
#: value is one more, no other in place of one stated
_ADDS: Final = lazy(r"\b(?:also|additionally)\b|\b(?:too|as well)(?=\s*(?:[.;,!?]|$))"
                    r"|也|还(?!是)|同时|另外")


def adds(text: str) -> str | None:
    """``text`` (folded, in lower case) with its word of adding (:data:`_ADDS`) blanked, or
    ``None`` when it has none."""
    found = _ADDS.search(text)
    if found is None:
        return None
    return text[:found.start()] + " " * (found.end() - found.start()) + text[found.end():]

