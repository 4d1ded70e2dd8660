"""The subject words of Chinese characters, Japanese kana and Korean Hangul in a claim,
for its signature (:mod:`waymarks.core.contradiction`, which reads ASCII words itself).
Pure.

A run of Chinese characters (Japanese kanji among them) is split into the vocabulary's
words (:func:`_han_terms`). A katakana run is one word ("データベース", "ポート");
hiragana are particles and endings ("の", "は", "です"), no subject word. A Hangul word is
a word with its particle glued to its end ("포트는": the port), read without it; a
predicate ("입니다", "있습니다") and a word holding a state ("활성화되어": the state, read by
the signature) are no subject words. Each word is mapped by the vocabulary
(:data:`waymarks.core.claim_terms.TERMS`), so "データベースのポート", "데이터베이스 포트" and
"数据库端口" are one subject.
"""

from __future__ import annotations

from typing import Final

from waymarks.core.claim_terms import (
    HAN_FROM,
    HAN_NOUN_VERBS,
    HAN_STOP,
    HAN_STOP_WORDS,
    HANGUL_PARTICLES,
    HANGUL_PREDICATE_ENDINGS,
    STATES,
    TERMS,
)
from waymarks.core.lazy_re import lazy

_HAN_RUN: Final = lazy(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
#: Chinese words the vocabulary knows (states too, as no term), for splitting a Han run
#: (:func:`_han_terms`), by their first character
_HAN_TERMS: Final = tuple(sorted(
    {w for w in (*TERMS, *STATES, *HAN_STOP_WORDS) if not w.isascii()},
    key=len, reverse=True))
_HAN_WORDS_BY_FIRST: Final[dict[str, tuple[str, ...]]] = {}
for _word in _HAN_TERMS:  # (one pass, each first character's words in that order)
    _HAN_WORDS_BY_FIRST[_word[0]] = (*_HAN_WORDS_BY_FIRST.get(_word[0], ()), _word)
#: a katakana word (the prolonged sound mark included; "・" separates two words)
_KATAKANA: Final = lazy(r"[\u30a1-\u30fa\u30fc]+")
_HANGUL: Final = lazy(r"[\uac00-\ud7a3]+")
#: (told without the expression, which the import would compile: ~0.7 ms)
_HANGUL_STATES: Final = tuple(word for word in STATES
                              if word and all("\uac00" <= c <= "\ud7a3" for c in word))
#: the negative copula ("5432가 아니라 5433", "5432가 아닌"): a denial, no subject word
_HANGUL_NOT: Final = ("아니", "아닌", "아닙")


def cjk_terms(text: str) -> set[str]:
    """The canonical subject terms of the Chinese, katakana and Hangul words of ``text``."""
    if text.isascii():  # (none of them: no expression compiled for an English claim)
        return set()
    terms = {term for run in _HAN_RUN.findall(text) for term in _han_terms(run)}
    terms.update(TERMS.get(word, word) for word in _KATAKANA.findall(text))
    for word in _HANGUL.findall(text):
        if word.endswith(HANGUL_PREDICATE_ENDINGS) or word.startswith(_HANGUL_NOT) or (
                word in HANGUL_PARTICLES) or any(state in word for state in _HANGUL_STATES):
            continue  # (a particle typed apart, "5432 가", is no word either)
        stem = _without_particle(word)
        terms.add(TERMS.get(stem, stem))
    return terms


def _without_particle(word: str) -> str:
    """``word`` without the particle glued to its end, unless it is a word of the
    vocabulary as it is (or nothing would be left)."""
    if word in TERMS:
        return word
    for particle in HANGUL_PARTICLES:
        if word.endswith(particle) and len(word) > len(particle):
            return word[:-len(particle)]
    return word


def _han_terms(run: str) -> set[str]:
    """Known words of a Han run; the characters left are terms one by one, except
    function characters (:data:`HAN_FROM` at the run's end only). Of the ways to split
    the run, the one leaving the fewest such characters, then of the fewest pieces
    (longest words): the longest word first split "用户服务端口" into 服务端 + 口, not 服务
    + 端口."""
    # best[i]: (characters left as terms, pieces, terms) for run[i:]
    best: list[tuple[int, int, tuple[str, ...]]] = [(0, 0, ())] * (len(run) + 1)
    for position in range(len(run) - 1, -1, -1):
        char = run[position]
        left, pieces, terms = best[position + 1]
        choice = ((left, pieces + 1, terms)
                  if char in HAN_STOP or (char in HAN_FROM and position == len(run) - 1)
                  else (left + 1, pieces + 1, (char, *terms)))
        for word in _HAN_WORDS_BY_FIRST.get(char, ()):
            if run.startswith(word, position) and not _starts_a_noun(run, position, word):
                left, pieces, terms = best[position + len(word)]
                if (left, pieces + 1) < choice[:2]:
                    choice = (left, pieces + 1,
                              (TERMS[word], *terms) if word in TERMS else terms)
        best[position] = choice
    return set(best[0][2])


def _starts_a_noun(run: str, position: int, word: str) -> bool:
    """Whether ``word`` at ``position`` of ``run`` is a verb starting the compound noun the
    run begins with (运行日志, 设置页面, 使用说明: :data:`HAN_NOUN_VERBS`), so its characters
    are subject terms: read as "runs", "set" or "uses" wherever it stood, "日志保留 30 天。"
    was refused beside "运行日志保留 7 天。", the run logs. Not after a subject (构建使用)
    nor before function characters only (运行在)."""
    return word in HAN_NOUN_VERBS and position == 0 and any(
        char not in HAN_STOP for char in run[len(word):])
