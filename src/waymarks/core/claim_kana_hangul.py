"""The subject words of Japanese kana and Korean Hangul in a claim, for its signature
(:mod:`waymarks.core.contradiction`, which reads Chinese characters, Japanese kanji among
them, and ASCII words itself). Pure.

A katakana run is one word ("データベース", "ポート"); hiragana are particles and endings
("の", "は", "です"), no subject word. A Hangul word is a word with its particle glued to
its end ("포트는": the port), read without it; a predicate ("입니다", "있습니다") and a word
holding a state ("활성화되어": the state, read by the signature) are no subject words. Each
word is mapped by the vocabulary (:data:`waymarks.core.claim_terms.TERMS`), so
"データベースのポート", "데이터베이스 포트" and "数据库端口" are one subject.
"""

from __future__ import annotations

from typing import Final

from waymarks.core.claim_terms import HANGUL_PARTICLES, HANGUL_PREDICATE_ENDINGS, STATES, TERMS
from waymarks.core.lazy_re import lazy

#: a katakana word (the prolonged sound mark included; "・" separates two words)
_KATAKANA: Final = lazy(r"[\u30a1-\u30fa\u30fc]+")
_HANGUL: Final = lazy(r"[\uac00-\ud7a3]+")
_HANGUL_STATES: Final = tuple(word for word in STATES if _HANGUL.fullmatch(word))


def kana_hangul_terms(text: str) -> set[str]:
    """The canonical subject terms of the katakana and Hangul words of ``text``."""
    terms = {TERMS.get(word, word) for word in _KATAKANA.findall(text)}
    for word in _HANGUL.findall(text):
        if word.endswith(HANGUL_PREDICATE_ENDINGS) or any(
                state in word for state in _HANGUL_STATES):
            continue
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
