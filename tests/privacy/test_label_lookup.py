"""Whether a value is an interface's label naming a credential in another language
(``Mot de passe``, ``API-Schlüssel``) is looked up by its runs of words, not by building
and searching for each of the names in turn: every value an assignment's rule judged paid
for all of them (100 KB of ``Password: `` took 320 ms, 127 ms of it there). The answers are
those of the search it replaced."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from waymarks.core import secret_values
from waymarks.core.secret_values import (
    _LABEL_MARKS,
    _LABEL_WORDS_MAX,
    _TRANSLATED_NAMES,
    _letters,
    translated_label,
)


def searched(value: str) -> bool:
    """translated_label as it was: each name searched for in the phrase."""
    words = value.translate(_LABEL_MARKS).lower().split()
    if not words or len(words) > _LABEL_WORDS_MAX or not all(map(_letters, words)):
        return False
    phrase = f" {' '.join(words)} "
    parts = phrase.replace("-", " ")
    return any(f" {name} " in phrase or f" {name} " in parts for name in _TRANSLATED_NAMES)


class Counted(frozenset[str]):
    """The names, counting how often they are walked through."""

    walked = 0

    def __iter__(self) -> Iterator[str]:
        Counted.walked += 1
        return super().__iter__()


def test_a_value_is_not_compared_with_each_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secret_values, "_TRANSLATED_NAMES", Counted(_TRANSLATED_NAMES))
    Counted.walked = 0
    assert translated_label("Mot de passe oublié ?") and not translated_label("Password")
    assert Counted.walked == 0  # before: both walked the 63 names


def test_the_answers_are_those_of_the_search() -> None:
    rng = random.Random(3)
    vocabulary = [w for name in _TRANSLATED_NAMES for w in name.split()] + sorted(
        _TRANSLATED_NAMES) + ["api", "oublié", "Password", "x1", "API-Schlüssel",
                              "palavra-passe", "mot-de-passe", "?", "Clé"]
    held = 0
    for _ in range(20_000):
        value = rng.choice([" ", "-", ": "]).join(
            rng.choice(vocabulary) for _ in range(rng.randint(1, 9)))
        value = value.title() if rng.random() < 0.3 else value
        assert translated_label(value) == searched(value), value
        held += searched(value)
    assert 5_000 < held < 20_000  # both answers were asked for
