"""Word values of claim signatures (:mod:`waymarks.core.contradiction`): a plain word that
is the value a claim states ("The log level is info.", "默认分支是 main。", "Master is the
default branch."), as opposed to a number, a path or a state, which the value expression
reads. Each is found where the sentence's shape says the word is a setting's value: after
an attribute whose values are words and its copula, after a copula of its own in Chinese,
Japanese or Korean, or before such an attribute named by a copula after the word."""

from __future__ import annotations

from typing import Final

from waymarks.core.claim_terms import (
    DESTINATION,
    STATES,
    TERMS,
    WORD_ATTRIBUTES,
    WORD_COPULA,
)
from waymarks.core.claim_values import WordPatterns
from waymarks.core.claim_words import STOP
from waymarks.core.lazy_re import lazy

_WORD: Final = r"([a-z](?:[\w.+-]*[\w+-])?)"
#: where a clause that states the word ends (its full stop no part of it: "默认分支是
#: main." is main; a Japanese or a Korean copula after it: "は main です", "는 main입니다";
#: or where it holds: "… in staging."); a full stop before a letter or a digit is inside a
#: value ("db" of "db.internal:5432" was the word, the host and its port none)
_CLAUSE_ENDS: Final = r"(?=(?:です|だ|입니다|이다|\s+in [a-z]+)?\s*(?:[。!;,?]|\.(?!\w)|$))"

#: one plain word that is the whole rest of its clause after ``是``, ``为`` or ``=``, or a
#: Japanese ``は`` or a Korean topic or subject particle before its copula: the value
#: ("默认分支是 main。", "log_level = debug", "ブランチは main です。", "브랜치는
#: main입니다."); an English "is" is followed by too many other things ("is fast", "is the
#: owner") to read its word so, but after an attribute whose values are words and its
#: copula (:data:`WORD_ATTRIBUTES`, :data:`WORD_COPULA`: "The log level is info.", "…
#: should be debug.", no state word), and a place after
#: :data:`DESTINATION` ("written to dist."); a v-version alone ("版本是 v2.3.0。") is left
#: to the number rule, which reads 2.3.0, but a word that only starts like one is a word
#: ("默认分支是 v2-stable。": left out too, the claim had no value)
_WORD_VALUE: Final = WordPatterns(
    r"(?:是|为|=|(?<=[\u30a0-\u30ff\u4e00-\u9fff])は|(?<=[\uac00-\ud7a3])[은는이가](?=\s)"
    rf"|\b(?:{'|'.join(WORD_ATTRIBUTES)})s?(?: (?:{WORD_COPULA})(?= )|:)"
    rf"|(?:{DESTINATION})(?= |(?<=[\u4e00-\u9fff])))"
    r"\s*(?!(?>v\d+(?:\.\d+)*)\s*(?:[。!;,?]|\.(?!\w)|$))" + _WORD + r"\s*" + _CLAUSE_ENDS)

#: the word first, an English copula, then such an attribute ending its clause (a
#: definite description of it): "Master is the default branch." states the default
#: branch as "The default branch is master." does, and "Debug is the log level in
#: staging." as "… is debug in staging." (read only after "is", "Master is the default
#: branch" was no value, and both were written); the word starts its sentence, so "The
#: repo's main branch is the default branch." names no word
_WORD_FIRST: Final = WordPatterns(
    r"(?:^|(?<=[.;:!?] ))\s*" + _WORD + r" (?:is|are) (?:the|our) (?:[a-z]+ ){0,2}?"
    rf"(?:{'|'.join(WORD_ATTRIBUTES)})s?" + _CLAUSE_ENDS)

#: a verb of using, then the word before such an attribute ending its clause: "We use the
#: debug log level." is "The log level is debug." ("The worker uses the eu-west-1 region.",
#: "… runs with the info log level"); as no sentence of a copula, it stated no value, and
#: was written beside "The log level is info."
_WORD_USED: Final = WordPatterns(
    r"\b(?:use[sd]?|using|runs? (?:with|on)|ran (?:with|on)) (?:the |an? |our )?" + _WORD
    + rf" (?:[a-z]+ ){{0,2}}?(?:{'|'.join(WORD_ATTRIBUTES)})s?" + _CLAUSE_ENDS)
#: who owns a thing, named first: "Alice owns the billing service." (or "The platform team
#: owns …", a name of up to three words; or "Alice is the owner of the billing service.")
#: states its owner as "The billing service owner is Alice." does ("is not the owner of" and
#: "is no longer the owner of" deny it; "an owner", "a co-owner" name one of several);
#: and a Chinese name after the owner's word and its copula ("计费服务的负责人是张伟。"),
#: whose characters were subject words. Read as no value, the claims of two owners were
#: both written
_OWNER_FIRST: Final = lazy(
    r"(?:^|(?<=[.;!?] ))\s*(?:the |our )?([a-z][\w-]*(?: [a-z][\w-]*){0,2}?)"
    r"(?: owns| is the owner of| (?:no longer|never) (owns)| (?:does not|doesn't|did not|didn't)"
    r" (own)| is (?:no longer|not) (the owner) of) (?:the |our )?[a-z]")
_HAN_OWNER: Final = lazy(
    r"(?:负责人|所有者|值班人|值班工程师|维护人|维护者)\s*(?:是|为)\s*"
    r"([\u4e00-\u9fff]{2,4}|[a-z][\w-]*(?: [a-z][\w-]*){0,2})(?=\s*(?:[。!;,?]|\.(?!\w)|$))"
    r"|由\s*([\u4e00-\u9fff]{2,8}?|[a-z][\w-]*(?: [a-z][\w-]*){0,2})\s*负责")
#: a person or a team as the value of an attribute whose values are people, in a name of
#: up to three words: "This week's primary on-call is Chen.", "… is owned by Wang Fang.",
#: "The maintainer is the platform team." (beside the Chinese above: "本周值班人是赵磊。",
#: "发布流程由平台组负责。", "搜索服务的负责人是 Liu Qiang。"); read as no value, or as
#: characters of the subject, the claims of two people were both written
_PERSON: Final = lazy(
    r"(?:\b(?:on-call|oncall|owner|maintainer)s? (?:is|are)(?: now| currently)?|\bowned by)"
    r" (?:the )?([a-z][\w'-]*(?: [a-z][\w'-]*){0,2}?)(?=\s*(?:[;,!?]|\.(?!\w)|$))")
#: words before an attribute that say which of its values without being one ("the old
#: log format", "the usual region", "the configured log level")
_WHICH: Final = frozenset(
    "old latest previous next other right wrong correct proper usual existing own current"
    " whole first last preferred recommended chosen configured".split())
#: a handle or a channel named by its sigil ("@kate", "#ops-alerts"): a value wherever it
#: stands (as a subject word, "alerts now go to #sre-pager" was another subject than "…
#: go to #ops-alerts"); not inside a word (an address, "C#") nor a heading's "# "
_HANDLE: Final = lazy(r"(?<![\w@#.+-])[@#][a-z][\w.-]*[a-z0-9_]")
#: the texts the two expressions above are tried on: each holding the word class costs a
#: Chinese, Japanese or Korean text's process a compile of its own
_WORD_BEFORE: Final = lazy(r" (?:is|are) (?:the|our) |\b(?:us(?:e[sd]?|ing)|runs?|ran) ")


def word_values(text: str) -> list[tuple[int, int, bool]]:
    """Where each word value of ``text`` (folded, in lower case) starts and ends, and
    whether the sentence's shape denies it after it ("Alice no longer owns …"), last first
    (a caller blanks each in turn). A stop word is none ("It is the log level."), nor a
    state word after an English attribute ("Dark mode is enabled.": a state, read as one),
    nor, before its attribute, a word of the vocabulary or one saying which value
    (:data:`_NOT_BEFORE`), nor an owner's name holding a stop word ("Bob also owns …")."""
    spans: set[tuple[int, int, bool]] = set()
    for word in _WORD_VALUE.for_text(text).finditer(text):
        if word.group(1) not in STOP and not (
                word.group(1) in STATES and word.group(0).isascii()):
            spans.add((*word.span(1), False))
    if " own" in text:
        spans.update((*owner.span(1), (owner.lastindex or 0) > 1)  # a denial's group
                     for owner in _OWNER_FIRST.finditer(text)
                     if STOP.isdisjoint(owner.group(1).split()))
    if "负责" in text or "所有者" in text or "值班" in text or "维护" in text:
        spans.update((*owner.span(owner.lastindex or 1), False)
                     for owner in _HAN_OWNER.finditer(text))
    if "on-call" in text or "oncall" in text or " own" in text or "maintainer" in text:
        spans.update((*person.span(1), False) for person in _PERSON.finditer(text)
                     if STOP.isdisjoint(person.group(1).split()))
    if "@" in text or "#" in text:  # a handle or a channel: a value by its shape
        spans.update((*handle.span(), False) for handle in _HANDLE.finditer(text))
    if _WORD_BEFORE.search(text) is not None:
        for made in (_WORD_FIRST, _WORD_USED):
            spans.update((*word.span(1), False) for word in made.for_text(text).finditer(text)
                         if word.group(1) not in _NOT_BEFORE)
    return sorted(spans, reverse=True)


#: no word value before its attribute: a stop or state word, one of the vocabulary
#: ("Staging is the default region.": an environment; "the default log level") or one
#: saying which value (:data:`_WHICH`)
_NOT_BEFORE: Final = STOP | frozenset(STATES) | frozenset(TERMS) | _WHICH
